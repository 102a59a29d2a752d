"""A table's score sheet and a stage's standings, computed from loaded rows.

The loading is here (a fixed number of queries whatever the size of the stage); the arithmetic
is tournament/rules.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from scoring import penalties
from scoring.models import Infraction, Score
from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.rules import RuleSet, places, running_totals


@dataclass
class SheetRound:
    number: int
    engine: int
    pips: dict[int, int]  # player id -> pips
    totals: dict[int, int]  # running totals after this round
    entered_at: datetime | None = None  # when it was saved (what counts once time is called)


@dataclass
class TableSheet:
    table: Table
    rules: RuleSet
    players: list[Player]
    rounds: list[SheetRound] = field(default_factory=list)
    infractions: list[Infraction] = field(default_factory=list)  # in the order logged

    @property
    def totals(self) -> dict[int, int]:
        return self.rounds[-1].totals if self.rounds else {p.pk: 0 for p in self.players}

    @property
    def places(self) -> dict[int, int]:
        return places(self.totals)

    @property
    def is_playoff(self) -> bool:
        return self.table.stage.kind == StageKind.PLAYOFF

    @property
    def engines(self) -> tuple[int, ...]:
        """The engines in play order; a playoff is one round, by default the highest double."""
        if self.is_playoff:
            return tuple(r.engine for r in self.rounds) or (self.rules.set,)
        return self.rules.engines

    @property
    def next_engine(self) -> int | None:
        if self.is_playoff:
            return None if self.rounds else self.rules.set
        return self.rules.next_engine(len(self.rounds))

    @property
    def all_engines_played(self) -> bool:
        return self.next_engine is None

    def with_round(self, number: int, pips: dict[int, int]) -> TableSheet:
        """This sheet as it would be with round ``number``'s pips replaced (a correction)."""
        rounds = {r.number: (r.engine, dict(r.pips), r.entered_at) for r in self.rounds}
        engine, _, entered_at = rounds[number]
        rounds[number] = (engine, dict(pips), entered_at)
        return _build_sheet(self.table, self.rules, self.players, rounds, self.infractions)

    def columns(self):
        """Players with their total and place, in seat order, for templates."""
        totals, table_places = self.totals, self.places
        return [(p, totals.get(p.pk, 0), table_places.get(p.pk)) for p in self.players]

    def tally(self) -> list[tuple[Player, int, list[Infraction]]]:
        """Per player in seat order: infractions counted (voided ones not) and all of them."""
        mine: dict[int, list[Infraction]] = {p.pk: [] for p in self.players}
        for infraction in self.infractions:
            mine.setdefault(infraction.player_id, []).append(infraction)
        return [
            (p, penalties.counted(i.action for i in mine[p.pk]), mine[p.pk]) for p in self.players
        ]

    @property
    def infraction_counts(self) -> dict[int, int]:
        return {p.pk: counted for p, counted, _ in self.tally()}

    def rows(self):
        """One row per engine in play order: (engine, round or None, [(pips, running)])."""
        by_engine = {r.engine: r for r in self.rounds}
        out = []
        for engine in self.engines:
            r = by_engine.get(engine)
            cells = [
                (r.pips.get(p.pk), r.totals.get(p.pk)) if r else (None, None) for p in self.players
            ]
            out.append((engine, r, cells))
        return out


def _rounds_by_table(scores) -> dict[int, dict[int, tuple[int, dict[int, int], datetime]]]:
    """table id -> round number -> (engine, {player id: pips}, entered at)."""
    out: dict[int, dict[int, tuple[int, dict[int, int], datetime]]] = {}
    for table_id, number, engine, entered_at, player_id, pips in scores:
        round_ = out.setdefault(table_id, {}).setdefault(number, (engine, {}, entered_at))
        round_[1][player_id] = pips
    return out


def _build_sheet(table, rules, players, rounds, infractions=()) -> TableSheet:
    ordered = [rounds[n] for n in sorted(rounds)]
    running = running_totals([pips for _, pips, _ in ordered])
    sheet = TableSheet(table=table, rules=rules, players=players, infractions=list(infractions))
    for number, (engine, pips, at), totals in zip(sorted(rounds), ordered, running, strict=True):
        sheet.rounds.append(SheetRound(number, engine, pips, totals, at))
    return sheet


def _score_rows(**filters):
    return Score.objects.filter(**filters).values_list(
        "round__table_id",
        "round__number",
        "round__engine",
        "round__entered_at",
        "player_id",
        "pips",
    )


def table_sheet(table: Table) -> TableSheet:
    """The sheet of one table, in four queries."""
    rules = table.stage.event.rules
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    rounds = _rounds_by_table(_score_rows(round__table=table)).get(table.pk, {})
    return _build_sheet(table, rules, players, rounds, Infraction.objects.filter(table=table))


def _load_sheets(rules, stages: dict[int, Stage], **filters) -> list[TableSheet]:
    """Sheets of every table of ``stages``, in four queries whatever their number."""
    tables = list(Table.objects.filter(stage_id__in=stages).order_by("stage__number", "number"))
    for t in tables:
        t.stage = stages[t.stage_id]
    seated: dict[int, list[Player]] = {t.pk: [] for t in tables}
    seats = Seat.objects.filter(stage_id__in=stages).select_related("player")
    for seat in seats.order_by("position"):
        seated[seat.table_id].append(seat.player)
    rounds = _rounds_by_table(_score_rows(round__table__stage_id__in=stages))
    infractions: dict[int, list[Infraction]] = {t.pk: [] for t in tables}
    for infraction in Infraction.objects.filter(table__stage_id__in=stages):
        infractions[infraction.table_id].append(infraction)
    return [
        _build_sheet(t, rules, seated[t.pk], rounds.get(t.pk, {}), infractions[t.pk])
        for t in tables
    ]


def stage_sheets(stage: Stage) -> list[TableSheet]:
    """Every table's sheet of a stage, in four queries whatever its size."""
    return _load_sheets(stage.event.rules, {stage.pk: stage})


def event_sheets(event: Event) -> dict[Stage, list[TableSheet]]:
    """Every stage of an event with its tables' sheets, in five queries whatever its size."""
    stages = {s.pk: s for s in event.stages.all()}
    for s in stages.values():
        s.event = event
    by_stage: dict[Stage, list[TableSheet]] = {s: [] for s in stages.values()}
    for sheet in _load_sheets(event.rules, stages):
        by_stage[sheet.table.stage].append(sheet)
    return by_stage


@dataclass
class StandingsRow:
    place: int
    player: Player
    table: Table
    rounds: int
    total: int
    infractions: int = 0  # counted ones: a voided infraction does not count


def stage_standings(stage: Stage, sheets: list[TableSheet] | None = None) -> list[StandingsRow]:
    """Everyone seated in the stage by lowest total; ties share a place."""
    sheets = stage_sheets(stage) if sheets is None else sheets
    entries = [(sheet, p, sheet.totals.get(p.pk, 0)) for sheet in sheets for p in sheet.players]
    stage_places = places({p.pk: total for _, p, total in entries})
    infractions = {pk: n for sheet in sheets for pk, n in sheet.infraction_counts.items()}
    rows = [
        StandingsRow(
            stage_places[p.pk], p, sheet.table, len(sheet.rounds), total, infractions[p.pk]
        )
        for sheet, p, total in entries
    ]
    return sorted(rows, key=lambda r: (r.place, r.player.name))
