"""The camera's reading measured (issue 51 item 4): the site's own blank sheet (its PDF drawn as
an image), filled with handwritten digits kept out of the network's training, photographed by
a program (scoring/sheet_reader/synth.py), read through the service a director's upload goes
through. Prints the cells read right (and sure), read wrong while sure, left unsure, and the
seconds a sheet. ``python -m tests.bench --sheets`` (part of ``make bench``); the tests
(tests/test_sheet_reading.py) hold the same figures to bounds with fixed seeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pypdfium2

from scoring.sheet_reader import synth

SHEETS = 12


@dataclass
class Figures:
    cells: int = 0
    right: int = 0  # read as written, and sure
    wrong_sure: int = 0  # read otherwise, and sure: the dangerous number
    unsure: int = 0
    refused: int = 0  # sheets not read at all
    seconds: float = 0.0
    sheets: int = 0

    def share(self, count: int) -> float:
        return count / self.cells if self.cells else 0.0

    def lines(self) -> list[str]:
        return [
            f"sheets read: {self.sheets - self.refused} of {self.sheets}, {self.cells} cells",
            f"cells read right (and sure): {self.share(self.right):.1%} (at least 85 %)",
            f"cells read wrong while sure: {self.share(self.wrong_sure):.2%} (at most 0.5 %)",
            f"cells marked unsure: {self.share(self.unsure):.1%}",
            f"seconds a sheet: {self.seconds / max(1, self.sheets):.2f}",
        ]


def page_image(pdf: bytes) -> np.ndarray:
    """The PDF's first page in grey at ``synth.PAGE_PIXELS_PER_MM``."""
    page = pypdfium2.PdfDocument(pdf)[0]
    image = page.render(scale=synth.PAGE_PIXELS_PER_MM * 25.4 / 72, grayscale=True).to_pil()
    return np.array(image.convert("L"))


def measure(table, pdf: bytes, seeds, hand=None, turn=None) -> Figures:
    """Photographs of ``table``'s sheet (``pdf``, blank) filled at random (one per seed), read
    by ``read_sheet_photo``; each cell compared to what was written."""
    from scoring.printing import sheet_layout
    from scoring.services.sheet_reading import SheetNotRead, read_sheet_photo
    from scoring.sheets import table_sheet

    hand = hand or synth.held_out_handwriting()
    page = page_image(pdf)
    layout = sheet_layout(table_sheet(table), "letter", False)
    figures = Figures()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        values = synth.scores(layout, rng, played=int(rng.integers(6, layout.engines + 1)))
        photo = synth.photograph(synth.write(page, layout, values, hand, rng), rng, turn=turn)
        figures.sheets += 1
        started = time.perf_counter()
        try:
            read = read_sheet_photo(table, photo)
        except SheetNotRead:
            figures.refused += 1
            figures.cells += sum(len(row) for row in values)
            figures.unsure += sum(len(row) for row in values)
            continue
        finally:
            figures.seconds += time.perf_counter() - started
        for row, written in zip(read["cells"], values, strict=True):
            for cell, value in zip(row, written, strict=True):
                figures.cells += 1
                right = cell["value"] == value if value is not None else cell["state"] == "empty"
                if not cell["sure"]:
                    figures.unsure += 1
                elif right:
                    figures.right += 1
                else:
                    figures.wrong_sure += 1
    return figures


def run() -> int:
    """The bench: a table of four on Letter, ``SHEETS`` photographs."""
    from django.test import Client

    from tests.factories import make_director, make_event, make_players, seat

    event = make_event(make_director("bench-sheets"), name="Bench Games", slug="bench-sheets")
    make_players(event, count=4)
    table = seat(event).tables.get()
    pdf = Client().get(f"/e/{event.slug}/1/table/{table.number}/blank-sheet.pdf").content
    figures = measure(table, pdf, range(1000, 1000 + SHEETS))
    print("\nThe score sheet read by the camera (issue 51):")
    for line in figures.lines():
        print("  " + line)
    return 0
