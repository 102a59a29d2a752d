"""Simulated play entered as a director enters it: rounds played by the rules engine
(tournament/game/simulator/), saved through ``scoring.services.rounds.record_round`` so the
round check and the record of who entered each round apply.

Used by ``manage.py simulate_event`` (``simulate_stage``) and by the benchmark (tests/bench.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import Round
from scoring.services.rounds import RoundRejected, end_game, record_round
from scoring.sheets import table_sheet
from tournament.clock import stage_clock
from tournament.game.simulator import BLOCKED, DealError, RoundResult, game_rng, play_timed_game
from tournament.models import Stage, Table
from tournament.refusals import Refusal
from tournament.services.clock import call_time, start_clock

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
    rules, engines, players = sheet.rules, sheet.engines, sheet.players
    rng = game_rng(seed, table.stage.number, table.number)
    limit = None if sheet.is_playoff else rules.game_minutes
    try:
        game = play_timed_game(rules, engines, len(players), rng, minutes_per_round, limit, rounds)
    except DealError as why:
        raise SimulationRefused(_("%(table)s: %(why)s") % {"table": table, "why": why}) from None
    results = game.rounds
    entered = []
    for i in range(len(sheet.rounds), len(results)):
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
    if stage.event.game_minutes and stage_clock(stage).started_at is None:
        start_clock(stage, user)
    plays = [simulate_table(t, seed, user, None, minutes_per_round) for t in tables]
    stopped = [p for p in plays if p.game_over_after is not None]
    if stopped:
        call_time(stage, user)
        for play in stopped:
            end_game(play.table, play.game_over_after, user)
    return plays
