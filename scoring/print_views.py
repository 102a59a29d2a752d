"""PDFs and exports (PRODUCT.md §9), all public like the pages they belong to.

Each PDF view is the page's own view (or its context) rendered through a template under
``templates/print/`` by the one renderer, ``scoring.printing.render_pdf``; each export goes
through the one exporter, ``scoring.exports`` (django-tables2's ``TableExport``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.http import Http404, HttpResponseBadRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView
from django_tables2 import RequestConfig

from scoring.exports import (
    ROUND_SCORE_HEADERS,
    RowsExport,
    export_response,
    requested_format,
    round_score_rows,
    table_export,
)
from scoring.printing import SHEETS_PER_PDF, pdf_response, qr_data_uri, render_pdf, table_blocks
from scoring.result_views import BracketView, ResultsView
from scoring.sheets import TableSheet, stage_sheets, stage_standings, table_sheet
from scoring.tables import StandingsTable
from scoring.views import StandingsView
from tournament.clocks import read_clock
from tournament.mixins import EventMixin, StageMixin, TableMixin
from tournament.views import SeatingView


class PdfMixin:
    """Render the view's context through ``template_name`` (a print template) as a PDF."""

    def get_filename(self) -> str:
        raise NotImplementedError

    def render_pdf(self, context) -> bytes:
        return render_pdf(self.template_name, context, self.request)

    def render_to_response(self, context, **response_kwargs):
        return pdf_response(self.render_pdf(context), self.get_filename())


# -- score sheets -----------------------------------------------------------------------------


@dataclass
class SheetPage:
    """One printed sheet: the table's sheet, its live page's address and that as a QR code."""

    sheet: TableSheet
    live_url: str
    qr: str

    @property
    def tally(self):
        return self.sheet.tally()

    @property
    def compact(self) -> bool:
        """Many players or engines: smaller type, so the sheet still fits its one page."""
        return len(self.sheet.players) > 5 or len(self.sheet.engines) > 13


class SheetsPdfMixin(PdfMixin, StageMixin):
    """Score sheets, one table a page: filled (the rounds entered) or blank (names only)."""

    template_name = "print/sheets.html"
    blank = False

    def get_sheets(self) -> list[TableSheet]:
        raise NotImplementedError

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        event, stage = self.event, self.stage
        sheets = self.get_sheets()
        pages = []
        for sheet in sheets:
            path = reverse("table", args=[event.slug, stage.number, sheet.table.number])
            url = self.request.build_absolute_uri(path)
            pages.append(SheetPage(sheet, url, qr_data_uri(url)))
        clock = read_clock(stage)
        ctx.update(
            pages=pages,
            blank=self.blank,
            clock_started=clock.clock.started_at,
            time_called=clock.called_at,
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


class TooManySheets(Exception):
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
            raise Http404("Give the tables as a range of numbers, e.g. ?tables=1-50.")
        first, last = int(match[1]), int(match[2])
        if last - first + 1 > SHEETS_PER_PDF:
            raise TooManySheets(
                f"Ask for at most {SHEETS_PER_PDF} tables at a time, "
                f"e.g. ?tables={first}-{first + SHEETS_PER_PDF - 1}."
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
            raise Http404(f"This stage has no table numbered {first} to {last}.")
        return chosen

    def blocks_text(self, count: int) -> str:
        """The refusal of a whole large stage: the blocks of tables to ask for, one a line."""
        blocks = "\n".join(
            f"{self.request.path}?tables={first}-{last}" for first, last in table_blocks(count)
        )
        return (
            f"This stage has {count} tables: ask for them {SHEETS_PER_PDF} at a time:\n{blocks}\n"
        )

    def sheet_name(self) -> str:
        wanted = self.wanted()
        return "all" if wanted is None else f"tables-{wanted[0]}-{wanted[1]}"


# -- lists ------------------------------------------------------------------------------------


class SeatingPdfView(PdfMixin, SeatingView):
    """The seating list: A to Z with table numbers, then table by table."""

    template_name = "print/seating.html"

    def get_filename(self) -> str:
        return f"{self.event.slug}-{self.stage.number}-seating.pdf"


class StandingsPdfView(PdfMixin, StandingsView):
    """A stage's standings, as its page lists them."""

    template_name = "print/standings.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["table"].orderable = False  # no sorting links on paper
        return ctx

    def get_filename(self) -> str:
        return f"{self.event.slug}-{self.stage.number}-standings.pdf"


class ResultsPdfView(PdfMixin, ResultsView):
    """The results: medals, then every stage's standings, the final first."""

    template_name = "print/results.html"

    def get_filename(self) -> str:
        return f"{self.event.slug}-results.pdf"


# -- the bracket on one page ------------------------------------------------------------------

# Type sizes (pt) the bracket is tried at, largest first, and the space one landscape page
# gives it on either paper (pt, less the margins): a big event gets small type.
BRACKET_SIZES = (11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.5, 4.0, 3.5, 3.0, 2.6, 2.2, 1.8, 1.5)
_PAGE_WIDTH, _PAGE_HEIGHT = 760.0, 520.0
_BOX_EM, _GAP_EM, _LINE = 12.6, 0.6, 1.2
_NAME_CHARS = 15  # characters of a name on one line of a box, about


def _table_lines(rows) -> float:
    """A table's box in lines: its number, each player (a long name wraps), the padding."""
    return 1.8 + sum(math.ceil(max(1, len(r["player"].name)) / _NAME_CHARS) for r in rows)


def bracket_lines(bracket, size: float) -> float:
    """Estimated height of the bracket at ``size`` pt, in lines, as print.css lays it out."""
    per_row = max(1, math.floor((_PAGE_WIDTH / size + _GAP_EM) / (_BOX_EM + _GAP_EM)))
    lines = 5.0  # event, title, medals, legend
    for b in bracket:
        lines += 2.0
        boxes = [_table_lines(t["rows"]) for t in b["tables"]]
        for start in range(0, len(boxes), per_row):
            lines += max(boxes[start : start + per_row])
    return lines


def bracket_size(bracket, pages: int = 1) -> float:
    """The largest type size the estimate says fits the page, or ``pages`` times less room
    (after a render at the estimate's size took that many pages); the smallest else."""
    for size in BRACKET_SIZES:
        if bracket_lines(bracket, size) * _LINE * size * pages <= _PAGE_HEIGHT:
            return size
    return BRACKET_SIZES[-1]


class BracketPdfView(PdfMixin, BracketView):
    """The bracket of the whole event on one landscape page: rendered once at the size the
    estimate picks, and once more, smaller, only if that took more than one page."""

    template_name = "print/bracket.html"

    def render_pdf(self, context) -> bytes:
        bracket = context["bracket"]
        size = bracket_size(bracket)

        def refit(pages: int) -> float | None:
            smaller = bracket_size(bracket, pages)
            return smaller if pages > 1 and smaller < size else None

        return render_pdf(self.template_name, context, self.request, scale=size, refit=refit)

    def get_filename(self) -> str:
        return f"{self.event.slug}-bracket.pdf"


# -- exports ----------------------------------------------------------------------------------


class StandingsExportView(StageMixin, View):
    """A stage's standings as CSV or Excel: ``?_export=csv`` or ``?_export=xlsx``."""

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        table = StandingsTable(stage_standings(self.stage), order_by="place")
        RequestConfig(request, paginate=False).configure(table)
        exporter = table_export(export_format, table, self.stage.name)
        return export_response(exporter, f"{self.event.slug}-{self.stage.number}-standings")


class RoundScoresExportView(EventMixin, View):
    """Every round score of the event, one row per player per round, as CSV or Excel."""

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        rows = round_score_rows(self.event)
        exporter = RowsExport(export_format, ROUND_SCORE_HEADERS, rows, _("Round scores"))
        return export_response(exporter, f"{self.event.slug}-round-scores")
