"""PDFs and exports (PRODUCT.md §9), all public like the pages they belong to.

Each PDF view is the page's own view (or its context) rendered through a template under
``templates/print/`` by the one renderer, ``scoring.printing.render_pdf``; each export goes
through the one exporter, ``scoring.exports`` (django-tables2's ``TableExport``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.http import HttpResponseBadRequest
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView
from django_tables2 import RequestConfig

from scoring.exports import (
    RowsExport,
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

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["table"] = StandingsTable(list(ctx["rows"]), order_by="place", orderable=False)
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-{self.stage.number}-standings.pdf"


class ResultsPdfView(PdfMixin, ResultsView):
    """The results: medals, then every stage's standings in play order."""

    template_name = "print/results.html"

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

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        bracket = ctx["bracket"]
        first, later = bracket[:1], bracket[1:]
        players = sum(len(t["rows"]) for b in first for t in b["tables"])
        ctx["large_paper"] = self.request.GET.get("paper") == "large"
        ctx["appendix"] = first if players > WALL_PLAYERS else []
        ctx["first"] = [advancers_only(b) for b in first] if ctx["appendix"] else first
        ctx["later"] = later
        return ctx

    def render_pdf(self, context) -> bytes:
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


# -- exports ----------------------------------------------------------------------------------


class StandingsExportView(StageMixin, View):
    """A stage's standings as CSV or Excel: ``?_export=csv`` or ``?_export=xlsx``."""

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        # The registration ids are the directors' (PRODUCT.md §10: the public sees names,
        # clubs, tables and scores).
        private = () if self.is_director else ("player_id",)
        table = StandingsTable(shown_standings(self.stage), order_by="place", exclude=private)
        RequestConfig(request, paginate=False).configure(table)
        exporter = table_export(export_format, table, self.stage.name)
        return export_response(exporter, f"{self.event.slug}-{self.stage.number}-standings")


class RoundScoresExportView(EventMixin, View):
    """Every round score of the event, one row per player per round, as CSV or Excel."""

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
        ctx["players"] = self.event.players.filter(withdrawn=False).alphabetical()
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-sign-in.pdf"
