"""A table's score sheet and a stage's standings, computed from loaded rows.

The loading is here (a fixed number of queries whatever the size of the stage); the arithmetic
is tournament/rules.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.models import Score
from tournament.models import Player, Seat, Stage, Table
from tournament.rules import RuleSet, places, running_totals


@dataclass
class SheetRound:
    number: int
    engine: int
    pips: dict[int, int]  # player id -> pips
    totals: dict[int, int]  # running totals after this round


@dataclass
class TableSheet:
    table: Table
    rules: RuleSet
    players: list[Player]
    rounds: list[SheetRound] = field(default_factory=list)

    @property
    def totals(self) -> dict[int, int]:
        return self.rounds[-1].totals if self.rounds else {p.pk: 0 for p in self.players}

    @property
    def places(self) -> dict[int, int]:
        return places(self.totals)

    @property
    def next_engine(self) -> int | None:
        return self.rules.next_engine(len(self.rounds))

    @property
    def all_engines_played(self) -> bool:
        return self.next_engine is None

    def columns(self):
        """Players with their total and place, in seat order, for templates."""
        totals, table_places = self.totals, self.places
        return [(p, totals.get(p.pk, 0), table_places.get(p.pk)) for p in self.players]

    def rows(self):
        """One row per engine in play order: (engine, round or None, [(pips, running)])."""
        by_engine = {r.engine: r for r in self.rounds}
        out = []
        for engine in self.rules.engines:
            r = by_engine.get(engine)
            cells = [
                (r.pips.get(p.pk), r.totals.get(p.pk)) if r else (None, None) for p in self.players
            ]
            out.append((engine, r, cells))
        return out


def _rounds_by_table(scores) -> dict[int, dict[int, tuple[int, dict[int, int]]]]:
    """table id -> round number -> (engine, {player id: pips})."""
    out: dict[int, dict[int, tuple[int, dict[int, int]]]] = {}
    for table_id, number, engine, player_id, pips in scores:
        out.setdefault(table_id, {}).setdefault(number, (engine, {}))[1][player_id] = pips
    return out


def _build_sheet(table, rules, players, rounds) -> TableSheet:
    ordered = [rounds[n] for n in sorted(rounds)]
    running = running_totals([pips for _, pips in ordered])
    sheet = TableSheet(table=table, rules=rules, players=players)
    for number, (engine, pips), totals in zip(sorted(rounds), ordered, running, strict=True):
        sheet.rounds.append(SheetRound(number, engine, pips, totals))
    return sheet


def _score_rows(**filters):
    return Score.objects.filter(**filters).values_list(
        "round__table_id", "round__number", "round__engine", "player_id", "pips"
    )


def table_sheet(table: Table) -> TableSheet:
    """The sheet of one table, in three queries."""
    rules = table.stage.event.rules
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    rounds = _rounds_by_table(_score_rows(round__table=table)).get(table.pk, {})
    return _build_sheet(table, rules, players, rounds)


def stage_sheets(stage: Stage) -> list[TableSheet]:
    """Every table's sheet of a stage, in three queries whatever its size."""
    rules = stage.event.rules
    tables = list(Table.objects.for_stage(stage))
    for t in tables:
        t.stage = stage
    seated: dict[int, list[Player]] = {t.pk: [] for t in tables}
    for seat in Seat.objects.filter(stage=stage).select_related("player").order_by("position"):
        seated[seat.table_id].append(seat.player)
    rounds = _rounds_by_table(_score_rows(round__table__stage=stage))
    return [_build_sheet(t, rules, seated[t.pk], rounds.get(t.pk, {})) for t in tables]


@dataclass
class StandingsRow:
    place: int
    player: Player
    table: Table
    rounds: int
    total: int


def stage_standings(stage: Stage, sheets: list[TableSheet] | None = None) -> list[StandingsRow]:
    """Everyone seated in the stage by lowest total; ties share a place."""
    sheets = stage_sheets(stage) if sheets is None else sheets
    entries = [(sheet, p, sheet.totals.get(p.pk, 0)) for sheet in sheets for p in sheet.players]
    stage_places = places({p.pk: total for _, p, total in entries})
    rows = [
        StandingsRow(stage_places[p.pk], p, sheet.table, len(sheet.rounds), total)
        for sheet, p, total in entries
    ]
    return sorted(rows, key=lambda r: (r.place, r.player.name))
