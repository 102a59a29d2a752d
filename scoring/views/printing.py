"""PDFs and exports (PRODUCT.md §9), all public like the pages they belong to.

Each PDF view is the page's own view (or its context) rendered through a template under
``templates/print/`` by the one renderer, ``scoring.printing.render_pdf``; each export goes
through the one exporter, ``scoring.exports`` (django-tables2's ``TableExport``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from django.http import HttpResponseBadRequest
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView
from django_tables2 import RequestConfig

from scoring.exports import (
    RowsExport,
    cumulative_export,
    export_response,
    requested_format,
    round_score_headers,
    round_score_rows,
    table_export,
)
from scoring.lists import StandingsTable
from scoring.printing import (
    SHEETS_PER_PDF,
    page_size,
    pdf_response,
    render_pdf,
    sheets_context,
    table_blocks,
)
from scoring.sheets import TableSheet, stage_sheets, table_sheet
from scoring.views.results import BracketView, ResultsView, StandingsView, shown_standings
from scoring.views.seating import SeatingView
from tournament.mixins import DirectorRequiredMixin, EventMixin, StageMixin, TableMixin
from tournament.models import Medal
from tournament.refusals import NotFound, Refusal


class PdfMixin:
    """Render the view's context through ``template_name`` (a print template) as a PDF, in the
    event's sheet language (the reader's language when the event sets none)."""

    def get(self, request, *args, **kwargs):
        language = self.event.sheet_language or translation.get_language()
        with translation.override(language):
            return super().get(request, *args, **kwargs)

    def get_filename(self) -> str:
        raise NotImplementedError

    def render_pdf(self, context) -> bytes:
        return render_pdf(self.template_name, context, self.request)

    def render_to_response(self, context, **response_kwargs):
        return pdf_response(self.render_pdf(context), self.get_filename())


# -- score sheets -----------------------------------------------------------------------------


class SheetsPdfMixin(PdfMixin, StageMixin):
    """Score sheets, one table a page: filled (the rounds entered) or blank (names only)."""

    template_name = "print/sheets.html"
    blank = False
    hides = ("seating",)

    def get_sheets(self) -> list[TableSheet]:
        raise NotImplementedError

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheets = self.get_sheets()
        ctx.update(
            sheets_context(
                self.stage,
                sheets,
                self.blank,
                self.request.build_absolute_uri,
                codes=self.is_director,
            )
        )
        return ctx

    def get_filename(self) -> str:
        kind = "blank-sheets" if self.blank else "sheets"
        return f"{self.event.slug}-{self.stage.number}-{self.sheet_name()}-{kind}.pdf"

    def sheet_name(self) -> str:
        return "all"


class TableSheetPdfView(SheetsPdfMixin, TableMixin, TemplateView):
    """One table's score sheet."""

    def get_sheets(self):
        return [table_sheet(self.table)]

    def sheet_name(self) -> str:
        return f"table-{self.table.number}"


class TooManySheets(Refusal):
    """A request for more score sheets than one PDF renders in time; the message says how to
    ask for them instead."""


_TABLE_RANGE = re.compile(r"([0-9]{1,6})-([0-9]{1,6})")  # ASCII digits only: "²".isdigit()


class StageSheetsPdfView(SheetsPdfMixin, TemplateView):
    """Every score sheet of a stage in one PDF, one table a page; ``?tables=51-100`` for a block
    of a large stage (the stage page links each block). At most ``SHEETS_PER_PDF`` sheets a
    PDF: a larger stage, or a wider range, is refused with the blocks to ask for."""

    def get(self, request, *args, **kwargs):
        try:
            return super().get(request, *args, **kwargs)
        except TooManySheets as refusal:
            return HttpResponseBadRequest(str(refusal), content_type="text/plain; charset=utf-8")

    def wanted(self) -> tuple[int, int] | None:
        """The ``?tables=first-last`` asked for (None: every table); 404 when malformed."""
        wanted = self.request.GET.get("tables")
        if wanted is None:
            return None
        match = _TABLE_RANGE.fullmatch(wanted)
        if not match or int(match[1]) > int(match[2]):
            raise NotFound(_("Give the tables as a range of numbers, e.g. ?tables=1-50."))
        first, last = int(match[1]), int(match[2])
        if last - first + 1 > SHEETS_PER_PDF:
            raise TooManySheets(
                _("Ask for at most %(most)s tables at a time, e.g. ?tables=%(first)s-%(last)s.")
                % {"most": SHEETS_PER_PDF, "first": first, "last": first + SHEETS_PER_PDF - 1}
            )
        return first, last

    def get_sheets(self):
        wanted = self.wanted()
        sheets = stage_sheets(self.stage)
        if wanted is None:
            if len(sheets) > SHEETS_PER_PDF:
                raise TooManySheets(self.blocks_text(len(sheets)))
            return sheets
        first, last = wanted
        chosen = [s for s in sheets if first <= s.table.number <= last]
        if not chosen:
            raise NotFound(
                _("This stage has no table numbered %(first)s to %(last)s.")
                % {"first": first, "last": last}
            )
        return chosen

    def blocks_text(self, count: int) -> str:
        """The refusal of a whole large stage: the blocks of tables to ask for, one a line."""
        blocks = "\n".join(
            f"{self.request.path}?tables={first}-{last}" for first, last in table_blocks(count)
        )
        return (
            _("This stage has %(count)s tables: ask for them %(most)s at a time:")
            % {"count": count, "most": SHEETS_PER_PDF}
            + f"\n{blocks}\n"
        )

    def sheet_name(self) -> str:
        wanted = self.wanted()
        return "all" if wanted is None else f"tables-{wanted[0]}-{wanted[1]}"


# -- lists ------------------------------------------------------------------------------------


# The seating list is posted on the wall: each of its two pages (A to Z, table by table) filled
# in the largest type that fits it, read from a few metres; a big stage runs on at 10 pt.
SEATING_SIZES = (40.0, 36.0, 32.0, 28.0, 26.0, 24.0, 22.0, 20.0, 18.0, 16.0, 14.0, 12.0, 11.0)
SEATING_SMALLEST = 10.0
# A portrait page less print.css's margins (pt): its width, the height left under the list's
# heading (the A-to-Z page), the height of a page (table by table).
_SEATING_PAGE = {"letter": (547.0, 630.0, 700.0), "A4": (530.0, 660.0, 750.0)}
SEATING_BOXES_A_ROW = (1, 2, 3, 4)  # print.css .by-table-1 to -4
_CHAR_EM = 0.52  # the width of a character of a name, about, in em (DejaVu Sans)


def _name_lines(name: str, width_em: float) -> float:
    """The lines a name takes in ``width_em``, wrapped between its words; infinite when a word
    is wider than that (it would be broken: the type is too large)."""
    lines, used = 1, 0.0
    for word in name.split():
        size = len(word) * _CHAR_EM
        if size * 1.1 > width_em:  # (a wide word: "Mmm" is wider than the average)
            return math.inf
        if used and used + _CHAR_EM + size > width_em:
            lines, used = lines + 1, size
        else:
            used += (_CHAR_EM if used else 0) + size
    return lines


def _a_to_z_height(names: list[str], size: float, width: float, columns: int) -> float:
    """The height (pt) of the A-to-Z list in ``columns`` at ``size`` pt (print.css .az-N)."""
    column_em = (width - 29.0 * (columns - 1)) / columns / size - 3.8  # less the table number
    rows = [(_name_lines(n, column_em) * 1.25 + 0.5) * size for n in names]
    return (sum(rows) + (columns - 1) * max(rows, default=0.0)) / columns  # balanced, about


def _by_table_height(tables: list[list[str]], size: float, width: float, per_row: int) -> float:
    """The height (pt) of the table-by-table boxes at ``size`` pt, ``per_row`` boxes a row
    (print.css .table-box, .by-table-N)."""
    box_em = width * (0.97 / per_row - 0.015) / size - 2.4  # less padding, border, numbers
    boxes = [
        (1.5 + sum(_name_lines(n, box_em) * 1.25 for n in names) + 1.4) * size for names in tables
    ]
    return sum(max(boxes[start : start + per_row]) for start in range(0, len(boxes), per_row))


@dataclass(frozen=True)
class SeatingLayout:
    """The seating list's two pages: type sizes (pt), the A-to-Z's columns, boxes a row."""

    a_to_z_size: float
    a_to_z_columns: int
    by_table_size: float
    table_columns: int


def seating_layout(paper: str, names: list[str], tables: list[list[str]]) -> SeatingLayout:
    """The largest type that fills each page of the seating list without running over (the
    smallest size runs on over pages), in the columns (A to Z) or boxes a row (table by
    table) that give it."""
    width, under_heading, page = _SEATING_PAGE.get(paper, _SEATING_PAGE["letter"])

    def largest(height_at, height: float) -> float:  # the page's h2: 1.25 em and its margin
        fits = (s for s in SEATING_SIZES if height_at(s) + 1.8 * s <= height)
        return next(fits, SEATING_SMALLEST)

    def best(height_at, height: float, choices) -> tuple[float, int]:
        options = [(largest(lambda s, n=n: height_at(s, n), height), n) for n in choices]
        # The same type: the wider columns, but the most columns at the smallest (fewer pages).
        return max(options, key=lambda o: (o[0], o[1] if o[0] == SEATING_SMALLEST else -o[1]))

    a_to_z = best(lambda s, n: _a_to_z_height(names, s, width, n), under_heading, (1, 2))
    by_table = best(lambda s, n: _by_table_height(tables, s, width, n), page, SEATING_BOXES_A_ROW)
    return SeatingLayout(*a_to_z, *by_table)


class SeatingPdfView(PdfMixin, SeatingView):
    """The seating list for the wall: A to Z with table numbers on one page, then table by
    table on the next, each in the largest type that fills its page. Rendered once more, a
    little smaller, only if the estimate ran over a page."""

    template_name = "print/seating.html"
    hides = ("seating",)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        names = [seat.player.name for seat in ctx["alphabetical"]]
        tables = [[seat.player.name for seat in seats] for _number, seats in ctx["tables"]]
        ctx["layout"] = seating_layout(page_size(self.event), names, tables)
        return ctx

    def render_pdf(self, context) -> bytes:
        layout = context["layout"]
        fits = min(layout.a_to_z_size, layout.by_table_size) > SEATING_SMALLEST

        def refit(pages: int) -> float | None:
            return 0.85 if fits and pages > 2 else None  # the two pages, 15% smaller

        return render_pdf(self.template_name, context, self.request, refit=refit)

    def get_filename(self) -> str:
        return f"{self.event.slug}-{self.stage.number}-seating.pdf"


class StandingsPdfView(PdfMixin, StandingsView):
    """A stage's standings, as its page lists them."""

    template_name = "print/standings.html"
    hides = ("seating", "results")

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["table"] = StandingsTable(list(ctx["rows"]), order_by="place", orderable=False)
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-{self.stage.number}-standings.pdf"


class ResultsPdfView(PdfMixin, ResultsView):
    """The results: medals, then every stage's standings in play order; a cumulative event's
    table of players × games in place of its games' standings."""

    template_name = "print/results.html"
    hides = ("results",)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        if ctx["board"]:
            ctx["layout"] = results_board_layout(ctx["board"], page_size(self.event))
            ctx["chunks"] = board_chunks(ctx["board"], 1, ctx["layout"].name_em)
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-results.pdf"


# -- the bracket on one page ------------------------------------------------------------------

# Type sizes (pt) the bracket is tried at, largest first, and the space one landscape page
# gives it on either paper (pt, less the margins): a big event gets small type. The first stage
# fills the left of the page, the later stages (the road to the medals) a column on the right.
BRACKET_SIZES = (
    13.0, 12.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.5, 4.0, 3.5, 3.0, 2.6, 2.2, 1.8, 1.5,
)  # fmt: skip
_PAGE_WIDTH, _PAGE_HEIGHT = 760.0, 520.0
_LARGE = 1.5  # Tabloid or A3 against Letter or A4, about, in each direction
_BOX_EM, _GAP_EM, _LINE = 15.0, 0.6, 1.15
_NAME_CHARS = 16  # characters of a name on one line of a box, about (beside a 3-digit total)
_ENTRY_EM = 16.0  # one advancer of a big first stage, in its list
# Up to this many players the whole bracket is on one page, readable on a wall (9 pt or more);
# above it the first stage shows only its advancers, its full tables in an appendix.
WALL_PLAYERS = 100


def _table_lines(rows) -> float:
    """A table's box in lines: each player (a long name wraps), the padding; its number is
    beside the names."""
    return 0.4 + sum(
        math.ceil(
            (len(r["player"].name) + (1 if r["advanced"] else 0) + (10 if _marked(r) else 0))
            / _NAME_CHARS
        )
        * 0.96
        for r in rows
    )


def _marked(row) -> bool:
    return bool(row["medal"] or row["pending"] or row.get("wildcard"))


def _stage_lines(b, width_em: float) -> float:
    lines = 1.6  # the stage's heading
    if b.get("advancers_only"):
        per_row = max(1, math.floor(width_em / _ENTRY_EM))
        return lines + math.ceil(len(b["entries"]) / per_row) * 1.05
    per_row = max(1, math.floor((width_em + _GAP_EM) / (_BOX_EM + _GAP_EM)))
    boxes = [_table_lines(t["rows"]) for t in b["tables"]] or [1.0]
    for start in range(0, len(boxes), per_row):
        lines += max(boxes[start : start + per_row]) + 0.4
    return lines


def _split(width_em: float, first, later) -> tuple[float, float]:
    """The widths (em) of the first stage and of the later stages' column (print.css)."""
    if not later:
        return width_em, 0.0
    right = 31.8  # .bracket-later: two boxes and the rule
    return max(width_em - right, _BOX_EM), right - 1.0


def bracket_lines(first, later, size: float, large: bool = False) -> float:
    """Estimated height of the bracket at ``size`` pt, in lines, as print.css lays it out."""
    width_em = _PAGE_WIDTH * (_LARGE if large else 1) / size
    left, right = _split(width_em, first, later)
    lines = 5.0  # event, title, medals, legend
    return lines + max(
        sum(_stage_lines(b, left) for b in first),
        sum(_stage_lines(b, right) for b in later) if later else 0.0,
    )


def bracket_size(first, later, pages: int = 1, large: bool = False) -> float:
    """The largest type size the estimate says fits the page, or ``pages`` times less room
    (after a render at the estimate's size took that many pages); the smallest else."""
    height = _PAGE_HEIGHT * (_LARGE if large else 1)
    for size in BRACKET_SIZES:
        if bracket_lines(first, later, size, large) * _LINE * size * pages <= height:
            return size
    return BRACKET_SIZES[-1]


def advancers_only(b) -> dict:
    """A big first stage on the bracket's page: who goes on (and who waits on a playoff),
    table by table; its full tables go to the appendix."""
    entries = [
        {"table": t["sheet"].table.number, **r}
        for t in b["tables"]
        for r in t["rows"]
        if r["advanced"] or r.get("wildcard") or r["pending"] or r["medal"]
    ]
    return {**b, "advancers_only": True, "entries": entries}


class BracketPdfView(PdfMixin, BracketView):
    """The bracket of the whole event on one landscape page, readable on a wall: up to
    100 players everything at 9 pt or more; above, the first stage's advancers and the road to
    the medals, with the first stage's full tables in an appendix. ``?paper=large``: Tabloid
    or A3. Rendered once at the size the estimate picks, and once more, smaller, only if the
    bracket's page took more than one."""

    template_name = "print/bracket.html"
    hides = ("results",)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        self.board = ctx["board"] or None
        if self.board is not None:
            return self.board_context(ctx)
        bracket = ctx["bracket"]
        first, later = bracket[:1], bracket[1:]
        players = sum(len(t["rows"]) for b in first for t in b["tables"])
        ctx["large_paper"] = self.request.GET.get("paper") == "large"
        ctx["appendix"] = first if players > WALL_PLAYERS else []
        ctx["first"] = [advancers_only(b) for b in first] if ctx["appendix"] else first
        ctx["later"] = later
        return ctx

    def board_context(self, ctx):
        """A cumulative event: its table of players × games, in as many columns side by side
        as give the largest type, the Final (and playoffs) beside it or above it."""
        games = self.board.game_numbers
        ctx["large_paper"] = self.request.GET.get("paper") == "large"
        ctx["later"] = [b for b in ctx["bracket"] if b["stage"].number not in games]
        layout = board_layout(self.board, ctx["later"], page_size(self.event, ctx["large_paper"]))
        ctx["layout"] = layout
        ctx["chunks"] = board_chunks(self.board, layout.columns, layout.name_em)
        return ctx

    def render_board(self, context) -> bytes:
        layout, later = context["layout"], context["later"]
        paper = page_size(self.event, context["large_paper"])

        def refit(pages: int) -> float | None:
            if layout.run_on or pages == 1:
                return None
            smaller = board_layout(self.board, later, paper, pages, layout.columns)
            return smaller.size if smaller.size < layout.size and not smaller.run_on else None

        template = "print/bracket_board.html"
        return render_pdf(template, context, self.request, scale=layout.size, refit=refit)

    def render_pdf(self, context) -> bytes:
        if self.board is not None:
            return self.render_board(context)
        first, later, large = context["first"], context["later"], context["large_paper"]
        size = bracket_size(first, later, large=large)
        appendix = bool(context["appendix"])

        def refit(pages: int) -> float | None:
            if appendix:
                return None  # the appendix has its own pages
            smaller = bracket_size(first, later, pages, large=large)
            return smaller if pages > 1 and smaller < size else None

        return render_pdf(self.template_name, context, self.request, scale=size, refit=refit)

    def get_filename(self) -> str:
        return f"{self.event.slug}-bracket.pdf"


# -- a cumulative event's bracket: a table of players × games --------------------------------------

_DIGIT_EM = 0.7  # a bold digit of DejaVu Sans, about
_MARK_EM = 0.8 * 0.78  # a character of a mark (0.8 em, bold capitals), about
_PLACE_CHAR_EM = 0.64  # a character of a place ("12 ex."), a bold digit's width at most
_BOARD_GAP_EM = 0.8  # after each column of the table (print/_board_style.html)
_BOARD_HEAD_LINES = 6.5  # event, title, medal line, legend
# A landscape page less print.css's margins (pt), by its CSS size (scoring.printing.page_size).
_BOARD_PAGE = {
    "letter": (727.0, 540.0),
    "A4": (777.0, 523.0),
    "ledger": (1159.0, 720.0),
    "A3": (1126.0, 770.0),
}
_BOARD_SMALLEST = 6.0  # a table that fits one page only below this runs on over pages instead
_BOARD_RUN_ON = 9.0
_PORTRAIT_WIDTH = {"letter": 547.0, "A4": 530.0}  # the results' page, less the margins (pt)


@dataclass(frozen=True)
class BoardLayout:
    """A cumulative event's table on paper: its type size (pt), how many columns of rows stand
    side by side, each column's widths (em), and whether it runs on over pages (too many
    players for one page)."""

    size: float
    columns: int
    name_em: float
    number_em: float
    marks_em: float
    numbers: int  # columns of numbers (CumulativeBoard.numbers)
    run_on: bool = False
    later_top: bool = False  # the Final's boxes above the table, not in a column beside it
    place_em: float = 2.8

    @property
    def later_marks_em(self) -> float:
        return max(self.marks_em, 3.5)  # a medal word at least, in a Final's box

    @property
    def later_em(self) -> float:
        """The Final's column on the right: a box of names with their marks and totals (its
        table number beside them, print.css .bracket-table)."""
        return 1.9 + self.name_em + self.later_marks_em + 2.7 + 0.6

    @property
    def later_width(self) -> float:
        return self.later_em + 1.0  # and its padding and rule

    @property
    def table_em(self) -> float:
        numbers = self.number_em * self.numbers
        return self.place_em + self.name_em + self.marks_em + numbers

    @property
    def span(self) -> int:
        """The table's columns: place, player, the marks (when any) and the numbers."""
        return 2 + (1 if self.marks_em else 0) + self.numbers


def _place_em(board) -> float:
    """The place's column: its heading, or the widest place ("12 ex.", "T12") on one line
    beside the name, never over it."""
    widest = max((len(str(r.place)) for r in board.rows), default=0)
    return max(2.8, widest * _PLACE_CHAR_EM + 0.5)


def _board_widths(board) -> tuple[float, float, float]:
    """The name's, a number's and the marks' columns (em), from what the table shows."""
    longest = max((len(r.player.name) for r in board.rows), default=8)
    name_em = min(max(longest * _CHAR_EM * 1.1 + 1.2, 7.0), 13.0)
    # A number's column holds the widest number, and the widest word of a game's name above
    # it ("Partie", 0.8 em bold) or of the "game" under it: a heading wraps between its words.
    words = [w for g in board.games for w in g.title.split()] + [_("game")]
    number_em = max(board.widest_total * _DIGIT_EM, max(map(len, words)) * 0.78 * 0.8) + 0.45
    marks = [
        len(text)
        for r in board.rows
        for text in (
            _medal_word(r.medal) if r.medal else "",
            _("playoff pending") if r.pending else "",
            r.note,
        )
        if text
    ]
    marks_em = max(marks) * _MARK_EM + 0.6 if marks else 0.0
    return name_em, number_em, marks_em


def _row_lines(row, name_em: float) -> float:
    """A row's height in lines: its name wrapped between its words (a word wider than the
    column breaks), and the cut's line above it."""
    width = name_em - 1.2
    lines = _name_lines(row.player.name, width)
    if lines == math.inf:
        lines = math.ceil(len(row.player.name) * _CHAR_EM * 1.1 / width) + 1
    return lines * 1.02 + (1.1 if row.cut_above else 0.0)


def board_chunks(board, columns: int, name_em: float) -> list[list[tuple[str, list]]]:
    """The table's rows in ``columns`` side by side, of about the same height, each a list of
    (division, rows) in order: a division may run on into the next column."""
    rows = [(d.division, r) for d in board.divisions for r in d.rows]
    heights = [_row_lines(r, name_em) for _division, r in rows]
    share = (sum(heights) or 1.0) / columns
    chunks: list[list[tuple[str, list]]] = [[] for _ in range(columns)]
    done = 0.0
    for (division, row), height in zip(rows, heights, strict=True):
        chunk = chunks[min(columns - 1, int((done + height / 2) // share))]
        if not chunk or chunk[-1][0] != division:
            chunk.append((division, []))
        chunk[-1][1].append(row)
        done += height
    return [chunk for chunk in chunks if chunk]


def _chunk_lines(chunk, board, name_em: float) -> float:
    head = 4.0  # a game's name and "so far" may take two lines each
    divisions = 1.2 * len(chunk) if board.named else 0.0
    return head + divisions + sum(_row_lines(r, name_em) for _d, rows in chunk for r in rows)


def board_layout(board, later, paper: str, pages: int = 1, columns=None) -> BoardLayout:
    """The largest type (and fewest columns side by side) that puts a cumulative event's table,
    with its Final's boxes on the right, on one landscape page; ``pages``: a render at the
    estimate took that many, so fit ``pages`` times the lines. Below 6 pt the table runs on
    over pages at 9 pt instead, the Final above it."""
    name_em, number_em, marks_em = _board_widths(board)
    numbers = board.numbers
    width, height = _BOARD_PAGE.get(paper, _BOARD_PAGE["letter"])
    for size in BRACKET_SIZES:
        if size < _BOARD_SMALLEST:
            break
        lines = height / (size * _LINE * pages) - _BOARD_HEAD_LINES
        for count in (columns,) if columns else range(1, 7):
            for top in (False, True) if later else (False,):
                layout = BoardLayout(size, count, name_em, number_em, marks_em, numbers)
                layout = replace(layout, later_top=top, place_em=_place_em(board))
                if _board_fits(board, later, layout, width / size, lines):
                    return layout
    return BoardLayout(
        *(_BOARD_RUN_ON, 1, name_em, number_em, marks_em, numbers),
        run_on=True,
        later_top=True,
        place_em=_place_em(board),
    )


def _board_fits(board, later, layout: BoardLayout, width_em: float, lines: float) -> bool:
    """Whether the table in ``layout``'s columns, and the Final's boxes beside it or above it,
    fit ``width_em`` and ``lines``."""
    beside = 0.0 if layout.later_top or not later else layout.later_width
    if layout.columns * (layout.table_em + _BOARD_GAP_EM) > width_em - beside:
        return False
    boxes = [_stage_lines(b, layout.later_em) for b in later]
    if layout.later_top:
        per_row = max(1, math.floor(width_em / (layout.later_em + _BOARD_GAP_EM)))
        above = sum(max(boxes[i : i + per_row]) for i in range(0, len(boxes), per_row))
        lines -= above
    elif sum(boxes) > lines:
        return False
    chunks = board_chunks(board, layout.columns, layout.name_em)
    return max((_chunk_lines(c, board, layout.name_em) for c in chunks), default=0.0) <= lines


def results_board_layout(board, paper: str) -> BoardLayout:
    """The table on the results' portrait pages: 10 pt, smaller when many games make it wider
    than the page (never below 5 pt), running on over pages."""
    name_em, number_em, marks_em = _board_widths(board)
    layout = BoardLayout(
        10.0, 1, name_em, number_em, marks_em, board.numbers, run_on=True, place_em=_place_em(board)
    )
    width = _PORTRAIT_WIDTH.get(paper, _PORTRAIT_WIDTH["letter"])
    size = max(min(10.0, math.floor(width / layout.table_em * 10) / 10), 5.0)
    return replace(layout, size=size)


def _medal_word(medal: str) -> str:
    return str(Medal(medal).label) if medal in Medal.values else medal


# -- exports ----------------------------------------------------------------------------------


class StandingsExportView(StageMixin, View):
    """A stage's standings as CSV or Excel: ``?_export=csv`` or ``?_export=xlsx``."""

    hides = ("seating", "results")

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        # The registration ids are the directors' (PRODUCT.md §10: the public sees names,
        # clubs, tables and scores).
        cumulative = cumulative_export(export_format, self.stage, with_ids=self.is_director)
        if cumulative is not None:  # a cumulative event's game: a column per game, the total
            return export_response(cumulative, f"{self.event.slug}-{self.stage.number}-standings")
        private = () if self.is_director else ("player_id",)
        table = StandingsTable(shown_standings(self.stage), order_by="place", exclude=private)
        RequestConfig(request, paginate=False).configure(table)
        exporter = table_export(export_format, table, self.stage.name)
        return export_response(exporter, f"{self.event.slug}-{self.stage.number}-standings")


class RoundScoresExportView(EventMixin, View):
    """Every round score of the event, one row per player per round, as CSV or Excel."""

    hides = ("results",)

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        rows = round_score_rows(self.event, with_ids=self.is_director)
        headers = round_score_headers(with_ids=self.is_director)
        exporter = RowsExport(export_format, headers, rows, _("Round scores"))
        return export_response(exporter, f"{self.event.slug}-round-scores")


class SignInSheetPdfView(DirectorRequiredMixin, PdfMixin, EventMixin, TemplateView):
    """The desk's printed sign-in sheet: every registered player A to Z, a box to tick and a
    line to sign (the registration id is the director's, so the sheet is too)."""

    template_name = "print/sign_in.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["players"] = self.event.players.registered().alphabetical()
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-sign-in.pdf"
