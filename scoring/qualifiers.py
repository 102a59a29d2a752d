"""The qualifier and medal report for the games office (issue 50 item 4, PRODUCT.md §15): each
division's players by place, with their birth date, medal and whether they qualify for the next
level; out-of-district players with the medal and place of their place among everybody. Reads
only; the rule is tournament/game/qualifiers.py's, the places those of a place at an event
(scoring/series.py ``event_order``), the medals the results' (scoring/results.py)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring.results import EventResults, divisions_played, load_results
from scoring.series import event_order
from tournament.game import qualifiers as rule
from tournament.models import Event, Medal, Player
from tournament.text import name_sort_key

# The report's columns, in order: (key, header). The CSV and the PDF share them.
COLUMNS = (
    ("name", gettext_lazy("Name")),
    ("birth_date", gettext_lazy("Birth date")),
    ("division", gettext_lazy("Division")),
    ("place", gettext_lazy("Place")),
    ("medal", gettext_lazy("Medal")),
    ("qualified", gettext_lazy("Qualified")),
    ("out_of_district", gettext_lazy("Out of district")),
)


@dataclass(frozen=True)
class ReportRow:
    player: Player
    division: str
    standing: rule.Standing

    @property
    def birth_date(self) -> datetime.date | None:
        return self.player.birth_date

    @property
    def medal_label(self) -> str:
        return str(Medal(self.standing.medal).label) if self.standing.medal else ""

    @property
    def qualified_label(self) -> str:
        return {
            rule.QUALIFIED: _("yes"),
            rule.ALTERNATE: _("alternate"),
        }.get(self.standing.qualified, "")

    def cells(self) -> list[str]:
        """The row as the CSV writes it, in ``COLUMNS``' order."""
        return [
            self.player.name,
            self.birth_date.isoformat() if self.birth_date else "",
            self.division,
            str(self.standing.place),
            self.medal_label,
            self.qualified_label,
            _("yes") if self.standing.out_of_district else "",
        ]


@dataclass(frozen=True)
class DivisionReport:
    """One division: its rows by place (``decided``: its medals are decided, the Final closed
    and no medal playoff owed; until then it has no rows)."""

    division: str
    decided: bool
    rows: list[ReportRow]

    @property
    def qualifiers(self) -> int:
        return sum(r.standing.qualified == rule.QUALIFIED for r in self.rows)


def decided_divisions(results: EventResults) -> set[str]:
    """The divisions whose medals are decided: Final closed, no medal playoff owed."""
    return {
        d.division for d in results.medals if not any(award.pending for award in d.result.medals)
    }


def division_reports(results: EventResults, players: dict[int, Player]) -> list[DivisionReport]:
    """Every division played, by name, each with its rows by place once decided. ``players``:
    the event's players by id (their birth dates)."""
    event = results.event
    order = event_order(results)
    medals = results.medal_of()
    away = {pk for pk, p in players.items() if p.out_of_district}
    decided = decided_divisions(results)
    reports = []
    for division in sorted(divisions_played(results), key=name_sort_key):
        if division not in decided:
            reports.append(DivisionReport(division, False, []))
            continue
        field = {pk: key for pk, key in order.reached.items() if players[pk].division == division}
        standings = rule.standings(
            field,
            away & set(field),
            {pk: m for pk, m in medals.items() if pk in field},
            event.qualifying_places,
            event.qualifier_tie,
            order.playoffs,
        )
        rows = [ReportRow(players[pk], division, s) for pk, s in standings.items()]
        rows.sort(
            key=lambda r: (
                r.standing.place,
                r.standing.out_of_district,
                name_sort_key(r.player.name),
            )
        )
        reports.append(DivisionReport(division, True, rows))
    return reports


def qualifier_report(event: Event) -> list[DivisionReport]:
    """The event's report as it stands."""
    results = load_results(event)  # whole sheets: the rounds of a place at an event
    return division_reports(results, event.players.in_bulk())


def csv_rows(reports: list[DivisionReport]) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the CSV: every decided division's rows, division by division."""
    return [str(h) for _k, h in COLUMNS], [r.cells() for d in reports for r in d.rows]
