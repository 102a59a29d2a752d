"""Simulated play entered as a director enters it: rounds played by the rules engine
(tournament/game/simulator/), saved through ``scoring.services.rounds.record_round`` so the
round check and the record of who entered each round apply.

Used by ``manage.py simulate_event`` (``simulate_stage``, and ``play_to_medals`` for a whole
event, stage by stage), by the demo loader (``load_demo``) and by the benchmark (tests/bench.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import Round
from scoring.results import EventResults, divisions_played, load_results
from scoring.services.rounds import RoundRejected, end_game, record_round
from scoring.services.stages import Closed, close_and_seat, draw_first_game, seat_next_stage
from scoring.sheets import table_sheet
from tournament.clock import stage_clock
from tournament.game.simulator import BLOCKED, DealError, RoundResult, game_rng, play_timed_game
from tournament.models import Event, Seat, Stage, Table
from tournament.refusals import Refusal
from tournament.services.clock import call_time, start_clock
from tournament.services.seating import Draw

MINUTES_PER_ROUND = 10  # NVSO's 60-minute game holds about six rounds at a table of four


class SimulationRefused(Refusal):
    """A simulated round could not be entered; the message names the table, round and why."""


@dataclass(frozen=True)
class TablePlay:
    """What the simulated game of one table gave."""

    table: Table
    results: list[RoundResult]  # every round of the game that counts, from the first
    before: int  # rounds the table had already
    entered: list[Round]  # rounds saved now
    engines: tuple[int, ...]  # the game's engines (all the rounds an untimed game plays)

    @property
    def game_over_after(self) -> int | None:
        """The last round, when time called stops the game before its last engine (and the
        table had not already entered more rounds than that); ``None`` otherwise."""
        if self.before <= len(self.results) < len(self.engines):
            return len(self.results)
        return None

    @property
    def blocked(self) -> int:
        return sum(1 for r in self.results[self.before :] if r.ending == BLOCKED)


def simulate_table(
    table: Table,
    seed: int,
    user=None,
    rounds: int | None = None,
    minutes_per_round: float = MINUTES_PER_ROUND,
) -> TablePlay:
    """Play ``table``'s game from its first round and enter the rounds it does not have yet.

    The rounds that count: ``rounds`` when given; otherwise every engine when the event is
    untimed, else those that fit its time limit, each round lasting about ``minutes_per_round``
    (``simulator.rounds_in_time``: the round in progress when time runs out counts under
    "finish", not under "void"). The starter rotates from the first seat; the game's random
    stream is the seed's, the stage's and the table's (``simulator.game_rng``). Raises
    ``SimulationRefused`` if the table cannot be dealt or the site refuses a round.
    """
    sheet = table_sheet(table)
    rules, engines = sheet.rules, sheet.engines
    rng = game_rng(seed, table.stage.number, table.number)
    limit = None if sheet.is_playoff else rules.game_minutes
    # Each round is dealt to the players who play it: a late arrival from the round they
    # joined, a player who withdrew up to the rounds they played.
    playing = [sheet.playing(n) for n in range(1, len(engines) + 1)]
    sizes = [len(players) for players in playing]
    counts = sizes[0] if len(set(sizes)) == 1 else sizes
    try:
        game = play_timed_game(rules, engines, counts, rng, minutes_per_round, limit, rounds)
    except DealError as why:
        raise SimulationRefused(_("%(table)s: %(why)s") % {"table": table, "why": why}) from None
    results = game.rounds
    entered = []
    for i in range(len(sheet.rounds), len(results)):
        players = playing[i]
        pips = {p.pk: results[i].pips[seat] for seat, p in enumerate(players)}
        try:
            entered.append(record_round(table, pips, user, engines[i], number=i + 1))
        except RoundRejected as why:
            shown = ", ".join(f"{p.name} {pips[p.pk]}" for p in players)
            raise SimulationRefused(
                _("%(table)s, round %(e)s-%(e)s (%(pips)s) was refused: %(why)s")
                % {"table": table, "e": engines[i], "pips": shown, "why": why}
            ) from None
    return TablePlay(table, results, len(sheet.rounds), entered, tuple(engines))


@transaction.atomic
def simulate_stage(
    stage: Stage, seed: int, user=None, minutes_per_round: float = MINUTES_PER_ROUND
) -> list[TablePlay]:
    """Play the game of every table of ``stage`` where players sit (``simulate_table``), all
    or nothing. A timed stage's clock is started if it was not; when the simulated hour is
    over, time is called and each table that time stopped is marked "game over after round
    N", as its scorekeeper would. Raises ``SimulationRefused``, ``RoundRejected`` or
    ``ClockError`` (nothing saved)."""
    tables = list(Table.objects.for_stage(stage).filter(seats__isnull=False).distinct())
    clock = stage_clock(stage)
    if clock.timed and clock.started_at is None:
        start_clock(stage, user)
    plays = [simulate_table(t, seed, user, None, minutes_per_round) for t in tables]
    stopped = [p for p in plays if p.game_over_after is not None]
    if stopped:
        call_time(stage, user)
        for play in stopped:
            end_game(play.table, play.game_over_after, user)
    return plays


# A bound on the stages one run plays: a real event has a few dozen at most (games, semifinals,
# Finals of each division, playoffs); past it something keeps asking for more.
MAX_STAGES = 500


@dataclass
class StagePlayed:
    """One stage of ``play_to_medals``: the rounds its tables played and what closing it did
    (``None`` for a playoff, which its round closes)."""

    stage: Stage
    plays: list[TablePlay]
    closed: Closed | None = None


@dataclass
class EventPlayed:
    """What ``play_to_medals`` did: Game 1 seated from the players checked in (or ``None``
    when it was seated already); in order, each stage played and each stage seated by
    ``seat_next_stage`` once the playoff it waited on was played; the results at the end."""

    first_draw: Draw | None
    steps: list[StagePlayed | Stage] = field(default_factory=list)
    results: EventResults | None = None

    @property
    def stages(self) -> list[StagePlayed]:
        return [step for step in self.steps if isinstance(step, StagePlayed)]


def next_stage_to_play(event: Event) -> Stage | None:
    """The first open stage with players seated: where a director enters rounds next."""
    return event.stages.open().filter(seats__isnull=False).distinct().order_by("number").first()


def medals_awarded(results: EventResults) -> bool:
    """Whether every division that played has its medals, and no playoff is owed."""
    divisions = divisions_played(results)
    medalled = {m.division for m in results.medals}
    return bool(divisions) and divisions <= medalled and not results.owed


def seat_first_game(event: Event, rng: random.Random, user=None) -> Draw:
    """Seat Game 1 from the players checked in, as its seating page draws it (a division that
    cannot be seated is left out, and the draw says why)."""
    stage = event.stages.order_by("number").first()
    if stage is None:
        raise SimulationRefused(_("%(event)s has no stages to play.") % {"event": event})
    players = list(event.players.present())
    if not players:
        raise SimulationRefused(
            _("Nobody is checked in: check players in, or seat %(s)s first.") % {"s": stage.title}
        )
    return draw_first_game(stage, players, rng=rng, user=user)


@transaction.atomic
def play_to_medals(
    event: Event, seed: int, user=None, minutes_per_round: float = MINUTES_PER_ROUND
) -> EventPlayed:
    """Play ``event`` to its medals as a director runs it, all or nothing.

    Game 1 is seated from the players checked in if no stage is seated yet. Then, stage after
    stage: every table of the first open seated stage plays its game (``simulate_stage``); a
    game, semifinal or Final is closed through the close page's service
    (``scoring.services.stages.close_and_seat``: playoffs created, the next stage seated by the
    event's format, a cumulative event's next game by its reseating rule), a playoff closes with
    its round. When no seated stage is left open and a stage waits on a playoff played since,
    it is seated (``seat_next_stage``). It stops when every division has its medals. Raises
    ``SimulationRefused``, ``RoundRejected``, ``ClockError`` or ``AdvanceError`` (nothing saved).
    """
    rng = random.Random(seed)
    first = None
    if not Seat.objects.filter(stage__event=event).exists():
        first = seat_first_game(event, rng, user)
    played = EventPlayed(first)
    for _turn in range(MAX_STAGES):
        stage = next_stage_to_play(event)
        if stage is not None:
            plays = simulate_stage(stage, seed, user, minutes_per_round)
            stage.refresh_from_db()
            closed = None if stage.closed else close_and_seat(stage, user, rng=rng)
            played.steps.append(StagePlayed(stage, plays, closed))
            continue
        results = load_results(event)
        if medals_awarded(results):
            played.results = results
            return played
        played.steps.append(seat_next_stage(event, rng=rng, user=user))
    raise SimulationRefused(
        _("%(event)s still had stages to play after %(n)s: stopped.")
        % {"event": event, "n": MAX_STAGES}
    )
