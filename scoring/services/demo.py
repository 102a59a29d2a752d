"""The cumulative demo event (PRODUCT.md §12), a club night of three untimed games whose totals
add up, tables progressive: 20 players, Game 1 and Game 2 played and closed, Game 3 seated by the
progressive rule with its first rounds played. Played as a director runs it, through the same
services as the pages (Game 1 drawn from the players checked in, each game closed and the next
reseated by ``close_and_seat``), its rounds by the rules engine (``simulation``), the same seed
giving the same event. ``manage.py load_demo`` loads it.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone

from scoring.services.simulation import seat_first_game, simulate_stage, simulate_table
from scoring.services.stages import close_and_seat
from tournament.game.formats import CUMULATIVE, PROGRESSIVE
from tournament.models import Event, Player, Table
from tournament.services.events import create_event
from tournament.services.players import add_player, check_in

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
