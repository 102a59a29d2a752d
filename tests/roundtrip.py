"""Events of every kind, made and played by the site itself, for the round trip of the event
file and the series file (issue 45 item 1): export, import into an empty site, export again.

``make(seed, director)`` sets an event up as a director does (its format, one or two sets, its
tie rules, divisions, table entry, late arrivals, its date: today, or long ago for an event
typed in from paper), registers its players and runs it through the site's own services: Game 1
drawn from the players checked in, every table's rounds played by the simulator
(tournament/game/simulator/, entered through scoring/services/simulation.py), each stage closed
through the close page's service, playoffs played, the next stage seated. On the way it does what
directors meet: a withdrawal before the draw, a no-show withdrawn once other tables have started,
a withdrawal mid-game, a late arrival, a division corrected after the draw, infractions, a
phone's round (confirmed, or still awaiting), a last round typed from the paper sheet that makes
a tie (so playoffs are seated at tables' tops, at the cut and for medals), a correction after a
close (its seating conflict kept with "keep the published seating", or applied), a field the
chart cannot seat (the dead end, and what the director does about it). It stops at the medals or
part-way (an event in progress). What happened is ``Made.kinds``: the coverage.

Every choice is the seed's: the same seed makes the same event. The first choices cycle with the
seed (format, sets, tie rules) so that a few consecutive seeds cover every kind.

``round_trip(event)`` exports the event, empties the site (every event and series deleted),
imports the file, exports again, and names every difference: the file, the standings, results
and medals as the pages show them, and the rows the site keeps (``site_state``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction
from django.test import Client
from django.utils import timezone

from scoring.eventfile import dumps, export_event, import_event, player_ids
from scoring.models import Infraction, Round, Score, ScoreChange, Series
from scoring.results import AdvanceError, load_results, seating_conflicts
from scoring.services.infractions import change_infraction, log_infraction
from scoring.services.rounds import RoundRejected, correct_round, record_round
from scoring.services.simulation import SimulationRefused, simulate_stage, simulate_table
from scoring.services.stages import (
    apply_correction,
    close_and_seat,
    draw_first_game,
    keep_seating,
    seat_next_stage,
)
from scoring.services.table_entry import confirm_round
from scoring.sheets import table_sheet
from tests.factories import make_event
from tournament.game.rules import round_errors
from tournament.game.seating import SeatingError
from tournament.game.simulator import DealError, game_rng, play_round
from tournament.models import ClockEvent, Event, Player, Seat, Stage, StageKind, Table
from tournament.services.players import edit_player
from tournament.services.seating import seat_late_arrival, withdraw_player

FORMATS = ("knockout", "cumulative", "cumulative_final")
MEDAL_TIES = ("nvso", "shared", "playoff")
ADVANCEMENT_TIES = ("playoff", "all_advance")
PHONE = "0123456789ab"  # a player's phone (table entry): its rounds await a second player


@dataclass(frozen=True)
class Chart:
    """A set, the copies mixed, the tiles drawn by table size, the usual table size."""

    set: int
    sets: int
    tiles: dict[int, int]
    table_size: int


ONE_SET = (
    Chart(12, 1, {2: 15, 3: 15, 4: 15, 5: 15}, 4),  # NVSO
    Chart(9, 1, {2: 15, 3: 13, 4: 10}, 4),
    Chart(6, 1, {2: 7, 3: 7, 4: 5}, 4),
    Chart(12, 1, {4: 15, 5: 14, 6: 12}, 5),
)
TWO_SETS = (
    Chart(9, 2, {6: 15, 7: 13, 8: 12}, 7),  # the night of the issue: tables of 6 to 8
    Chart(6, 2, {4: 10, 5: 9, 6: 8}, 5),
)
LONG_AGO = date(2024, 5, 16)  # typed in from paper today


@dataclass
class Made:
    """An event made by ``make``: what happened on the way (``kinds``), and the refusals the
    site gave (``dead_ends``: where it stopped, or what the director did about them)."""

    event: Event
    seed: int
    kinds: set[str] = field(default_factory=set)
    dead_ends: list[str] = field(default_factory=list)


# What the site (or its simulator) may refuse on the way: the event stops there, in progress.
REFUSED = (SimulationRefused, RoundRejected, SeatingError, DealError, AdvanceError)


class _Stop(Exception):
    """The event stops here: left in progress."""


class Director:
    """Runs one event as a director would, every write through the site's services."""

    def __init__(self, seed: int, user) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.user = user
        self.kinds: set[str] = set()
        self.dead_ends: list[str] = []
        self.steps_left = 99
        self.done: set[str] = set()  # the one-off happenings already done

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def once(self, name: str, p: float) -> bool:
        """Whether ``name`` (a happening done at most once per event) happens now."""
        if name in self.done or not self.chance(p):
            return False
        self.done.add(name)
        return True

    # -- the event --------------------------------------------------------------------------
    def set_up(self) -> Event:
        rng, seed = self.rng, self.seed
        kind = FORMATS[seed % 3]
        sets = 2 if (seed // 3) % 2 else 1
        chart = rng.choice(TWO_SETS if sets == 2 else ONE_SET)
        if seed % 12 == 5:
            chart = TWO_SETS[0]
        medal_tie = MEDAL_TIES[(seed // 2) % 3]
        advancement_tie = ADVANCEMENT_TIES[(seed // 6) % 2]
        engines = list(range(chart.set, chart.set - rng.randint(2, 3), -1))
        timed = self.chance(0.4)
        self.minutes_per_round = rng.choice([10.0, 25.0])
        on_day = rng.choice([timezone.localdate(), LONG_AGO, timezone.localdate()])
        fields = dict(
            name=f"Night {seed}",
            date=on_day,
            set_size=chart.set,
            sets=chart.sets,
            engines=engines,
            tiles_drawn={str(n): t for n, t in chart.tiles.items()},
            table_size=chart.table_size,
            game_minutes=60 if timed else None,
            round_in_progress=rng.choice(["finish", "void"]),
            double_blank_points=rng.choice([0, 50]),
            advancement_tie=advancement_tie,
            medal_tie=medal_tie,
            infraction_penalty=rng.choice(["warn_then_draw", "draw", "warn_then_skip", "skip"]),
            infraction_scope=rng.choice(["game", "event"]),
            late_arrivals=self.chance(0.5),
            table_entry=self.chance(0.4),
            format_kind=kind,
        )
        if kind != "knockout":
            fields.update(
                format_games=rng.randint(1, 3),
                format_reseat=rng.choice(["fewest_repeats", "by_standing", "progressive"]),
                format_move=1,
            )
        if kind == "cumulative_final":
            fields.update(
                format_final_size=rng.choice([None, chart.table_size - 1, chart.table_size]),
                format_medals_from=rng.choice(["final", "cumulative_plus_final"]),
            )
        if kind == "knockout":
            top_n, fill_to = rng.choice([(1, None), (None, None), (2, None), (1, 4)])
            fields.update(finals_top_n=top_n, finals_fill_to=fill_to)
        if self.chance(0.2):
            fields.update(age_brackets="50-59, 60-69, 70+", age_on="dec31")
        event = make_event(self.user, **fields)
        self.kinds |= {
            f"format:{kind}",
            f"sets:{chart.sets}",
            f"medal_tie:{medal_tie}",
            f"advancement_tie:{advancement_tie}",
            "timed" if timed else "untimed",
        }
        if on_day == LONG_AGO:
            self.kinds.add("typed in long after its date")
        if chart.tiles.keys() == {6, 7, 8} and chart.sets == 2:
            self.kinds.add("two double-9 sets, tables of 6 to 8")
        if event.table_entry:
            self.kinds.add("table entry")
        return event

    def register(self, event: Event) -> None:
        rng = self.rng
        usual = event.table_size
        divisions = ["55-64", "65+"] if self.chance(0.35) else [""]
        if divisions != [""]:
            self.kinds.add("divisions")
        for division in divisions:
            count = usual * rng.randint(2, 3) + rng.randint(-1, 1)
            for n in range(count):
                Player.objects.create(
                    event=event,
                    name=f"{division or 'Player'} {n + 1:02d}",
                    division=division,
                    club=rng.choice(["", "Reno", "Sparks"]),
                    checked_in=True,
                )
        players = list(event.players.order_by("pk"))
        if event.late_arrivals:  # one comes late: not checked in at the draw
            late = rng.choice(players)
            Player.objects.filter(pk=late.pk).update(checked_in=False)
        if self.chance(0.3):
            gone = rng.choice(list(event.players.present()))
            withdraw_player(gone, self.user, "Called in sick")
            self.kinds.add("withdrawal before the draw")

    # -- running it -------------------------------------------------------------------------
    def run(self, event: Event) -> None:
        self.event = event
        self.stop_after = self.rng.choice([99, 99, 1, 2, 3])  # stages played before stopping
        game1 = event.stages.order_by("number").first()
        draw = self.draw(game1)
        if draw is None or not draw.tables:
            return
        try:
            self.withdrawn_before_play(game1)
            self.division_changed(game1)
            for _turn in range(60):
                stage = self.next_stage()
                if stage is None:
                    if self.medals_done():
                        self.kinds.add("played to its medals")
                        return
                    self.seat_next()
                    continue
                self.play(stage)
        except _Stop:
            self.kinds.add("stopped part-way")

    def draw(self, stage: Stage, allow: int | None = None):
        """Game 1 drawn from the players checked in; where the sizes listed cannot seat them,
        the director allows the size the refusal names, as its page offers."""
        players = list(self.event.players.present())
        extra = {"allow": allow} if allow else {}
        try:
            draw = draw_first_game(stage, players, rng=self.rng, user=self.user, **extra)
        except SeatingError as why:
            self.dead_end(why)
            size = getattr(why, "size", None)
            if size is None or allow:
                return None
            return self.draw(stage, size)
        if allow:
            self.kinds.add("table size allowed for a stage")
        size = getattr(draw, "size_to_allow", None)
        if size is not None and not allow:  # a division left out: allowed and drawn again
            self.dead_ends.append(" ".join(map(str, draw.left_out)))
            return self.draw(stage, size)
        return draw

    def withdrawn_before_play(self, stage: Stage) -> None:
        """A no-show withdrawn after the draw, before any round: the tables are rebalanced,
        or (when the sizes listed cannot seat the others) stay as they are."""
        if not self.once("no-show", 0.2):
            return
        seat = self.rng.choice(list(Seat.objects.filter(stage=stage).select_related("player")))
        try:
            done = withdraw_player(seat.player, self.user, "Did not come")
        except SeatingError as why:
            self.dead_end(why)
            raise _Stop from None
        self.kinds.add("no-show withdrawn before any round")
        if "stay as they are" in done:
            self.dead_ends.append(done)
            self.kinds.add("tables not rebalanced after a withdrawal")
            if "Allow tables of" in done:
                size = int(done.split("Allow tables of ")[1].split()[0])
                self.draw(stage, size)

    def dead_end(self, why) -> None:
        self.dead_ends.append(str(why))
        self.kinds.add("dead end")

    def next_stage(self) -> Stage | None:
        return (
            self.event.stages.open()
            .filter(seats__isnull=False)
            .distinct()
            .order_by("number")
            .first()
        )

    def medals_done(self) -> bool:
        results = load_results(self.event)
        return bool(results.medals) and not results.owed

    def seat_next(self, allow: int | None = None) -> None:
        """Seat the next stage; where the sizes listed cannot seat it, the director allows the
        size the refusal names (the close page offers it)."""
        extra = {"allow": allow} if allow else {}
        try:
            seat_next_stage(self.event, rng=self.rng, user=self.user, **extra)
        except (AdvanceError, SeatingError) as why:
            self.dead_end(why)
            size = getattr(why, "size_to_allow", None)
            if size is None or allow:
                raise _Stop from None
            self.seat_next(size)
            return
        if allow:
            self.kinds.add("table size allowed for a stage")

    def division_changed(self, stage: Stage) -> None:
        """A wrong age bracket found at the table: the player's division corrected after the
        draw (the table keeps them)."""
        divisions = sorted(set(self.event.players.values_list("division", flat=True)))
        if len(divisions) < 2 or not self.chance(0.5):
            return
        seat = self.rng.choice(list(Seat.objects.filter(stage=stage).select_related("player")))
        other = next(d for d in divisions if d != seat.player.division)
        edit_player(seat.player, {"division": other}, self.user)
        self.kinds.add("division changed after the draw")

    def play(self, stage: Stage) -> None:
        """Play the stage's tables (with what happens on the way), then close it."""
        tables = list(Table.objects.for_stage(stage).filter(seats__isnull=False).distinct())
        if stage.kind == StageKind.PLAYOFF:
            size = Seat.objects.filter(stage=stage).count()
            self.kinds.add(f"playoff of {size}")
            if size not in self.event.rules.dealable_sizes:
                self.kinds.add("playoff at a size the chart does not list")
            if stage.medal == "advance":
                self.kinds.add("cut playoff" if stage.wildcards_of_id else "table playoff")
            else:
                self.kinds.add("medal playoff")
            self.simulate(stage)
            return
        self.steps_left -= 1
        try:
            if len(tables) > 1 and stage.kind == StageKind.QUALIFYING:
                self.no_show(stage, tables)
            for table in Table.objects.for_stage(stage).filter(seats__isnull=False).distinct():
                self.at_table(stage, table)
        except REFUSED as why:  # the site (or its simulator) refused: the event stops there
            self.dead_end(why)
            raise _Stop from None
        if self.stop_after <= 0 and self.chance(0.5):
            raise _Stop  # in the middle of a stage
        self.simulate(stage)
        self.infractions(stage)
        self.make_tie(stage)
        if self.stop_after <= 0:
            raise _Stop
        self.stop_after -= 1
        self.close(stage)

    def simulate(self, stage: Stage) -> None:
        try:
            simulate_stage(stage, self.seed, self.user, self.minutes_per_round)
        except REFUSED as why:
            self.dead_end(why)
            raise _Stop from None

    def no_show(self, stage: Stage, tables: list[Table]) -> None:
        """A no-show found once other tables have started: withdrawn, their table plays on one
        smaller."""
        if not self.once("no-show", 0.3):
            return
        started, waiting = tables[0], tables[-1]
        simulate_table(started, self.seed, self.user, rounds=1)
        seats = list(Seat.objects.filter(table=waiting).select_related("player"))
        if len(seats) <= 2:
            return
        withdraw_player(self.rng.choice(seats).player, self.user, "Did not come")
        self.kinds.add("no-show withdrawn after the draw")
        size = len(seats) - 1
        if size not in self.event.rules.dealable_sizes:
            self.kinds.add("table left at a size the chart does not list")

    def at_table(self, stage: Stage, table: Table) -> None:
        """Rounds played with comings and goings: a late arrival joins, a player withdraws
        mid-game, a phone enters a round."""
        event = self.event
        sheet = table_sheet(table)
        if len(sheet.engines) < 2:
            return
        if event.late_arrivals and self.once("late", 0.5):
            late = event.players.filter(checked_in=False, withdrawn=False).first()
            if late is not None:
                simulate_table(table, self.seed, self.user, rounds=max(sheet.played, 1))
                try:
                    seat_late_arrival(stage, late, table, self.user)
                    self.kinds.add("late arrival")
                except SeatingError as why:
                    self.dead_ends.append(str(why))
                return
        if self.once("mid-game", 0.3):
            simulate_table(table, self.seed, self.user, rounds=max(sheet.played, 1))
            playing = table_sheet(table).next_players
            if len(playing) > 2:
                withdraw_player(self.rng.choice(playing), self.user, "Felt unwell")
                self.kinds.add("withdrawal mid-game")
            return
        if event.table_entry and self.chance(0.5):
            self.phone_round(table)

    def phone_round(self, table: Table) -> None:
        """A round entered from a player's phone, dealt by the simulator: it awaits a second
        player; a director confirms it, or it is still awaiting when the event stops."""
        sheet = table_sheet(table)
        engine = sheet.next_engine
        if engine is None:
            return
        playing = sheet.next_players
        rng = game_rng(self.seed, table.stage.number, table.number * 100 + sheet.played)
        try:
            dealt = play_round(sheet.rules, engine, len(playing), rng)
        except DealError:
            return
        pips = {p.pk: dealt.pips[i] for i, p in enumerate(playing)}
        saved = record_round(table, pips, None, engine, device=PHONE)
        self.kinds.add("phone's round")
        if self.chance(0.5):
            confirm_round(saved, user=self.user)
        else:
            self.kinds.add("phone's round awaiting confirmation")

    def infractions(self, stage: Stage) -> None:
        for table in Table.objects.for_stage(stage):
            sheet = table_sheet(table)
            if not sheet.rounds or not self.chance(0.3):
                continue
            player = self.rng.choice(sheet.playing(sheet.played))
            logged = log_infraction(
                table, player, sheet.rounds[-1].engine, "wrong_tile", "on the 4 train", self.user
            )
            self.kinds.add("infraction")
            if self.chance(0.3):
                change_infraction(logged, "void", "It was the right tile", self.user)

    # -- ties ---------------------------------------------------------------------------------
    def make_tie(self, stage: Stage) -> None:
        """The last round of a table typed from the paper sheet so that players tie: at a
        table's top, at the cut after a cumulative event's last game, for a medal."""
        if not self.chance(0.6):
            return
        results = load_results(self.event)
        games = results.games
        fmt = self.event.format
        last_game = fmt.is_cumulative and games and games[-1].pk == stage.pk
        tables = [t for t in Table.objects.for_stage(stage) if table_sheet(t).rounds]
        if not tables:
            return
        if last_game and fmt.has_final:
            self.tie_at_the_cut(stage, results, tables)
            return
        table = self.rng.choice(tables)
        sheet = table_sheet(table)
        contenders = {pk: t for pk, t in sheet.contenders.items() if sheet.plays(pk, sheet.played)}
        if len(contenders) < 2:
            return
        ordered = sorted(contenders, key=contenders.get)
        tied = ordered[: self.rng.choice([2, 3])] if len(ordered) > 2 else ordered[:2]
        if self.chance(0.4) and len(ordered) > 3:
            tied = ordered[1:3]  # for second place
        self.tie(sheet, {pk: max(contenders[p] for p in tied) for pk in tied}, "tie")

    def tie_at_the_cut(self, stage: Stage, results, tables: list[Table]) -> None:
        """Players of one table brought level with the last player inside the Final's cut."""
        previous = [g for g in results.games if g.pk != stage.pk]
        before = results.cumulative.get(previous[-1].pk, {}) if previous else {}
        size = self.event.format.final_players(self.event.rules)
        sheets = [table_sheet(t) for t in tables]
        totals = {
            pk: before.get(pk, 0) + t
            for s in sheets
            for pk, t in s.contenders.items()
            if s.plays(pk, s.played)
        }
        by_division: dict[str, dict[int, int]] = {}
        division = {p.pk: p.division for s in sheets for p in s.players}
        for pk, total in totals.items():
            by_division.setdefault(division[pk], {})[pk] = total
        for group in by_division.values():
            ordered = sorted(group, key=group.get)
            if len(ordered) <= size:
                continue
            level = group[ordered[size - 1]]
            for sheet in self.rng.sample(sheets, len(sheets)):
                movers = [
                    pk
                    for pk in sheet.contenders
                    if pk in group and pk != ordered[size - 1] and group[pk] > level
                ]
                movers = movers[: self.rng.choice([1, 2])]
                if movers and self.tie(
                    sheet,
                    {pk: sheet.totals[pk] - (group[pk] - level) for pk in movers},
                    "cut tie",
                ):
                    return

    def tie(self, sheet, targets: dict[int, int], kind: str) -> bool:
        """Correct the table's last round so that each player of ``targets`` ends on that
        game total (as typed from the paper sheet), if the round's checks allow it."""
        last = sheet.rounds[-1]
        pips = dict(last.pips)
        for pk in last.filled:
            pips.pop(pk, None)
        for pk, total in targets.items():
            if pk not in pips:
                return False
            pips[pk] += total - sheet.totals[pk]
        if any(v < 0 for v in pips.values()):
            return False
        if round_errors(sheet.rules, last.engine, pips) or pips == {
            k: v for k, v in last.pips.items() if k in pips
        }:
            return False
        row = Round.objects.get(table=sheet.table, number=last.number)
        try:
            correct_round(row, pips, self.user, "Typed from the paper sheet")
        except RoundRejected:
            return False
        self.kinds.add(kind)
        return True

    # -- closing ------------------------------------------------------------------------------
    def close(self, stage: Stage) -> None:
        awaiting = list(Round.objects.filter(table__stage=stage, awaiting_confirmation=True))
        override = ""
        if awaiting:
            if self.chance(0.5):
                raise _Stop  # the phones' rounds still await a second player
            for saved in awaiting[1:]:
                confirm_round(saved, user=self.user)
            override = "The second player had left"
        try:
            closed = close_and_seat(stage, self.user, override=override, rng=self.rng)
        except AdvanceError as why:
            self.dead_end(why)
            raise _Stop from None
        if closed.seat_error:
            self.dead_end(closed.seat_error)
            size = getattr(closed, "size_to_allow", None)
            if size is None:
                raise _Stop
            self.seat_next(size)
        self.correction_after_close(stage)

    def correction_after_close(self, stage: Stage) -> None:
        """A score of the closed stage corrected once the next is seated (a 70 typed for a 7):
        the seating conflict it makes is kept ("keep the published seating") or applied."""
        if stage.kind not in (StageKind.QUALIFYING, StageKind.SEMIFINAL):
            return
        if not self.once("correction", 0.6):
            return
        tables = [t for t in Table.objects.for_stage(stage) if table_sheet(t).rounds]
        if not tables:
            return
        sheet = table_sheet(self.rng.choice(tables))
        last = sheet.rounds[-1]
        pips = {pk: v for pk, v in last.pips.items() if pk not in last.filled}
        if len(pips) < 2:
            return
        ordered = sorted(pips, key=lambda pk: sheet.totals[pk])
        low = ordered[0]  # the table's winner falls below everyone: another advances
        pips[low] += sheet.totals[ordered[-1]] - sheet.totals[low] + self.rng.randint(1, 9)
        if round_errors(sheet.rules, last.engine, pips):
            return
        row = Round.objects.get(table=sheet.table, number=last.number)
        try:
            correct_round(row, pips, self.user, "70 typed for 7")
        except RoundRejected:
            return
        self.kinds.add("correction after a close")
        for conflict in seating_conflicts(load_results(self.event)):
            if self.chance(0.7):
                keep_seating(conflict.stage, conflict.division, "Already playing", self.user)
                self.kinds.add("seating kept after a correction")
            else:
                try:
                    apply_correction(conflict.stage, conflict.division, self.user)
                    self.kinds.add("correction applied to the seating")
                except AdvanceError:
                    pass


def make(seed: int, user) -> Made:
    """An event of the seed's kind, run by ``user`` (a director) as far as the seed says."""
    director = Director(seed, user)
    event = director.set_up()
    director.register(event)
    director.run(event)
    return Made(event, seed, director.kinds, director.dead_ends)


# -- the round trip ------------------------------------------------------------------------------


def site_state(event: Event) -> dict:
    """The rows the site keeps of ``event``, by what a reader sees (player ids as in the file,
    stages and tables by number): what export, import and export must give back.

    Left out, as not the event's: users (who entered, logged, directs), phones (devices and
    their fingerprints), table codes, version counters, the history, ratings (a site computes
    its own)."""
    ids = player_ids(event.players.order_by("pk"))
    # Stages in play order (a stage removed leaves a gap in the numbers), seats in seat order
    # (a seat removed leaves a gap in the positions): the order is what a reader sees.
    order = {
        n: i for i, n in enumerate(event.stages.order_by("number").values_list("number", flat=True))
    }
    skip = {"id", "slug", "created", "version", "shared_version", "import_mapping"}
    fields = {
        f.name: getattr(event, f.attname) for f in Event._meta.concrete_fields if f.name not in skip
    }
    players = [
        (ids[p.pk], p.name, p.club, p.division, p.checked_in, p.withdrawn)
        for p in event.players.order_by("pk")
    ]
    stages = []
    for s in event.stages.order_by("number"):
        kept = {d: sorted(ids[pk] for pk in v) for d, v in s.kept_advancers.items()}
        stages.append(
            (
                order[s.number],
                s.name,
                s.kind,
                s.closed,
                s.medal,
                s.division,
                s.auto_name,
                s.playoff_table and (order[s.playoff_table.stage.number], s.playoff_table.number),
                s.wildcards_of and order[s.wildcards_of.number],
                kept,
                s.clock_started_at,
                s.clock_paused_at,
                s.clock_paused_total,
                s.time_called_at,
                s.clock_added,
            )
        )
    tables = [
        (order[t.stage.number], t.number, t.game_over_after, t.rounds_played, t.rounds_awaiting)
        for t in Table.objects.filter(stage__event=event).select_related("stage")
    ]
    seated: dict[tuple[int, int], list] = {}
    for s in (
        Seat.objects.filter(stage__event=event)
        .select_related("stage", "table")
        .order_by("position")
    ):
        key = (order[s.stage.number], s.table.number)
        seated.setdefault(key, []).append((ids[s.player_id], s.left_after, s.joined_at))
    seats = sorted(seated.items())
    rounds = sorted(
        (
            order[r.table.stage.number],
            r.table.number,
            r.number,
            r.engine,
            r.entered_at,
            r.awaiting_confirmation,
        )
        for r in Round.objects.filter(table__stage__event=event).select_related("table__stage")
    )
    scores = Counter(
        (
            order[s.round.table.stage.number],
            s.round.table.number,
            s.round.number,
            ids[s.player_id],
            s.pips,
        )
        for s in Score.objects.filter(round__table__stage__event=event).select_related(
            "round__table__stage"
        )
    )
    changes = Counter(
        (
            order[c.round.table.stage.number],
            c.round.number,
            ids[c.player_id],
            c.old_pips,
            c.new_pips,
            c.reason,
            c.changed_at,
        )
        for c in ScoreChange.objects.filter(round__table__stage__event=event).select_related(
            "round__table__stage"
        )
    )
    infractions = Counter(
        (
            order[i.table.stage.number],
            i.table.number,
            ids[i.player_id],
            i.engine,
            i.kind,
            i.note,
            i.action,
            i.original_action,
            i.change_reason,
            i.logged_at,
            i.changed_at,
        )
        for i in Infraction.objects.filter(table__stage__event=event).select_related("table__stage")
    )
    clock = Counter(
        (order[e.stage.number], e.action, e.at, e.minutes, e.reason)
        for e in ClockEvent.objects.filter(stage__event=event).select_related("stage")
    )
    return {
        "event": fields,
        "players": players,
        "stages": stages,
        "tables": sorted(tables),
        "seats": seats,
        "rounds": rounds,
        "scores": scores,
        "score changes": changes,
        "infractions": infractions,
        "clock events": clock,
    }


def pages(client: Client, event: Event) -> dict[str, str]:
    """The standings, results and medals as the public pages give them: each stage's standings
    (its CSV export), the cumulative standings, the results page's medals and bracket."""
    out = {}
    for i, stage in enumerate(event.stages.order_by("number")):
        answer = client.get(f"/e/{event.slug}/{stage.number}/standings/export/?_export=csv")
        out[f"standings of stages[{i}]"] = answer.content.decode()
    names = ["results", "bracket", *(["standings"] if event.format.is_cumulative else [])]
    for name in names:
        text = client.get(f"/e/{event.slug}/{name}/").content.decode()
        start = text.find("<main")
        out[name] = _visible(text[start : text.find("</main>", start)])
    return out


def _visible(html: str) -> str:
    """The words a page shows, line by line (its markup, row ids and links left out)."""
    import re

    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", "\n", html)
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def results_of(event: Event) -> dict:
    """The results as the site computes them, by player id: advancers, cumulative totals,
    medals, playoffs owed, problems."""
    results = load_results(event)
    ids = player_ids(event.players.order_by("pk"))
    stages = sorted(results.sheets, key=lambda s: s.number)
    return {
        "advancing": {
            i: sorted(ids[p.pk] for p in results.advancing(s))
            for i, s in enumerate(stages)
            if s.closed
        },
        "medals": sorted(
            (
                m.division,
                a.medal,
                tuple(sorted(ids[pk] for pk in a.players)),
                a.as_dict().get("none"),
            )
            for m in results.medals
            for a in m.result.medals
        ),
        "owed": sorted(
            (o.division, o.medal, tuple(sorted(ids[pk] for pk in o.owed.players)))
            for o in results.owed
        ),
        "problems": sorted(map(str, results.problems)),
        "conflicts": sorted(
            (stages.index(c.stage), c.division) for c in seating_conflicts(results)
        ),
    }


@dataclass
class Trip:
    """What came back: the differences found (none: it round-tripped), or why it was refused."""

    refused: str = ""
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.refused and not self.differences


def empty_the_site() -> None:
    Series.objects.all().delete()
    Event.objects.all().delete()


def round_trip(event: Event, upload=None) -> Trip:
    """Export ``event``, import the file into an empty site (``upload(text, slug)``: through
    the import page, else ``import_event``), export again; compare the files, what the public
    pages show (a visitor's), the results and the rows."""
    visitor = Client()
    text = dumps(export_event(event))
    before = (site_state(event), results_of(event), pages(visitor, event))
    slug = event.slug
    empty_the_site()
    try:
        copy = upload(text, slug) if upload else import_event(text, slug=slug)
    except Exception as why:  # noqa: BLE001 (the refusal is the finding)
        return Trip(refused=str(why))
    trip = Trip()
    again = dumps(export_event(copy))
    if again != text:
        trip.differences.append("the file: " + _first_difference(text, again))
    after = (site_state(copy), results_of(copy), pages(visitor, copy))
    for name, was, now in zip(("rows", "results", "pages"), before, after, strict=True):
        for key in was:
            if was[key] != now.get(key):
                trip.differences.append(f"{name}, {key}: {_shown(was[key], now.get(key))}")
    return trip


def _first_difference(a: str, b: str) -> str:
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            return f"line {n}: {x.strip()!r} became {y.strip()!r}"
    return f"{len(a.splitlines())} lines became {len(b.splitlines())}"


def _shown(was, now) -> str:
    if isinstance(was, dict) and isinstance(now, dict):
        keys = [k for k in {**was, **now} if was.get(k) != now.get(k)]
        return "; ".join(f"{k}: {was.get(k)!r} became {now.get(k)!r}" for k in keys[:5])
    if isinstance(was, Counter) and isinstance(now, Counter):
        return f"lost {list((was - now).elements())[:3]}, gained {list((now - was).elements())[:3]}"
    if isinstance(was, list) and isinstance(now, list):
        lost = [x for x in was if x not in now][:3]
        gained = [x for x in now if x not in was][:3]
        return f"lost {lost}, gained {gained}"
    if isinstance(was, str) and isinstance(now, str):
        return _first_difference(was, now)
    return f"{str(was)[:300]!r} became {str(now)[:300]!r}"


def one(seed: int, user, upload=None) -> tuple[Made, Trip]:
    """Make the seed's event and round-trip it, in a transaction rolled back at the end."""
    with transaction.atomic():
        made = make(seed, user)
        trip = round_trip(made.event, upload)
        transaction.set_rollback(True)
    return made, trip
