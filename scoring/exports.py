"""The one exporter of lists (PRODUCT.md §9): rows → CSV or Excel, through django-tables2.

``?_export=csv`` or ``?_export=xlsx`` (django-tables2's trigger) picks the format; anything else
is a 404. A stage's standings are exported from ``scoring.tables.StandingsTable`` by
django-tables2's own ``TableExport``, as the page shows them. Every round score of an event is
a long list (13 rows per player per game): ``RowsExport`` is the same exporter fed plain rows,
without a Table's per-cell rendering (about 0.1 ms a cell, seconds for a big event).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_tables2 import Table
from django_tables2.export import TableExport
from tablib import Dataset

from scoring.sheets import event_sheets
from tournament.models import Event, Player

EXPORT_FORMATS = (TableExport.CSV, TableExport.XLSX)
EXPORT_PARAM = "_export"  # django-tables2's own trigger: ?_export=csv


def requested_format(request: HttpRequest) -> str:
    """The format asked for with ``?_export=``: csv or xlsx, else a 404."""
    export_format = request.GET.get(EXPORT_PARAM)
    if export_format not in EXPORT_FORMATS:
        raise Http404(_("Exports are CSV or Excel (xlsx)."))
    return export_format


def _title(title: str) -> str:
    return str(title)[:31]  # the longest name an Excel sheet may have


class RowsExport(TableExport):
    """django-tables2's ``TableExport`` for plain rows: headers and one tuple per row."""

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
    return TableExport(export_format, table, dataset_kwargs={"title": _title(title)})


# -- every round score ---------------------------------------------------------------------------


def export_player_id(player: Player) -> str:
    """A player's id in exports: the registration id if the event has one, else the site's."""
    return player.ref or str(player.pk)


ROUND_SCORE_HEADERS = (
    gettext_lazy("Stage"),
    gettext_lazy("Table"),
    gettext_lazy("Round"),
    gettext_lazy("Engine"),
    gettext_lazy("Player id"),
    gettext_lazy("Player"),
    gettext_lazy("Pips"),
)


def round_score_rows(event: Event) -> list[tuple]:
    """Every round score of the event, one row per player per round (ROUND_SCORE_HEADERS).

    Stages by number, tables by number, rounds in play order, players in seat order.
    """
    rows = []
    for stage, sheets in sorted(event_sheets(event).items(), key=lambda kv: kv[0].number):
        for sheet in sheets:
            for played in sheet.rounds:
                for player in sheet.players:
                    if player.pk in played.pips:
                        rows.append(
                            (
                                stage.name,
                                sheet.table.number,
                                played.number,
                                played.engine,
                                export_player_id(player),
                                player.name,
                                played.pips[player.pk],
                            )
                        )
    return rows
