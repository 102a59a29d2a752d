"""Load the demo event (idempotent: an existing demo event is left as it is).

The demo is one of the example event files, tests/data/demo-event.json: 18 players seated at
the five tables of Game 1, with its first rounds played and two infractions logged. It is read
by the same importer as any event file, so the demo is also a check that the importer works.
Its rounds are played by the rules engine: ``manage.py make_demo_file`` writes them.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand

from scoring.eventfile import import_event
from tournament.models import Event

DEMO_SLUG = "demo"
DEMO_FILE = Path(__file__).resolve().parents[3] / "tests" / "data" / "demo-event.json"


class Command(BaseCommand):
    help = "Load the demo event: 18 players seated at Game 1 with its first rounds played."

    def handle(self, *args, **options):
        if Event.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write("Demo event already loaded.")
            return
        director = get_user_model().objects.filter(username="director").first()
        import_event(DEMO_FILE.read_bytes(), director=director, slug=DEMO_SLUG)
        self.stdout.write(self.style.SUCCESS(f"Demo event loaded: /e/{DEMO_SLUG}/"))
