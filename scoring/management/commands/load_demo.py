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
(``scoring.services.simulation``), the same seed giving the same event.
"""

import random
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand
from django.db import transaction
from django.utils import timezone

from scoring.eventfile import import_event
from scoring.services.simulation import seat_first_game, simulate_stage, simulate_table
from scoring.services.stages import close_and_seat
from tournament.game.formats import CUMULATIVE, PROGRESSIVE
from tournament.models import Event, Player, Table
from tournament.services.events import create_event
from tournament.services.players import add_player, check_in

DEMO_SLUG = "demo"
DEMO_FILE = Path(__file__).resolve().parents[3] / "tests" / "data" / "demo-event.json"

CUMULATIVE_SLUG = "demo-club-night"
CUMULATIVE_SEED = 2
# Game 3's tables have played this many rounds, table 1 first: the evening is in progress.
CUMULATIVE_ROUNDS_IN_GAME_3 = (5, 4, 6, 3, 5)
CLUB_NIGHT_PLAYERS = [
    ("Agnes Whitmore", "Riverside Domino Club"),
    ("Bernard Okafor", "Riverside Domino Club"),
    ("Consuelo Vega", "Riverside Domino Club"),
    ("Doris Fairbanks", "Riverside Domino Club"),
    ("Elmer Lindqvist", "Riverside Domino Club"),
    ("Florence Abernathy", "Oak Street Seniors"),
    ("Gus Papadopoulos", "Oak Street Seniors"),
    ("Hattie Moreau", "Oak Street Seniors"),
    ("Ike Tanaka", "Oak Street Seniors"),
    ("June Castellanos", "Oak Street Seniors"),
    ("Karl Brandt", "Library Trains"),
    ("Lorraine Dubé", "Library Trains"),
    ("Manny Soto", "Library Trains"),
    ("Nora Quinlan", "Library Trains"),
    ("Otis Greenberg", "Library Trains"),
    ("Pearl Yamamoto", ""),
    ("Quentin Hale", ""),
    ("Ruth Adeyemi", ""),
    ("Stan Kowalczyk", ""),
    ("Trudy Sørensen", ""),
]


@transaction.atomic
def load_club_night(director, seed: int = CUMULATIVE_SEED) -> Event:
    """The cumulative demo, played as a director runs it (see the module's docstring)."""
    event = create_event(
        Event(
            name="Demo Club Night: three games, totals add up",
            slug=CUMULATIVE_SLUG,
            date=timezone.localdate(),
            venue="Riverside Library, meeting room",
            game_minutes=None,
            format_kind=CUMULATIVE,
            format_games=3,
            format_reseat=PROGRESSIVE,
            format_move=1,
        ),
        director,
    )
    players = [
        add_player(Player(event=event, name=name, club=club), director)
        for name, club in CLUB_NIGHT_PLAYERS
    ]
    check_in(event, [p.pk for p in players], True, director)
    game1 = seat_first_game(event, random.Random(seed), director).tables[0].stage
    game2 = _play_and_close(game1, seed, director)
    game3 = _play_and_close(game2, seed, director)
    tables = Table.objects.for_stage(game3).order_by("number")
    for table, rounds in zip(tables, CUMULATIVE_ROUNDS_IN_GAME_3, strict=False):
        simulate_table(table, seed, director, rounds=rounds)
    return event


def _play_and_close(game, seed: int, director):
    """Every table of ``game`` plays all its rounds; the game is closed from its close page's
    service, which seats the next game by the progressive rule. Returns the next game."""
    simulate_stage(game, seed, director)
    return close_and_seat(game, director).seated


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
