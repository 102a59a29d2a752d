"""Load the two demo events (idempotent: a demo event already there is left as it is).

The demo is one of the example event files, tests/data/demo-event.json: 18 players seated at
the five tables of Game 1, with its first rounds played and two infractions logged. It is read
by the same importer as any event file, so the demo is also a check that the importer works.
Its rounds are played by the rules engine: ``manage.py make_demo_file`` writes them.

The second demo is a cumulative event (PRODUCT.md §12), a club night of three untimed games
whose totals add up, tables progressive: 20 players, Game 1 and Game 2 played and closed, Game
3 seated by the progressive rule with its first rounds played. It is played as a director runs
it, through the same services as the pages (Game 1 drawn from the players checked in, each
game closed and the next reseated by ``close_and_seat``), its rounds by the rules engine
(``scoring.services.simulation``), the same seed giving the same event: scoring/services/demo.py.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand

from scoring.eventfile import import_event
from scoring.services.demo import CUMULATIVE_SLUG, load_club_night
from tournament.models import Event

DEMO_SLUG = "demo"
DEMO_FILE = Path(__file__).resolve().parents[3] / "tests" / "data" / "demo-event.json"


class Command(BaseCommand):
    help = (
        "Load the demo events: 18 players seated at Game 1 with its first rounds played, and "
        "a cumulative club night of three games with progressive tables, Game 3 in progress."
    )

    def handle(self, *args, **options):
        director = get_user_model().objects.filter(username="director").first()
        if Event.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write("Demo event already loaded.")
        else:
            import_event(DEMO_FILE.read_bytes(), director=director, slug=DEMO_SLUG)
            self.stdout.write(self.style.SUCCESS(f"Demo event loaded: /e/{DEMO_SLUG}/"))
        if Event.objects.filter(slug=CUMULATIVE_SLUG).exists():
            self.stdout.write("Cumulative demo event already loaded.")
        else:
            load_club_night(director)
            self.stdout.write(
                self.style.SUCCESS(f"Cumulative demo event loaded: /e/{CUMULATIVE_SLUG}/")
            )
