"""A series' standings as its page, exports and PDF show them (issue 31 item 1, PRODUCT.md §13).
Reads only; the rule is tournament/game/series.py's, the writes scoring/services/series.py's.

- **A place at an event** (``event_showings``), per division, from the event's results
  (scoring/results.py, the cumulative standings of scoring/cumulative.py; no total is worked
  out here a second way): the medals first (gold, silver, bronze), then everyone by how far
  they went and their total where they stopped: a knockout's Final by its totals, then the
  players out in each earlier stage, latest stage first, by their total in it; a cumulative
  event by the cumulative total (the Final's players first, all ranked by the totals their
  medals come from: the Final's, or cumulative plus Final, so 4th follows the rule of 1st to
  3rd). A playoff orders the tied players it was played among (tournament/game/series.py
  ``event_places``); other ties share a place. A player who withdrew keeps no place (their
  rounds still count per round played), nor does a player of a cumulative event who missed a
  game. Per round played counts the rounds a player played: a late arrival's missed rounds,
  filled at the table's highest, are in neither sum.
- **Which events count**: the finished ones, where every division's medals are decided (its
  Final closed, no medal playoff owed), and their directors have released the results. An
  event still under way, or held back, is listed as "in progress, not counted yet".
- **A person** across the events is scoring/archive.py's ``people``; their name is their
  latest player's (the latest event of the series they played).

Kept in Django's cache under the series' settings and its events' versions: an event's
correction (any write to it moves its version) or a change of the series' rule gives a new key,
read once; a page view reads two queries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from django.core.cache import cache
from django.utils.translation import gettext_lazy

from scoring.archive import people, people_state, series_events
from scoring.cumulative import cumulative_standings
from scoring.models import Series
from scoring.results import EventResults, divisions_played, load_results
from tournament.game import formats
from tournament.game import series as rule
from tournament.game.awards import MEDALS
from tournament.models import Event, StageKind


def rule_of(series: Series) -> rule.Rule:
    """The series' settings as the plain rule."""
    return rule.Rule(
        scoring=series.scoring,
        points=tuple(series.points or ()),
        medal_bonus=tuple(series.medal_bonus or ()),
        best_of=series.best_of,
        tie_break=series.tie_break,
    )


# -- an event ------------------------------------------------------------------------------------


def finished(results: EventResults) -> bool:
    """Every division's medals are decided: its Final closed, no medal playoff owed."""
    decided = {
        d.division for d in results.medals if not any(award.pending for award in d.result.medals)
    }
    played = divisions_played(results)
    return bool(played) and played <= decided


@dataclass(frozen=True)
class EventOrder:
    """How far each player went at an event and their total there, the ground of a place at
    the event before medals (``event_showings``, the qualifier report): ``reached``, player id
    -> (-depth, total), lower is better, for every player who can be placed; ``playoffs``,
    each closed playoff's pips in play order; ``pips`` and ``rounds``, each seated player's
    pips and rounds played (per round played)."""

    reached: dict[int, tuple[int, int]]
    playoffs: list[dict[int, int]]
    pips: dict[int, int]
    rounds: dict[int, int]


def event_order(results: EventResults) -> EventOrder:
    """Every player's ``EventOrder`` at the event (see the module's doc)."""
    players = results.players
    pips: dict[int, int] = {}
    rounds: dict[int, int] = {}
    left: set[int] = set()
    # how far each player went, and their total there: (-depth, total), lower is better
    reached: dict[int, tuple[int, int]] = {}
    playoffs: list[dict[int, int]] = []  # each closed playoff's pips, in play order
    for stage, sheets in sorted(results.sheets.items(), key=lambda kv: kv[0].number):
        if stage.kind == StageKind.PLAYOFF:
            playoffs += [sheet.rounds[0].pips for sheet in sheets if stage.closed and sheet.rounds]
            continue
        for sheet in sheets:
            left |= set(sheet.left)
            for pk, total in sheet.totals.items():
                # per round played: a late arrival's missed rounds (filled at the table's
                # highest) count in the game total, not as rounds played (PRODUCT.md §13)
                played = [r.pips[pk] for r in sheet.rounds if pk in r.pips and pk not in r.filled]
                pips[pk] = pips.get(pk, 0) + sum(played)
                rounds[pk] = rounds.get(pk, 0) + len(played)
                if not results.format.is_cumulative:
                    reached[pk] = (-stage.number, total)
    if results.format.is_cumulative:
        standings = cumulative_standings(results, include_open=False)
        cumulative = {row.player.pk: row.total for row in standings.rows if row.place}
        reached = {pk: (0, total) for pk, total in cumulative.items()}
        final = results.final
        finalists = {
            pk: total
            for sheet in (results.sheets.get(final, []) if final is not None else [])
            for pk, total in sheet.totals.items()
        }
        # the Final's players first, all ranked by the totals their medals come from
        medal_totals = formats.medal_totals(results.format, cumulative, finalists)
        reached.update({pk: (-1, total) for pk, total in medal_totals.items()})
    placed = {
        pk: key
        for pk, key in reached.items()
        if pk in pips and pk not in left and not players[pk].withdrawn
    }
    return EventOrder(placed, playoffs, pips, rounds)


def event_showings(results: EventResults) -> dict[str, dict[int, rule.Showing]]:
    """Division -> player id -> their place, medal, pips and rounds played at the event."""
    players = results.players
    medals = results.medal_of()
    order = event_order(results)
    out: dict[str, dict[int, rule.Showing]] = {}
    keys: dict[str, dict[int, tuple[int, int, int]]] = {}
    for pk in order.pips:
        player = players[pk]
        division = out.setdefault(player.division, {})
        if pk in order.reached:
            medal_rank = MEDALS.index(medals[pk]) if pk in medals else len(MEDALS)
            keys.setdefault(player.division, {})[pk] = (medal_rank, *order.reached[pk])
        division[pk] = rule.Showing(None, medals.get(pk, ""), order.pips[pk], order.rounds[pk])
    for name, division in out.items():
        for pk, place in rule.event_places(keys.get(name, {}), order.playoffs).items():
            division[pk] = rule.Showing(place, *_rest(division[pk]))
    return out


def _rest(showing: rule.Showing) -> tuple[str, int, int]:
    return showing.medal, showing.pips, showing.rounds


# -- a series ------------------------------------------------------------------------------------


@dataclass
class Column:
    """An event of the series, in date order, and whether it counts yet."""

    event: Event
    counted: bool


@dataclass
class Cell:
    place: int | None
    medal: str
    points: int
    average: Decimal | None  # pips per round played there, as shown (rule.shown_average)
    counted: bool  # False: dropped (best N of M)


@dataclass
class Row:
    place: int
    shared: bool
    by_tie_break: bool
    name: str
    player_id: int  # the latest player (their page: /e/<slug>/player/<id>/)
    event_slug: str
    total: int | Decimal  # points, or pips per round played as shown (rule.shown_average)
    wins: int
    pips: int
    rounds: int
    cells: list[Cell | None]  # one per counted event; None: not played


@dataclass
class DivisionStandings:
    division: str
    rows: list[Row]


@dataclass
class SeriesStandings:
    scoring: str
    columns: list[Column]  # every event of the series, in date order
    divisions: list[DivisionStandings] = field(default_factory=list)
    note: rule.Note | None = None

    @property
    def counted(self) -> list[Event]:
        return [c.event for c in self.columns if c.counted]

    @property
    def in_progress(self) -> list[Event]:
        return [c.event for c in self.columns if not c.counted]


def _cache_key(series: Series, events: list[Event]) -> str:
    what = [
        people_state(),  # who is who: a link or a player of another event may join two rows
        series.scoring,
        series.points,
        series.medal_bonus,
        series.best_of,
        series.tie_break,
        [(e.pk, e.version) for e in events],
    ]
    digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:32]
    return f"series:{series.pk}:{digest}"


def series_standings(series: Series, events: list[Event] | None = None) -> SeriesStandings:
    """The series' standings per division; kept until an event or the series' rule changes.
    ``events``: the series' events in date order, when the caller has them already."""
    events = series_events(series) if events is None else events
    return cache.get_or_set(_cache_key(series, events), lambda: _compute(series, events))


def _compute(series: Series, events: list[Event]) -> SeriesStandings:
    the_rule = rule_of(series)
    loaded = {e.pk: load_results(e) for e in events}
    # An event whose directors hold its results back (issue 49 item 4) is not counted yet.
    columns = [Column(e, finished(loaded[e.pk]) and not e.results_held) for e in events]
    counted = [c.event for c in columns if c.counted]
    person_of = people().person_of if counted else {}
    by_division: dict[str, dict[int, dict[int, rule.Showing]]] = {}
    latest: dict[int, tuple[Event, int, str]] = {}  # person -> latest event, player id, name
    for event in counted:
        results = loaded[event.pk]
        players = results.players
        for division, showings in event_showings(results).items():
            mine = by_division.setdefault(division, {}).setdefault(event.pk, {})
            for pk, showing in showings.items():
                person = person_of.get(pk, pk)
                mine[person] = showing
                latest[person] = (event, pk, players[pk].name)
    standings = SeriesStandings(series.scoring, columns, note=rule.note(the_rule, len(counted)))
    order = [e.pk for e in counted]
    for division in sorted(by_division):
        rows = []
        for s in rule.standings(by_division[division], the_rule, order):
            event, player_id, name = latest[s.person]
            rows.append(
                Row(
                    place=s.place,
                    shared=s.shared,
                    by_tie_break=s.by_tie_break,
                    name=name,
                    player_id=player_id,
                    event_slug=event.slug,
                    total=_shown(s.total, series.scoring),
                    wins=s.wins,
                    pips=s.pips,
                    rounds=s.rounds,
                    cells=[_cell(s.cells.get(pk)) for pk in order],
                )
            )
        rows.sort(key=lambda r: (r.place, r.name.casefold()))
        standings.divisions.append(DivisionStandings(division, rows))
    return standings


def _shown(total: int | Fraction, scoring: str) -> int | Decimal:
    """Points as they are; an average rounded once, the same on the page, the CSV, the Excel
    file and the PDF (issue 45 item 7)."""
    return rule.shown_average(Fraction(total)) if scoring == rule.PER_ROUND else int(total)


def _cell(cell: rule.Cell | None) -> Cell | None:
    if cell is None:
        return None
    average = cell.average
    return Cell(
        cell.showing.place,
        cell.showing.medal,
        cell.points,
        rule.shown_average(average) if average is not None else None,
        cell.counted,
    )


# -- exports -------------------------------------------------------------------------------------


def export_rows(standings: SeriesStandings) -> tuple[list, list[tuple]]:
    """The standings as rows (CSV, Excel): a row per player per division, a column per counted
    event (its points or average; a dropped event's in brackets, as text), the total."""
    per_round = standings.scoring == rule.PER_ROUND
    headers = [
        gettext_lazy("Division"),
        gettext_lazy("Place"),
        gettext_lazy("Player"),
        *(f"{e.name} ({e.date.isoformat()})" for e in standings.counted),
        gettext_lazy("Total per round") if per_round else gettext_lazy("Points"),
        *((gettext_lazy("Rounds"), gettext_lazy("Pips")) if per_round else ()),
        gettext_lazy("Wins"),
    ]
    rows = [
        (
            division.division,
            row.place,
            row.name,
            *(_export_cell(cell, per_round) for cell in row.cells),
            row.total,
            *((row.rounds, row.pips) if per_round else ()),
            row.wins,
        )
        for division in standings.divisions
        for row in division.rows
    ]
    return headers, rows


def _export_cell(cell: Cell | None, per_round: bool) -> int | Decimal | str | None:
    if cell is None:
        return None
    value = cell.points if not per_round else cell.average
    if value is None:
        return None
    return value if cell.counted else f"({value})"
