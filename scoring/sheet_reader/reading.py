"""A photo of a filled sheet read: every pip cell's value (empty, a number, or unreadable) with a
confidence. Plain Python, numpy and OpenCV, no Django: ``find`` gives the page's QR code (the
caller says which layout that sheet was printed with), ``read`` the cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.sheet_reader import digits, geometry
from scoring.sheet_reader.geometry import Found, NotRead
from scoring.sheet_reader.layout import SheetLayout

# A cell read at least this sure (its least sure digit) is filled in as read; others
# are marked unsure. Chosen on digits kept out of training (``train`` prints the table): at 0.9
# a digit the networks agree on is wrong about 4 times in 1,000.
SURE = 0.9
INSET = 0.08  # of a box's side, left out on each side: its printed lines
LIGHT = 0.25  # darker than the paper by this share: perhaps ink (the boxes' grey lines are not)
DARK = 0.55  # by this share: ink for sure
SOME_INK = 0.012  # of a box's pixels: less is no digit...
FAINT = 0.003  # ... but more than this is a doubt (a faint or tiny mark): the cell is unsure
EMPTY = "empty"
NUMBER = "number"
UNREADABLE = "unreadable"

__all__ = ["NotRead", "Cell", "Reading", "find", "read"]


@dataclass
class Cell:
    """One pip cell read: its state, its value (a number), how sure (0..1), and each box's
    digit (None: empty) for the page that shows it."""

    state: str
    value: int | None
    confidence: float
    digits: list[int | None] = field(default_factory=list)

    @property
    def sure(self) -> bool:
        return self.state != UNREADABLE and self.confidence >= SURE

    def as_dict(self) -> dict:
        return {
            "state": self.state,
            "value": self.value,
            "confidence": round(self.confidence, 4),
            "sure": self.sure,
        }


@dataclass
class Reading:
    """A sheet's cells, a row per engine, a cell per player in seat order."""

    cells: list[list[Cell]]

    @property
    def blank(self) -> bool:
        return all(c.state == EMPTY for row in self.cells for c in row)


def find(data: bytes) -> Found:
    """The page in the photo's bytes (``NotRead``: why not)."""
    return geometry.find_page(geometry.decode(data))


def read(found: Found, layout: SheetLayout) -> Reading:
    """Every pip cell of the page ``found``, printed with ``layout``."""
    if not layout.readable:
        raise NotRead("layout")
    flat = geometry.straighten(found, layout)
    crops, where, doubts = [], [], set()
    boxes: list[list[list[np.ndarray | None]]] = []
    for row in range(layout.engines):
        boxes.append([])
        for col in range(layout.players):
            strip = geometry.crop(flat, layout.strip_at(row, col))
            paper = float(np.percentile(strip, 90)) if strip.size else 255.0
            inks = [
                box_reading(geometry.crop(flat, b), paper) for b in layout.digit_boxes(row, col)
            ]
            boxes[-1].append(inks)
            for i, (ink, share) in enumerate(inks):
                if ink is not None:
                    crops.append(ink)
                    where.append((row, col, i))
                elif share > FAINT:
                    doubts.add((row, col))
    found_digits: dict[tuple[int, int, int], tuple[int, float]] = {}
    if crops:
        best, sure = digits.read(np.stack(crops))
        for key, digit, p in zip(where, best, sure, strict=True):
            found_digits[key] = (int(digit), float(p))
    cells = [
        [
            cell(
                [found_digits.get((row, col, i)) for i in range(len(boxes[row][col]))],
                doubt=(row, col) in doubts,
            )
            for col in range(layout.players)
        ]
        for row in range(layout.engines)
    ]
    return Reading(cells)


def box_ink(gray: np.ndarray, paper: float) -> np.ndarray | None:
    """A digit box's ink, centred as MNIST's digits are; None when the box is empty."""
    digit, _share = box_reading(gray, paper)
    return digit


def box_reading(gray: np.ndarray, paper: float) -> tuple[np.ndarray | None, float]:
    """A digit box's ink, centred as MNIST's digits are (None: no digit), and the share of its
    pixels that are ink."""
    height, width = gray.shape
    dy, dx = round(height * INSET), round(width * INSET)
    inner = gray[dy : height - dy, dx : width - dx].astype(np.float32)
    if inner.size == 0:
        return None, 0.0
    darkness = (paper - inner) / max(paper, 1.0)
    ink = np.clip((darkness - LIGHT) / (DARK - LIGHT), 0, 1)
    share = float((ink > 0.5).mean())
    if share < SOME_INK:
        return None, share
    return digits.normalize(ink), share


def cell(read_digits: list[tuple[int, float] | None], doubt: bool = False) -> Cell:
    """A cell from its boxes' digits (each (digit, probability) or None for an empty box);
    ``doubt``: a box holds a mark too faint or small to be sure it is no digit."""
    shown = [d[0] if d else None for d in read_digits]
    written = [i for i, d in enumerate(read_digits) if d is not None]
    if doubt:
        return Cell(UNREADABLE, None, 0.0, shown)
    if not written:
        return Cell(EMPTY, None, 1.0, shown)
    if written != list(range(written[0], written[-1] + 1)):  # a box left empty between digits
        return Cell(UNREADABLE, None, 0.0, shown)
    confidence = min(read_digits[i][1] for i in written)  # sure when every digit is
    text = "".join(str(read_digits[i][0]) for i in written)
    if len(text) > 1 and text[0] == "0":  # "07": a stray mark or a misread
        return Cell(UNREADABLE, None, confidence * 0.5, shown)
    return Cell(NUMBER, int(text), confidence, shown)
