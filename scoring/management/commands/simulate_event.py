"""Fill a stage's tables with rounds played by the rules engine (tournament/game/simulator/).

    python manage.py simulate_event EVENT [--seed N] [--stage S] [--minutes-per-round M]

Each table's rounds are entered through ``scoring.services.rounds.record_round`` (via
``scoring.services.simulation``) by the event's first director, or by nobody when it has
none, so the round check and the event's history apply. A timed stage's clock is started if
it was not; when time stops a table's simulated game, time is called and the table's game is
marked over after its last round (``scoring.services.rounds.end_game``). All or nothing
(``scoring.services.simulation.simulate_stage``): if anything is refused, nothing is saved.
"""

from __future__ import annotations

import argparse
import random

from django.core.management import BaseCommand, CommandError
from django.utils import timezone

from scoring.services.rounds import RoundRejected
from scoring.services.simulation import (
    MINUTES_PER_ROUND,
    SimulationRefused,
    TablePlay,
    simulate_stage,
)
from tournament.clock import clock_time, stage_clock
from tournament.game.clock import ClockError
from tournament.models import Event, Stage


def _minutes(value: str) -> float:
    try:
        minutes = float(value)
    except ValueError:
        minutes = 0
    if not 0 < minutes < 24 * 60:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of minutes above 0")
    return minutes


def _rounds(count: int) -> str:
    return f"{count} round{'s' if count != 1 else ''}"


class Command(BaseCommand):
    help = (
        "Fill a stage's tables with simulated rounds, entered as a director enters them; "
        "a timed stage stops where time would be called."
    )

    def add_arguments(self, parser):
        parser.add_argument("event", metavar="EVENT", help="the event's short name")
        parser.add_argument("--seed", type=int, help="the same seed plays the same rounds")
        parser.add_argument(
            "--stage",
            type=int,
            metavar="S",
            help="the stage's number (default: the first open stage with players seated)",
        )
        parser.add_argument(
            "--minutes-per-round",
            type=_minutes,
            default=MINUTES_PER_ROUND,
            metavar="M",
            help=f"about how long a round takes (default {MINUTES_PER_ROUND})",
        )

    def handle(self, *args, event, seed=None, stage=None, minutes_per_round, **options):
        found = Event.objects.filter(slug=event).first()
        if found is None:
            raise CommandError(f"No event has the short name {event!r}.")
        event = found
        stage = self._stage(event, stage)
        self._not_called(stage)
        user = event.directors.order_by("pk").first()
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        try:
            plays = simulate_stage(stage, seed, user, minutes_per_round)
        except (SimulationRefused, RoundRejected, ClockError) as why:
            raise CommandError(f"Nothing was saved: {why}") from None
        stopped = [p for p in plays if p.game_over_after is not None]
        for play in plays:
            self.stdout.write(self._line(play, event.round_in_progress))
        if stopped:
            self.stdout.write(
                f"Time called on {stage.name}; the game of {len(stopped)} table"
                f"{'s' if len(stopped) != 1 else ''} marked over."
            )
        entered = sum(len(p.entered) for p in plays)
        self.stdout.write(
            self.style.SUCCESS(
                f"{_rounds(entered)} simulated and entered at "
                f"{len(plays)} table{'s' if len(plays) != 1 else ''} of {stage.name} "
                f"(seed {seed})."
            )
        )

    def _stage(self, event: Event, number: int | None) -> Stage:
        if number is None:
            stage = (
                event.stages.open().filter(seats__isnull=False).distinct().order_by("number")
            ).first()
            if stage is None:
                raise CommandError(f"No open stage of {event} has players seated: seat one first.")
            return stage
        stage = event.stages.filter(number=number).first()
        if stage is None:
            known = ", ".join(f"{s.number} ({s.name})" for s in event.stages.order_by("number"))
            raise CommandError(f"{event} has no stage {number}; its stages are {known}.")
        if stage.closed:
            raise CommandError(f"{stage.name} is closed: no more rounds can be entered.")
        if not stage.seats.exists():
            raise CommandError(f"Nobody is seated in {stage.name}: seat it first.")
        return stage

    def _not_called(self, stage: Stage) -> None:
        """A game whose time has already been called cannot be played from its start (a timed
        stage's clock not started yet is started by ``simulate_stage``)."""
        if not stage.event.game_minutes:
            return
        called = stage_clock(stage).effective_time_called_at(timezone.now())
        if called is not None:
            raise CommandError(
                f"Time was called on {stage.name} at {clock_time(called)}: a simulated game is "
                "played from its start, so no rounds were entered."
            )

    @staticmethod
    def _line(play: TablePlay, round_in_progress: str) -> str:
        engines = play.engines
        if play.entered:
            first, last = play.entered[0].engine, play.entered[-1].engine
            span = f"{first}-{first}" + (f" to {last}-{last}" if last != first else "")
            blocked = f", {play.blocked} blocked" if play.blocked else ""
            what = f"entered {span} ({_rounds(len(play.entered))}{blocked})"
        else:
            what = f"nothing to enter ({_rounds(play.before)} already)"
        if play.game_over_after is not None:
            count = play.game_over_after
            last = f"{engines[count - 1]}-{engines[count - 1]}" if count else "no round"
            rule = "is void" if round_in_progress == "void" else "is finished and counts"
            what += f"; time called, game over after {last} (the round in progress {rule})"
        return f"Table {play.table.number}: {what}."
