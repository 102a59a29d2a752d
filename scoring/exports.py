"""The one exporter of lists (PRODUCT.md §9): rows → CSV or Excel, through django-tables2.

``?_export=csv`` or ``?_export=xlsx`` (django-tables2's trigger) picks the format; anything else
is a 404. A stage's standings are exported from ``scoring.lists.StandingsTable`` by
django-tables2's own ``TableExport``, as the page shows them. Every round score of an event is
a long list (13 rows per player per game): ``RowsExport`` is the same exporter fed plain rows,
without a Table's per-cell rendering (about 0.1 ms a cell, seconds for a big event).

Both are written here, safe to open in a spreadsheet (OWASP's CSV injection advice): in CSV a
text cell that starts like a formula (= + - @, tab, carriage return) gets a leading single
quote, and the file starts with a byte order mark so that Excel on Windows reads it as UTF-8;
in XLSX every text cell is stored as text, never as a formula. Numbers stay numbers (pips,
totals and places are never negative, so no number is touched).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from decimal import Decimal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_tables2 import Table
from django_tables2.export import TableExport
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from tablib import Dataset

from scoring.cumulative import cumulative_standings, out_note
from scoring.results import compute_results
from scoring.sheets import event_sheets, event_summaries
from tournament.models import Event, Medal, Player
from tournament.refusals import NotFound

EXPORT_FORMATS = (TableExport.CSV, TableExport.XLSX)
EXPORT_PARAM = "_export"  # django-tables2's own trigger: ?_export=csv


def requested_format(request: HttpRequest) -> str:
    """The format asked for with ``?_export=``: csv or xlsx, else a 404."""
    export_format = request.GET.get(EXPORT_PARAM)
    if export_format not in EXPORT_FORMATS:
        raise NotFound(_("Exports are CSV or Excel (xlsx)."))
    return export_format


def _title(title: str) -> str:
    # An Excel sheet's name: 31 characters at most, none of []:*?/\
    return re.sub(r"[\[\]:*?/\\]", "-", str(title))[:31] or "Export"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER_TYPES = (int, float, Decimal)


def cell_value(value):
    """A number as it is, nothing as empty, anything else as its text."""
    if value is None:
        return ""
    if isinstance(value, NUMBER_TYPES) and not isinstance(value, bool):
        return value
    return str(value)


def csv_cell(value):
    """A CSV cell a spreadsheet shows as written: formula-like text gets a leading quote."""
    value = cell_value(value)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(rows: Iterable[Sequence]) -> str:
    """CSV text, starting with a byte order mark (Excel reads UTF-8 only with one)."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue()


def write_xlsx(rows: Iterable[Sequence], title: str) -> bytes:
    """An Excel workbook of one sheet, the first row bold and frozen, text stored as text."""
    book = Workbook()
    sheet = book.active
    sheet.title = _title(title)
    for row in rows:
        sheet.append([_xlsx_value(v) for v in row])
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str):
                cell.data_type = "s"  # openpyxl would make "=..." a formula, "#N/A" an error
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _xlsx_value(value):
    value = cell_value(value)
    if isinstance(value, str):
        return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)  # control characters XLSX refuses
    return value


class SafeExport(TableExport):
    """django-tables2's ``TableExport``, its file written by ``write_csv`` or ``write_xlsx``."""

    def export(self) -> str | bytes:
        rows = [self.dataset.headers, *self.dataset]
        if self.format == TableExport.CSV:
            return write_csv(rows)
        return write_xlsx(rows, self.dataset.title)


class RowsExport(SafeExport):
    """The exporter for plain rows: headers and one tuple per row."""

    def __init__(self, export_format: str, headers: Sequence, rows: Iterable, title: str):
        if not self.is_valid_format(export_format):
            raise TypeError(f'Export format "{export_format}" is not supported.')
        self.format = export_format
        self.dataset = Dataset(*rows, headers=[str(h) for h in headers], title=_title(title))


def export_response(exporter: TableExport, name: str) -> HttpResponse:
    """The export as a download named ``name.csv`` or ``name.xlsx``."""
    return exporter.response(filename=f"{name}.{exporter.format}")


def table_export(export_format: str, table: Table, title: str) -> TableExport:
    """A django-tables2 table exported as its page shows it (export values, hidden columns in)."""
    return SafeExport(export_format, table, dataset_kwargs={"title": _title(title)})


# -- every round score ---------------------------------------------------------------------------


def export_player_id(player: Player) -> str:
    """A player's id in exports: their registration id; empty for a player who has none (the
    site's own row numbers mean nothing to anyone)."""
    return player.ref or ""


PLAYER_ID_HEADER = gettext_lazy("Player id")
ROUND_SCORE_HEADERS = (
    gettext_lazy("Stage"),
    gettext_lazy("Table"),
    gettext_lazy("Round"),
    gettext_lazy("Engine"),
    PLAYER_ID_HEADER,
    gettext_lazy("Player"),
    gettext_lazy("Pips"),
)


def round_score_headers(with_ids: bool = True) -> list:
    """The round scores' headers; the public's export has no registration ids."""
    return [h for h in ROUND_SCORE_HEADERS if with_ids or h is not PLAYER_ID_HEADER]


def round_score_rows(event: Event, with_ids: bool = True) -> list[tuple]:
    """Every round score of the event, one row per player per round (``round_score_headers``).

    Stages by number, tables by number, rounds in play order, players in seat order. A late
    arrival's missed rounds carry the table's highest score of the round, as the sheet does.
    """
    rows = []
    for stage, sheets in sorted(event_sheets(event).items(), key=lambda kv: kv[0].number):
        for sheet in sheets:
            for played in sheet.rounds:
                for player in sheet.players:
                    if player.pk in played.pips:
                        ids = (export_player_id(player),) if with_ids else ()
                        rows.append(
                            (
                                stage.name,
                                sheet.table.number,
                                played.number,
                                played.engine,
                                *ids,
                                player.name,
                                played.pips[player.pk],
                            )
                        )
    return rows


# -- a cumulative event's standings ---------------------------------------------------------------


def cumulative_export(export_format: str, stage, with_ids: bool = True) -> RowsExport | None:
    """A cumulative event's standings after ``stage``, one of its games (PRODUCT.md §12): a
    column per game played so far (a game under way as it stands) and the cumulative total,
    places by it within each division, a withdrawal or a missed game said in the last column
    (with the medal or the Final after the last game). None for any other stage."""
    event = stage.event
    if not event.format.is_cumulative:
        return None
    results = compute_results(event, event_summaries(event))
    if stage.pk not in {g.pk for g in results.games}:
        return None
    standings = cumulative_standings(results, through=stage)
    last = stage.pk == results.games[-1].pk
    refs = dict(event.players.values_list("pk", "ref")) if with_ids else {}
    headers = [
        gettext_lazy("Place"),
        *([PLAYER_ID_HEADER] if with_ids else []),
        gettext_lazy("Player"),
        gettext_lazy("Division"),
        *(game.title for game in standings.games),
        gettext_lazy("Total"),
        gettext_lazy("Note"),
    ]
    rows = [
        (
            row.place,
            *((refs.get(row.player.pk) or "",) if with_ids else ()),
            row.player.name,
            row.player.division,
            *row.games,
            row.total,
            _cumulative_note(row, last),
        )
        for row in standings.rows
    ]
    return RowsExport(export_format, headers, rows, stage.name)


def _cumulative_note(row, last: bool) -> str:
    if row.out:
        return out_note(row)
    if last and row.medal:
        return str(Medal(row.medal).label)
    if last and row.finalist:
        return _("finalist")
    return ""
