"""Fill a stage's tables with rounds played by the rules engine (tournament/game/simulator/),
or play the whole event to its medals.

    python manage.py simulate_event EVENT [--seed N] [--stage S] [--minutes-per-round M]
    python manage.py simulate_event EVENT --to-medals [--seed N] [--minutes-per-round M]

Each table's rounds are entered through ``scoring.services.rounds.record_round`` (via
``scoring.services.simulation``) by the event's first director, or by nobody when it has
none, so the round check and the event's history apply. A timed stage's clock is started if
it was not; when time stops a table's simulated game, time is called and the table's game is
marked over after its last round (``scoring.services.rounds.end_game``). All or nothing
(``scoring.services.simulation.simulate_stage``): if anything is refused, nothing is saved.

``--to-medals`` plays every stage in turn as a director runs the event, any format
(``scoring.services.simulation.play_to_medals``): Game 1 seated from the players checked in
if nothing is seated yet, each stage played then closed through the close page's service (the
next stage seated by the format: semifinals and Finals, a cumulative event's next game by its
reseating rule, the Final from the cut), playoffs played, until every division has its medals.
All or nothing too.
"""

from __future__ import annotations

import argparse
import random

from django.core.management import BaseCommand, CommandError
from django.utils import timezone

from scoring.results import AdvanceError
from scoring.services.rounds import RoundRejected
from scoring.services.simulation import (
    MINUTES_PER_ROUND,
    EventPlayed,
    SimulationRefused,
    StagePlayed,
    TablePlay,
    next_stage_to_play,
    play_to_medals,
    simulate_stage,
)
from tournament.clock import clock_time, stage_clock
from tournament.game.clock import ClockError
from tournament.game.formats import BY_STANDING, FEWEST_REPEATS, PROGRESSIVE
from tournament.models import Event, Stage, StageKind, Table
from tournament.text import translated


def _minutes(value: str) -> float:
    try:
        minutes = float(value)
    except ValueError:
        minutes = 0
    if not 0 < minutes < 24 * 60:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of minutes above 0")
    return minutes


def _rounds(count: int) -> str:
    return _count(count, "round")


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


RESEATING = {
    FEWEST_REPEATS: "reseated at random, fewest repeated tablemates",
    BY_STANDING: "reseated by standing",
    PROGRESSIVE: "reseated progressively",
}


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
        parser.add_argument(
            "--to-medals",
            action="store_true",
            help=(
                "play every stage in turn, closing each as a director does, until the medals "
                "are awarded (Game 1 is seated from the players checked in if nothing is "
                "seated yet)"
            ),
        )

    def handle(
        self, *args, event, seed=None, stage=None, minutes_per_round, to_medals=False, **options
    ):
        found = Event.objects.filter(slug=event).first()
        if found is None:
            raise CommandError(f"No event has the short name {event!r}.")
        event = found
        if to_medals:
            if stage is not None:
                raise CommandError("--to-medals plays every stage: leave out --stage.")
            self._to_medals(event, seed, minutes_per_round)
            return
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

    def _to_medals(self, event: Event, seed: int | None, minutes_per_round: float) -> None:
        playing = next_stage_to_play(event)
        if playing is not None:
            self._not_called(playing)
        user = event.directors.order_by("pk").first()
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        try:
            played = play_to_medals(event, seed, user, minutes_per_round)
        except (SimulationRefused, RoundRejected, ClockError, AdvanceError) as why:
            raise CommandError(f"Nothing was saved: {why}") from None
        for line in self._event_lines(event, played):
            self.stdout.write(line)
        entered = sum(len(p.entered) for s in played.stages for p in s.plays)
        self.stdout.write(
            self.style.SUCCESS(
                f"{event} played to its medals: {_count(len(played.stages), 'stage')}, "
                f"{_rounds(entered)} simulated and entered (seed {seed})."
            )
        )

    def _event_lines(self, event: Event, played: EventPlayed):
        if played.first_draw is not None:
            tables = played.first_draw.tables
            stage = tables[0].stage if tables else event.stages.order_by("number").first()
            seated = sum(t.seats.count() for t in tables)
            yield (
                f"{stage.title} seated from the {_count(seated, 'player')} checked in: "
                f"{_count(len(tables), 'table')}."
            )
            yield from (translated(reason) for reason in played.first_draw.left_out)
        else:
            first = played.stages[0].stage if played.stages else None
            if first is not None:
                yield f"{first.title} was seated already."
        for step in played.steps:
            if isinstance(step, Stage):  # seated once the playoff it waited on was played
                yield f"{step.title} seated: {self._tables(step)}."
            else:
                yield self._stage_line(event, step)
        players = played.results.players
        for division in played.results.medals:
            awards = []
            for award in division.result.medals:
                if award.players:
                    names = sorted(players[pk].name for pk in award.players)
                    awards.append(f"{award.medal} {', '.join(names)}")
                else:
                    awards.append(f"no {award.medal}")
            label = f"Medals ({division.division})" if division.division else "Medals"
            yield f"{label}: {'; '.join(awards)}."

    def _stage_line(self, event: Event, step: StagePlayed) -> str:
        plays = step.plays
        entered = sum(len(p.entered) for p in plays)
        stopped = sum(1 for p in plays if p.game_over_after is not None)
        line = f"{step.stage.title}: {_rounds(entered)} at {_count(len(plays), 'table')}"
        if stopped:
            line += f", time called (the game of {_count(stopped, 'table')} marked over)"
        closed = step.closed
        if closed is None:
            return line + "; its round decides."
        line += "; closed"
        if closed.playoffs:
            line += f", {', '.join(p.title for p in closed.playoffs)} to play"
        if closed.seated is not None:
            seated = closed.seated
            line += f"; {seated.title} seated: {self._tables(seated)}"
            fmt = event.format
            if fmt.is_cumulative and seated.kind == StageKind.QUALIFYING:
                line += f" ({RESEATING.get(fmt.reseat, fmt.reseat)})"
        return line + "."

    @staticmethod
    def _tables(stage: Stage) -> str:
        tables = Table.objects.filter(stage=stage, seats__isnull=False).distinct().count()
        return _count(tables, "table")

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
