"""A table's score sheet and a stage's standings, computed from loaded rows.

The loading is here (a fixed number of queries whatever the size of the stage); the arithmetic
is tournament/game/rules.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import ClassVar

from django.db.models import Exists, OuterRef

from scoring.models import Infraction, Round, Score, ScoreChange
from tournament.game.awards import MEDALS, PLAYOFF_PENDING, MedalResult, medal_places
from tournament.game.infractions import counted
from tournament.game.rules import RuleSet, places, running_totals
from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.text import name_sort_key


def game_over(
    rules: RuleSet, rounds_played: int, marked_over: bool, playoff: bool, seated: bool
) -> bool:
    """Whether a table has finished: someone sits there and no round is left to enter (every
    engine played, a playoff's one round played, or the game marked over)."""
    if not seated:
        return False
    if marked_over:
        return True
    if playoff:
        return rounds_played >= 1
    return rules.next_engine(rounds_played) is None


@dataclass
class SheetRound:
    number: int
    engine: int
    pips: dict[int, int]  # player id -> pips
    totals: dict[int, int]  # running totals after this round
    entered_at: datetime | None = None  # when it was saved (what counts once time is called)
    corrected: set[int] = field(default_factory=set)  # player ids whose pips were corrected
    awaiting: bool = False  # entered from a player's phone, not confirmed yet (issue 15)
    # Late arrivals' missed rounds: player ids whose pips are the table's highest of the round.
    filled: set[int] = field(default_factory=set)


@dataclass
class Correction:
    """A saved score changed by a director (scoring.models.ScoreChange), as the table's page
    shows it to directors: which round, whose pips, old and new, who, when and why."""

    round_number: int
    engine: int
    player_id: int
    old: int
    new: int
    by: str
    at: datetime
    reason: str


@dataclass
class TableSheet:
    table: Table
    rules: RuleSet
    players: list[Player]
    rounds: list[SheetRound] = field(default_factory=list)
    infractions: list[Infraction] = field(default_factory=list)  # in the order logged
    corrections: list[Correction] = field(default_factory=list)  # in the order made
    joined: dict[int, int] = field(default_factory=dict)  # late arrival -> first round played
    left: dict[int, int] = field(default_factory=dict)  # withdrew -> rounds played

    def plays(self, player_id: int, number: int) -> bool:
        """Whether the player plays round ``number`` here (not before joining late, not after
        withdrawing)."""
        if number < self.joined.get(player_id, 0):
            return False
        return number <= self.left.get(player_id, number)

    def playing(self, number: int) -> list[Player]:
        """The players who play round ``number`` (who have a pip count to enter), seat order."""
        return [p for p in self.players if self.plays(p.pk, number)]

    @property
    def next_players(self) -> list[Player]:
        return self.playing(self.played + 1)

    def withdrew_after(self, player: Player) -> int | None:
        """The rounds played by a player who withdrew during this stage, else None."""
        return self.left.get(player.pk)

    @property
    def contenders(self) -> dict[int, int]:
        """The totals of the players who played this table to its end (not those who withdrew
        during it). A player who withdrew from the event later is out of contention from the
        last stage they were seated in on (``scoring/results.py``, ``withdrawn_from``)."""
        return {
            p.pk: t
            for p, t in ((p, self.totals.get(p.pk, 0)) for p in self.players)
            if p.pk not in self.left
        }

    @property
    def totals(self) -> dict[int, int]:
        return self.rounds[-1].totals if self.rounds else {p.pk: 0 for p in self.players}

    @property
    def places(self) -> dict[int, int]:
        """Places at the table; a player who withdrew during the game has none."""
        return places({pk: t for pk, t in self.totals.items() if pk not in self.left})

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
    def played(self) -> int:
        """How many rounds the table has played."""
        return len(self.rounds)

    @property
    def awaiting(self) -> list[SheetRound]:
        """Rounds entered from a player's phone that a second player has not confirmed."""
        return [r for r in self.rounds if r.awaiting]

    @property
    def awaiting_count(self) -> int:
        return len(self.awaiting)

    @property
    def marked_over(self) -> bool:
        """The table's game was marked over after its last round (time was called)."""
        return self.table.game_over_after is not None

    @property
    def next_engine(self) -> int | None:
        """The engine of the next round to enter; None once the game is over."""
        if self.marked_over:
            return None
        if self.is_playoff:
            return None if self.played else self.rules.set
        return self.rules.next_engine(self.played)

    @property
    def all_engines_played(self) -> bool:
        return len(self.rounds) >= len(self.engines)

    @property
    def game_over(self) -> bool:
        """Every engine played, or the game marked over after its last round: the table has
        finished (standings, the big screen and the close page count it so)."""
        return game_over(
            self.rules, self.played, self.marked_over, self.is_playoff, bool(self.players)
        )

    def with_round(self, number: int, pips: dict[int, int] | None) -> TableSheet:
        """This sheet as it would be with round ``number``'s pips replaced (a correction), or
        without that round (``pips`` None: a removal)."""
        rounds = {r.number: (r.engine, dict(r.pips), r.entered_at, r.awaiting) for r in self.rounds}
        engine, _, entered_at, awaiting = rounds[number]
        if pips is None:
            del rounds[number]
        else:
            rounds[number] = (engine, dict(pips), entered_at, awaiting)
        return build_sheet(
            self.table,
            self.rules,
            self.players,
            rounds,
            self.infractions,
            self.corrections,
            self.joined,
            self.left,
        )

    def columns(self):
        """Players with their total and place, in seat order, for templates."""
        totals, table_places = self.totals, self.places
        return [(p, totals.get(p.pk, 0), table_places.get(p.pk)) for p in self.players]

    def notes(self) -> list[tuple[Player, str, int]]:
        """What the sheet says under the grid: ("withdrew", rounds played) and ("joined",
        first round played) per player concerned, in seat order."""
        out = []
        for p in self.players:
            if p.pk in self.joined:
                out.append((p, "joined", self.joined[p.pk]))
            if p.pk in self.left:
                out.append((p, "withdrew", self.left[p.pk]))
        return out

    def tally(self) -> list[tuple[Player, int, list[Infraction]]]:
        """Per player in seat order: infractions counted (voided ones not) and all of them."""
        mine: dict[int, list[Infraction]] = {p.pk: [] for p in self.players}
        for infraction in self.infractions:
            mine.setdefault(infraction.player_id, []).append(infraction)
        return [(p, counted(i.action for i in mine[p.pk]), mine[p.pk]) for p in self.players]

    @property
    def infraction_counts(self) -> dict[int, int]:
        return {p.pk: counted for p, counted, _ in self.tally()}

    def correction_rows(self):
        """The corrections with the player's name, for the directors' list on the table page."""
        names = {p.pk: p.name for p in self.players}
        return [(c, names.get(c.player_id, "?")) for c in self.corrections]

    def rows(self):
        """One row per engine in play order: (engine, round or None, [(pips, running,
        corrected)])."""
        by_engine = {r.engine: r for r in self.rounds}
        out = []
        for engine in self.engines:
            r = by_engine.get(engine)
            cells = [
                (r.pips.get(p.pk), r.totals.get(p.pk), p.pk in r.corrected, p.pk in r.filled)
                if r
                else (None, None, False, False)
                for p in self.players
            ]
            out.append((engine, r, cells))
        return out


@dataclass(frozen=True, eq=False, slots=True)
class SeatedPlayer:
    """A player as the summaries read them: the fields the standings, bracket and results
    show, without a model instance each (4,000 of them cost 40 ms more). Equal to the
    player of the same id, like a model instance."""

    FIELDS: ClassVar[tuple[str, ...]] = (
        "player_id",
        "player__name",
        "player__division",
        "player__withdrawn",
        "player__out_of_district",
    )
    pk: int
    name: str
    division: str
    withdrawn: bool
    out_of_district: bool = False

    def __eq__(self, other) -> bool:
        return isinstance(other, SeatedPlayer | Player) and other.pk == self.pk

    def __hash__(self) -> int:
        return hash(self.pk)

    def __str__(self) -> str:
        return self.name


@dataclass
class TableSummary(TableSheet):
    """A table's sheet without its rounds: each player's total and the rounds counted, as
    scoring.services.rounds.store_totals keeps them, what the standings, the bracket and the
    results show (a page of 1,000 players reads 1,000 totals, not 13,000 pip counts).
    ``rounds`` is None: what needs the rounds (the grid, corrections, exports, playoffs, late
    arrivals) has a TableSheet."""

    summed: dict[int, int] = field(default_factory=dict)  # player id -> total, once played
    rounds_played: int = 0
    rounds_awaiting: int = 0

    @property
    def played(self) -> int:
        return self.rounds_played

    @property
    def awaiting_count(self) -> int:
        return self.rounds_awaiting

    @property
    def totals(self) -> dict[int, int]:
        # As TableSheet's: the last round's running totals, or everyone at 0 before the first.
        return self.summed if self.rounds_played else {p.pk: 0 for p in self.players}


def _rounds_by_table(**filters) -> dict[int, dict[int, tuple[int, dict[int, int], datetime, bool]]]:
    """table id -> round number -> (engine, {player id: pips}, entered at, awaiting
    confirmation), in two queries: the rounds, then their scores (a round's time is read once,
    not once per player)."""
    out: dict[int, dict[int, tuple[int, dict[int, int], datetime, bool]]] = {}
    pips_of: dict[int, dict[int, int]] = {}
    rounds = Round.objects.filter(**filters).order_by()
    for pk, table_id, number, engine, entered_at, awaiting in rounds.values_list(
        "pk", "table_id", "number", "engine", "entered_at", "awaiting_confirmation"
    ):
        pips = pips_of.setdefault(pk, {})
        out.setdefault(table_id, {})[number] = (engine, pips, entered_at, awaiting)
    scores = Score.objects.filter(**{f"round__{k}": v for k, v in filters.items()}).order_by()
    for round_id, player_id, pips in scores.values_list("round_id", "player_id", "pips"):
        if round_id in pips_of:  # a round saved between the two queries waits for the next load
            pips_of[round_id][player_id] = pips
    # ...and one removed between them (its scores gone with it) is left out too.
    return {
        table_id: {n: r for n, r in rounds_.items() if r[1]} for table_id, rounds_ in out.items()
    }


def build_sheet(
    table, rules, players, rounds, infractions=(), corrections=(), joined=None, left=None
) -> TableSheet:
    joined = joined or {}
    filled: dict[int, set[int]] = {}
    if joined:
        # A late arrival's missed rounds score the table's highest score of that round.
        rounds = {n: (r[0], dict(r[1]), *r[2:]) for n, r in rounds.items()}
        for number, r in rounds.items():
            pips = r[1]
            late = [pk for pk, first in joined.items() if number < first and pk not in pips]
            if late and pips:
                highest = max(pips.values())
                for pk in late:
                    pips[pk] = highest
                filled[number] = set(late)
    ordered = [rounds[n] for n in sorted(rounds)]
    running = running_totals([r[1] for r in ordered])
    sheet = TableSheet(
        table=table,
        rules=rules,
        players=players,
        infractions=list(infractions),
        corrections=list(corrections),
        joined=dict(joined),
        left=dict(left or {}),
    )
    corrected: dict[int, set[int]] = {}
    for c in sheet.corrections:
        corrected.setdefault(c.round_number, set()).add(c.player_id)
    for number, (engine, pips, at, awaiting), totals in zip(
        sorted(rounds), ordered, running, strict=True
    ):
        sheet.rounds.append(
            SheetRound(
                number,
                engine,
                pips,
                totals,
                at,
                corrected.get(number, set()),
                awaiting,
                filled.get(number, set()),
            )
        )
    return sheet


def _corrections(**filters) -> dict[int, list[Correction]]:
    """table id -> its score corrections, oldest first (one query)."""
    out: dict[int, list[Correction]] = {}
    rows = ScoreChange.objects.filter(**filters).order_by("changed_at", "pk")
    for table_id, number, engine, player_id, old, new, by, at, reason in rows.values_list(
        "round__table_id",
        "round__number",
        "round__engine",
        "player_id",
        "old_pips",
        "new_pips",
        "changed_by__username",
        "changed_at",
        "reason",
    ):
        out.setdefault(table_id, []).append(
            Correction(number, engine, player_id, old, new, by or "—", at, reason)
        )
    return out


def table_sheet(table: Table) -> TableSheet:
    """The sheet of one table, in six queries."""
    rules = table.stage.event.rules
    seats = list(table.seats.select_related("player").order_by("position"))
    rounds = _rounds_by_table(table=table).get(table.pk, {})
    infractions = Infraction.objects.filter(table=table)
    corrections = _corrections(round__table=table).get(table.pk, [])
    joined, left = _late_and_left(_seat_marks(seats))
    return build_sheet(
        table, rules, [s.player for s in seats], rounds, infractions, corrections, joined, left
    )


def _late_and_left(seats) -> tuple[dict[int, int], dict[int, int]]:
    """From (player id, joined at, left after) per seat: who joined late at which round, who
    withdrew after which round."""
    joined = {pk: first for pk, first, _ in seats if first is not None}
    left = {pk: last for pk, _, last in seats if last is not None}
    return joined, left


def _seat_marks(seats: list[Seat]) -> list[tuple[int, int | None, int | None]]:
    return [(s.player_id, s.joined_at, s.left_after) for s in seats]


def load_sheets(rules, stages: dict[int, Stage], **filters) -> list[TableSheet]:
    """Sheets of every table of ``stages``, in six queries whatever their number."""
    tables = list(Table.objects.filter(stage_id__in=stages).order_by("stage__number", "number"))
    for t in tables:
        t.stage = stages[t.stage_id]
    seated: dict[int, list[Seat]] = {t.pk: [] for t in tables}
    seats = Seat.objects.filter(stage_id__in=stages).select_related("player")
    for seat in seats.order_by("position"):
        seated[seat.table_id].append(seat)
    rounds = _rounds_by_table(table__stage_id__in=stages)
    infractions: dict[int, list[Infraction]] = {t.pk: [] for t in tables}
    for infraction in Infraction.objects.filter(table__stage_id__in=stages):
        infractions[infraction.table_id].append(infraction)
    corrections = _corrections(round__table__stage_id__in=stages)
    return [
        build_sheet(
            t,
            rules,
            [s.player for s in seated[t.pk]],
            rounds.get(t.pk, {}),
            infractions[t.pk],
            corrections.get(t.pk, []),
            *_late_and_left(_seat_marks(seated[t.pk])),
        )
        for t in tables
    ]


def load_summaries(rules, stages: dict[int, Stage]) -> list[TableSheet]:
    """What the standings, bracket and results need of every table of ``stages``, in three
    queries whatever their number (five when a playoff or a late arrival's table is there):
    a TableSummary per table, its totals and rounds as scoring.services.rounds.store_totals
    keeps them, or a TableSheet where the totals are not the sums of the pips entered (a late
    arrival's missed rounds) or the rounds are read (a playoff's). Corrections are not loaded
    (these pages do not mark them); the players are SeatedPlayer."""
    tables = list(Table.objects.filter(stage_id__in=stages).order_by("stage__number", "number"))
    seated: dict[int, list[SeatedPlayer]] = {t.pk: [] for t in tables}
    marks: dict[int, list[tuple[int, int | None, int | None]]] = {t.pk: [] for t in tables}
    summed: dict[int, dict[int, int]] = {t.pk: {} for t in tables}
    seats = Seat.objects.filter(stage_id__in=stages).order_by("position")
    for table_id, joined_at, left_after, total, *player in seats.values_list(
        "table_id", "joined_at", "left_after", "pips_entered", *SeatedPlayer.FIELDS
    ):
        seated[table_id].append(SeatedPlayer(*player))
        marks[table_id].append((player[0], joined_at, left_after))
        summed[table_id][player[0]] = total
    infractions: dict[int, list[Infraction]] = {t.pk: [] for t in tables}
    for infraction in Infraction.objects.filter(table__stage_id__in=stages):
        infractions[infraction.table_id].append(infraction)
    late_and_left = {t.pk: _late_and_left(marks[t.pk]) for t in tables}
    for t in tables:
        t.stage = stages[t.stage_id]
    # Two more queries where a table's rounds are read: a playoff's, a late arrival's (whose
    # missed rounds are filled, not summed).
    full = {t.pk for t in tables if t.stage.kind == StageKind.PLAYOFF or late_and_left[t.pk][0]}
    rounds = _rounds_by_table(table_id__in=full) if full else {}
    out: list[TableSheet] = []
    for t in tables:
        joined, left = late_and_left[t.pk]
        if t.pk in full:
            sheet = build_sheet(
                t, rules, seated[t.pk], rounds.get(t.pk, {}), infractions[t.pk], (), joined, left
            )
        else:
            sheet = TableSummary(
                table=t,
                rules=rules,
                players=seated[t.pk],
                rounds=None,
                infractions=infractions[t.pk],
                joined=joined,
                left=left,
                summed=summed[t.pk],
                rounds_played=t.rounds_played,
                rounds_awaiting=t.rounds_awaiting,
            )
        out.append(sheet)
    return out


def stage_summaries(stage: Stage) -> list[TableSheet]:
    """Every table of a stage as its standings show it (load_summaries)."""
    return load_summaries(stage.event.rules, {stage.pk: stage})


def event_summaries(event: Event) -> dict[Stage, list[TableSheet]]:
    """Every stage of an event with its tables as the bracket and results show them."""
    return _by_stage(event, load_summaries)


def stage_sheets(stage: Stage) -> list[TableSheet]:
    """Every table's sheet of a stage, in six queries whatever its size."""
    return load_sheets(stage.event.rules, {stage.pk: stage})


def event_sheets(event: Event) -> dict[Stage, list[TableSheet]]:
    """Every stage of an event with its tables' sheets, in six queries whatever its size."""
    return _by_stage(event, load_sheets)


def _by_stage(event: Event, load) -> dict[Stage, list[TableSheet]]:
    stages = {s.pk: s for s in event.stages.all()}
    for s in stages.values():
        s.event = event
    by_stage: dict[Stage, list[TableSheet]] = {s: [] for s in stages.values()}
    tables: dict[int, Table] = {}
    for sheet in load(event.rules, stages):
        by_stage[sheet.table.stage].append(sheet)
        tables[sheet.table.pk] = sheet.table
    for s in stages.values():  # what a playoff settles, which its name says: no query each
        if s.playoff_table_id in tables:
            s.playoff_table = tables[s.playoff_table_id]
        if s.wildcards_of_id in stages:
            s.wildcards_of = stages[s.wildcards_of_id]
    return by_stage


def finished_tables(stage: Stage) -> tuple[list[int], int]:
    """The numbers of a stage's finished tables and how many tables it has, in one query of
    the tables' stored round counts (the big screen and clock.json ask every few seconds: no
    sheet is loaded)."""
    seated = Seat.objects.filter(table=OuterRef("pk"))
    rows = (
        Table.objects.filter(stage=stage)
        .annotate(seated=Exists(seated))
        .order_by("number")
        .values_list("number", "rounds_played", "game_over_after", "seated")
    )
    rules, playoff = stage.event.rules, stage.kind == StageKind.PLAYOFF
    rows = list(rows)
    done = [
        number
        for number, played, over_after, is_seated in rows
        if game_over(rules, played, over_after is not None, playoff, is_seated)
    ]
    return done, len(rows)


@dataclass
class StandingsRow:
    place: int | None
    player: Player
    table: Table
    rounds: int
    total: int
    infractions: int = 0  # counted ones: a voided infraction does not count
    withdrew_after: int | None = None  # rounds played by a player who withdrew in this stage

    @property
    def rank(self) -> int:
        """The place for sorting: a withdrawal after every place, a player with no round yet
        after them."""
        if self.place is not None:
            return self.place
        return 1_000_000 if self.rounds else 1_000_001


def stage_standings(stage: Stage, sheets: list[TableSheet] | None = None) -> list[StandingsRow]:
    """Everyone seated in the stage by lowest total; ties share a place. Only players with a
    round played are ranked: a player who withdrew during the stage has no place and is
    listed after them, with the rounds played; a player with no round yet (a table that has
    not started) has no place either and is listed last (issue 28 item 5)."""
    sheets = stage_sheets(stage) if sheets is None else sheets
    entries = [(sheet, p, sheet.totals.get(p.pk, 0)) for sheet in sheets for p in sheet.players]
    stage_places = places(
        {
            p.pk: total
            for sheet, p, total in entries
            if sheet.withdrew_after(p) is None and sheet.played
        }
    )
    infractions = {pk: n for sheet in sheets for pk, n in sheet.infraction_counts.items()}
    rows = [
        StandingsRow(
            stage_places.get(p.pk),
            p,
            sheet.table,
            sheet.left.get(p.pk, sheet.played),
            total,
            infractions[p.pk],
            sheet.withdrew_after(p),
        )
        for sheet, p, total in entries
    ]
    return sorted(rows, key=lambda r: (r.rank, name_sort_key(r.player.name)))


def settled_places(
    by_total: dict[int, int], result: MedalResult | None, outside: dict[int, str] | None = None
) -> dict[int, int]:
    """A Final's places once its medals are settled (issue 28 item 18): each medalist at
    their medal's place (1 gold, 2 silver, 3 bronze: a playoff's winner before the player
    they were tied with), everyone else after the medalists in their order by total.
    ``by_total`` is the places by total; they stay as they are while no medal is settled or a
    medal playoff is still owed (never a guess). Who gets a medal is awards.medals' alone.
    ``outside``: the out-of-district players' duplicate medals (tournament/game/qualifiers.py),
    each at their medal's place beside the in-district holder of the same medal."""
    shown = medal_places(result) if result is not None else {}
    if shown and outside:
        shown = {**shown, **{pk: MEDALS.index(m) + 1 for pk, m in outside.items()}}
    if not shown or PLAYOFF_PENDING in shown.values():
        return dict(by_total)
    medalists = {pk: place for pk, place in shown.items() if pk in by_total}
    others = places({pk: place for pk, place in by_total.items() if pk not in medalists})
    return {**medalists, **{pk: len(medalists) + place for pk, place in others.items()}}


def settled_standings(
    rows: list[StandingsRow], result: MedalResult | None, outside: dict[int, str] | None = None
) -> list[StandingsRow]:
    """A Final's standings rows placed and ordered as its medals settled them
    (settled_places); those without a place stay last, as stage_standings lists them."""
    by_total = {r.player.pk: r.place for r in rows if r.place is not None}
    settled = settled_places(by_total, result, outside)
    if settled == by_total:
        return rows
    moved = [replace(r, place=settled.get(r.player.pk)) for r in rows]
    return sorted(moved, key=lambda r: (r.rank, name_sort_key(r.player.name)))


@dataclass(frozen=True)
class StageProgress:
    """How far a stage in progress has been played: its standings are partial."""

    tables: int
    finished: int  # tables whose game is over
    rounds: int  # rounds entered
    expected: int  # rounds to play: every engine, or the rounds played where the game is over


def stage_progress(stage: Stage, sheets: list[TableSheet]) -> StageProgress | None:
    """The progress of a stage whose standings are partial; None once they are final (the
    stage closed, or every table's game over)."""
    if stage.closed or not sheets or all(s.game_over for s in sheets if s.players):
        return None
    seated = [s for s in sheets if s.players]
    return StageProgress(
        tables=len(seated),
        finished=sum(1 for s in seated if s.game_over),
        rounds=sum(s.played for s in seated),
        expected=sum(s.played if s.game_over else len(s.engines) for s in seated),
    )
