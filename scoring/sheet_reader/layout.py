"""Where a score sheet's parts lie on its printed page, in millimetres from the page's top left
corner: the one place the template (templates/print/sheets.html) and the reader take them from.

The sheet's head (event, stage, table, clock, QR code) has a fixed height, the grid's rows and
columns fixed sizes, so every pip cell lies where this module says whatever the names. Each pip
cell holds three light digit boxes (drawn as an image, so the grid reads as today's), and four
solid squares at the page's corners give the reader the page's edges and angle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

SCHEME = 1  # the layout's version: a sheet printed by another scheme is refused, not misread

PAPERS = {"letter": (215.9, 279.4), "A4": (210.0, 297.0)}  # width, height (portrait)
MARGIN = 11.43  # top and sides: 0.45 in (static/css/print.css's @page)
MARGIN_BOTTOM = 13.97  # 0.55 in
MARK = 6.0  # a corner mark's side
MARK_INSET = 5.0  # from the page's edges (inside any printer's unprinted border)
BOXES = 3  # digit boxes in each pip cell: up to 999 pips
TABLE_BORDER = 0.53  # 1.5 pt: the grid's outer border
CELL_BORDER = 0.21  # 0.6 pt: a cell's right and bottom borders
PIPS_SHARE = 0.6  # of a player's two columns, the pip count's (the running total's: the rest)
PIPS_SHARE_COMPACT = 0.64  # narrower columns: a running total in small type still fits
SMALLEST_BOX = 3.0  # mm: narrower digit boxes are not printed (tables of 9 or more players)


@dataclass(frozen=True)
class Box:
    """A rectangle on the page, in millimetres."""

    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class SheetLayout:
    """The page of one table's sheet: ``players`` columns, ``engines`` rows, a row of
    cumulative totals before this game or not (``before``)."""

    paper: str
    players: int
    engines: int
    before: bool = False

    @property
    def compact(self) -> bool:
        """Many players or engines: smaller type and rows, so the sheet still fits its page."""
        return self.players > 5 or self.engines > 13

    @property
    def page(self) -> tuple[float, float]:
        return PAPERS.get(self.paper, PAPERS["letter"])

    @property
    def content_width(self) -> float:
        return self.page[0] - 2 * MARGIN

    @property
    def head_height(self) -> float:
        """The head above the grid (event, stage and table, clock, QR code)."""
        return 29.0 if self.compact else 31.0

    @property
    def qr_side(self) -> float:
        return 21.6 if self.compact else 25.4

    @property
    def qr_column(self) -> float:
        return self.qr_side + 3.8

    @property
    def name_lines(self) -> float:
        """The names' text, inside their cell's padding: longer names are cut."""
        return self.name_height - 2.8

    @property
    def name_height(self) -> float:
        """The players' names: four lines of a long name (three on a compact sheet)."""
        return 13.0 if self.compact else 18.5

    @property
    def sub_height(self) -> float:
        return 4.6 if self.compact else 5.6

    @property
    def before_height(self) -> float:
        return (5.0 if self.compact else 6.0) if self.before else 0.0

    @property
    def row_height(self) -> float:
        return 5.59 if self.compact else 7.37  # 0.22 in, 0.29 in

    @property
    def engine_width(self) -> float:
        """The engine column: wide enough for "Locomotive" and "Before this game"."""
        return 26.67 if self.compact else 30.48  # 1.05 in, 1.2 in

    @property
    def player_width(self) -> float:
        return (self.content_width - self.engine_width - 2 * TABLE_BORDER) / self.players

    @property
    def pips_width(self) -> float:
        return self.player_width * (PIPS_SHARE_COMPACT if self.compact else PIPS_SHARE)

    @property
    def readable(self) -> bool:
        """The pip cells hold three digit boxes a hand can write in (tables of up to 8): the
        sheet is printed with them and may be read by the camera."""
        return self.box_size[0] >= SMALLEST_BOX

    @property
    def running_width(self) -> float:
        return self.player_width - self.pips_width

    @property
    def grid_top(self) -> float:
        """The grid's outer edge, from the page's top."""
        return MARGIN + self.head_height

    @property
    def body_top(self) -> float:
        """The first engine row's top edge."""
        return (
            self.grid_top + TABLE_BORDER + self.name_height + self.sub_height + self.before_height
        )

    def marks(self) -> list[Box]:
        """The four corner marks: top left, top right, bottom right, bottom left."""
        width, height = self.page
        far_x, far_y = width - MARK_INSET - MARK, height - MARK_INSET - MARK
        return [
            Box(MARK_INSET, MARK_INSET, MARK, MARK),
            Box(far_x, MARK_INSET, MARK, MARK),
            Box(far_x, far_y, MARK, MARK),
            Box(MARK_INSET, far_y, MARK, MARK),
        ]

    def mark_centers(self) -> list[tuple[float, float]]:
        return [m.center for m in self.marks()]

    def qr(self) -> Box:
        """Where the QR code is printed: the head's top right corner."""
        return Box(self.page[0] - MARGIN - self.qr_side, MARGIN, self.qr_side, self.qr_side)

    def pip_cell(self, row: int, column: int) -> Box:
        """The pip cell of engine row ``row`` (0: the first engine) and player ``column``
        (0: the first seat), inside its borders."""
        x = MARGIN + TABLE_BORDER + self.engine_width + column * self.player_width
        y = self.body_top + row * self.row_height
        return Box(x, y, self.pips_width - CELL_BORDER, self.row_height - CELL_BORDER)

    @cached_property
    def box_size(self) -> tuple[float, float]:
        """A digit box's width and height: as square as the cell allows."""
        cell = self.pip_cell(0, 0)
        height = cell.h - (0.9 if self.compact else 1.1)
        room = cell.w - 2 * self.box_gap - (BOXES - 1) * self.box_gap
        width = min(height * 0.85, room / BOXES)
        return (round(width, 2), round(height, 2))

    @property
    def box_gap(self) -> float:
        return 0.4 if self.compact else 0.9

    def strip(self) -> tuple[float, float]:
        """The three boxes side by side: their width and height."""
        width, height = self.box_size
        return (BOXES * width + (BOXES - 1) * self.box_gap, height)

    def strip_at(self, row: int, column: int) -> Box:
        """The three boxes of a pip cell, centred in it."""
        cell = self.pip_cell(row, column)
        width, height = self.strip()
        return Box(cell.x + (cell.w - width) / 2, cell.y + (cell.h - height) / 2, width, height)

    def digit_boxes(self, row: int, column: int) -> list[Box]:
        """The pip cell's digit boxes, left to right."""
        strip = self.strip_at(row, column)
        width, height = self.box_size
        return [
            Box(strip.x + i * (width + self.box_gap), strip.y, width, height) for i in range(BOXES)
        ]
