"""The paper score sheet read by the camera (issue 51, PRODUCT.md §16): plain Python, numpy and
OpenCV, no Django (an import-linter contract).

- ``layout``: where everything a camera needs lies on the printed page, in millimetres: the
  corner marks, the grid, each pip cell's three digit boxes. The sheet's template draws from
  these numbers and the reader cuts from them: one place.
- ``geometry``: a photo made flat: the corner marks found, the QR code read, the page turned
  upright and straightened, each digit box cut out.
- ``digits``: three small convolutional networks for handwritten digits (weights in
  ``digits.npz``, trained by ``python -m scoring.sheet_reader.train``), inference in numpy.
- ``reading``: a photo and the layout in, every cell's value and confidence out.
- ``synth``: filled sheets photographed by a program, to measure the reader (``make bench``).
"""
