"""Write the demo event file's rounds from a seeded simulation (the rules engine plays them).

    python manage.py make_demo_file [--seed N] [--check]

tests/data/demo-event.json keeps its event, players, seating and two infractions; each table
of Game 1 gets the rounds its simulated game has finished 50 minutes into the hour (an event
in progress, as the demo shows it), each entered the minute it ended, and the infractions are
logged halfway through their round. The same seed writes the same file; ``--check`` says
whether the file is what the seed gives, without writing. Needs no database.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta

from django.core.management import BaseCommand, CommandError

from scoring.eventfile import dumps
from scoring.management.commands.load_demo import DEMO_FILE
from scoring.services.simulation import MINUTES_PER_ROUND
from tournament.game.rules import RuleSet, round_errors
from tournament.game.simulator import game_rng, play_timed_game

DEMO_SEED = 1
DEMO_MINUTES = 50  # the moment the demo shows: Game 1 started at 10:00, it is 10:50
DEMO_START = time(10, 0)


def _rules(rules: dict) -> RuleSet:
    return RuleSet(
        set=rules["set"],
        engines=tuple(rules["engines"]),
        tiles_drawn={int(size): drawn for size, drawn in rules["tiles_drawn"].items()},
        table_size=rules.get("extra", {}).get("table_size", 4),
        game_minutes=rules["game_minutes"],
        round_in_progress=rules["round_in_progress"],
        double_blank_points=rules["double_blank_points"],
    )


def demo_file(text: str, seed: int = DEMO_SEED) -> str:
    """The demo event file ``text`` with Game 1's rounds (and infraction times) simulated."""
    data = json.loads(text)
    rules = _rules(data["event"]["rules"])
    start = datetime.combine(date.fromisoformat(data["event"]["date"]), DEMO_START, tzinfo=UTC)

    def at(minutes: float) -> str:
        return (start + timedelta(minutes=round(minutes))).isoformat()

    for table in data["stages"][0]["tables"]:
        ids = table["players"]
        rng = game_rng(seed, 1, table["number"])
        # The rounds over by DEMO_MINUTES: as if time were called then, the round in play void.
        game = play_timed_game(
            RuleSet(**{**rules.__dict__, "round_in_progress": "void"}),
            rules.engines,
            len(ids),
            rng,
            MINUTES_PER_ROUND,
            DEMO_MINUTES,
        )
        table["rounds"] = []
        for i, played in enumerate(game.rounds):
            pips = dict(zip(ids, played.pips, strict=True))
            refused = round_errors(rules, played.engine, pips)
            if refused:
                why = "; ".join(refused.whole + [m for ms in refused.fields.values() for m in ms])
                raise ValueError(
                    f"Seed {seed}, table {table['number']}, round {played.engine}: the round "
                    f"check refuses {pips} ({why}). Choose another seed."
                )
            table["rounds"].append(
                {
                    "engine": played.engine,
                    "pips": pips,
                    "extra": {"entered_at": at(game.ended_at(i))},
                }
            )
        for infraction in table["infractions"]:
            i = rules.engines.index(infraction["engine"])
            if i > len(game.rounds):
                raise ValueError(
                    f"Seed {seed}: table {table['number']} never reaches round "
                    f"{infraction['engine']}, where an infraction is logged. Choose another seed."
                )
            infraction["extra"]["logged_at"] = at(game.ended_at(i) - game.minutes[i] / 2)
    return dumps(data)


class Command(BaseCommand):
    help = "Write the demo event file's rounds from a seeded simulation."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=DEMO_SEED, help=f"default {DEMO_SEED}")
        parser.add_argument(
            "--check", action="store_true", help="only say whether the file is what the seed gives"
        )

    def handle(self, *args, seed, check, **options):
        old = DEMO_FILE.read_text(encoding="utf-8")
        try:
            new = demo_file(old, seed)
        except ValueError as why:
            raise CommandError(str(why)) from None
        if check:
            if new != old:
                raise CommandError(f"{DEMO_FILE.name} is not what seed {seed} gives.")
            self.stdout.write(f"{DEMO_FILE.name} is what seed {seed} gives.")
            return
        DEMO_FILE.write_text(new, encoding="utf-8")
        self.stdout.write(self.style.SUCCESS(f"Wrote {DEMO_FILE} (seed {seed})."))
