"""Load the demo event (idempotent: an existing demo event is left as it is)."""

import datetime
import random

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand
from django.db import transaction

from scoring.services import record_round
from scoring.sheets import stage_sheets
from tournament.models import Event, Player
from tournament.services import create_event, seat_stage

DEMO_SLUG = "demo"
DEMO_PLAYERS = [
    "Ann Lee",
    "Bo Diaz",
    "Carmen Ortiz",
    "Dale Whitfield",
    "Edith Nakamura",
    "Frank Osei",
    "Gloria Reyes",
    "Hal Petersen",
    "Irene Kowalski",
    "José Álvarez",
    "Kay Thompson",
    "Lou Brennan",
    "Marguerite Lefèvre-Dubois",
    "Ned Alvarado",
    "Olive Chen",
    "Pat Murphy",
    "Rosa Delgado",
    "Sam Whitaker",
]


class Command(BaseCommand):
    help = "Load the demo event: 18 players seated at Game 1 with its first rounds played."

    @transaction.atomic
    def handle(self, *args, **options):
        if Event.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write("Demo event already loaded.")
            return
        director = get_user_model().objects.filter(username="director").first()
        event = Event(
            name="Demo Senior Games Mexican Train",
            slug=DEMO_SLUG,
            date=datetime.date(2026, 9, 19),
            venue="Community Center",
        )
        create_event(event, director)
        Player.objects.bulk_create(
            Player(event=event, name=name, ref=f"p{i}", checked_in=True)
            for i, name in enumerate(DEMO_PLAYERS, start=1)
        )
        rng = random.Random(2019)
        game1 = event.stages.get(number=1)
        seat_stage(game1, event.players.all(), rng=rng)
        for sheet in stage_sheets(game1):
            for engine in event.engines[: rng.randint(3, 6)]:
                winner = rng.choice(sheet.players)
                pips = {p.pk: 0 if p == winner else rng.randint(2, 60) for p in sheet.players}
                record_round(sheet.table, pips, director, engine=engine)
        self.stdout.write(self.style.SUCCESS(f"Demo event loaded: /e/{DEMO_SLUG}/"))
