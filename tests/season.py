"""A club's season generated and played by the site's own simulator (issue 45), and the rows
it left in the database read back as plain data for tests/season_spec.py.

``play_season`` makes a series of nights from one club list with no member numbers (names
typed differently from night to night: case, accents, apostrophes; a few players with no
club or another club): knockouts untimed and timed (time called stops most tables), cumulative
nights with and without a Final (medals from the Final, or cumulative plus Final), a cut
playoff where the totals tie at the cut, two nights on one date, late arrivals, players who
withdraw between games and during one. Every night is played to its medals by
``scoring.services.simulation`` as a director runs it.
"""

from __future__ import annotations

import datetime
import random

from scoring.models import PersonLink, Round, Score, SeriesEvent
from scoring.results import load_results
from scoring.services.rounds import record_round
from scoring.services.simulation import (
    next_stage_to_play,
    play_to_medals,
    seat_first_game,
    simulate_stage,
    simulate_table,
)
from scoring.services.stages import close_and_seat
from scoring.sheets import table_sheet
from tests.factories import make_event
from tests.season_spec import Season, SEvent, SPlayer, SStage, STable
from tournament.game.simulator import game_rng, play_timed_game
from tournament.models import Event, Player, Seat, Stage, StageKind, Table
from tournament.services.seating import seat_late_arrival, withdraw_player

CLUB = "Rivertown Domino Club"
# A club's list: each night's typist spells some names their own way.
NAMES = [
    ("José Núñez", "jose nunez"),
    ("Ann O'Brien", "Ann O’Brien"),
    ("Bo Diaz", "BO DIAZ"),
    ("Cy Young", "Cy  Young"),
    ("Di Hart", "di hart"),
    ("Ed Lamb", "Ed Lamb"),
    ("Flo Rida", "Flo Rida"),
    ("Gus Grey", "Gus Gray"),  # another spelling: another person
    ("Hal Bent", "Hal Bent"),
    ("Ida Bell", "Ida Bell"),
    ("Jo Marsh", "Jo Marsh"),
    ("Kit Lowe", "Kit Lowe"),
    ("Lu Chen", "Lu Chen"),
    ("Mo Reyes", "Mo Reyes"),
    ("Ned Ross", "Ned Ross"),
]

# (name, short name, day, fields); two nights on day 22
NIGHTS = [
    ("Knockout night", "ko-night", 8, {"engines": [3, 2, 1, 0], "game_minutes": None}),
    ("Timed night", "timed-night", 15, {"game_minutes": 60}),
    (
        "Cut night",
        "cut-night",
        22,
        {
            "engines": [1, 0],
            "game_minutes": None,
            "format_kind": "cumulative_final",
            "format_games": 2,
            "advancement_tie": "playoff",
        },
    ),
    (
        "Cumulative afternoon",
        "cumulative-afternoon",
        22,
        {"format_kind": "cumulative", "format_games": 2, "game_minutes": 60},
    ),
    (
        "Final evening",
        "final-evening",
        29,
        {
            "engines": [2, 1, 0],
            "game_minutes": None,
            "format_kind": "cumulative_final",
            "format_games": 2,
            "format_medals_from": "cumulative_plus_final",
        },
    ),
]


def night(director, rng: random.Random, name: str, slug: str, day: int, fields: dict) -> Event:
    """One night of the season: 9 to 13 of the club list, a few typed differently, one with no
    club and one of another club now and then."""
    fields = {"medal_tie": rng.choice(["nvso", "shared", "playoff"]), **fields}
    event = make_event(
        director,
        name=name,
        slug=slug,
        date=datetime.date(2026, 1, day),
        late_arrivals=True,
        **fields,
    )
    chosen = rng.sample(NAMES, rng.randint(9, 13))
    for i, (name_, typed) in enumerate(chosen):
        club = CLUB
        if i == 0 and rng.random() < 0.5:
            club = ""
        elif i == 1 and rng.random() < 0.3:
            club = "Lakeside"
        Player.objects.create(
            event=event,
            name=typed if rng.random() < 0.4 else name_,
            club=club.upper() if rng.random() < 0.2 else club,
            checked_in=True,
        )
    return event


def late_and_withdrawn(event: Event, rng: random.Random, seed: int, minutes: int) -> None:
    """Game 1 seated; one table plays its first round; a late arrival joins it, and a player
    of another table withdraws after that table's first round."""
    late = event.players.order_by("pk").last()
    late.checked_in = False
    late.save(update_fields=["checked_in"])
    seat_first_game(event, rng)
    tables = list(Table.objects.filter(stage__event=event, seats__isnull=False).distinct())
    tables = sorted(tables, key=lambda t: t.number)
    first = min(tables, key=lambda t: t.seats.count())
    simulate_table(first, seed, rounds=1)
    stage = first.stage
    seat_late_arrival(stage, late, first)
    finish(first, seed, minutes)
    others = [t for t in tables if t != first]
    if others and rng.random() < 0.7:
        table = others[0]
        simulate_table(table, seed, rounds=1)
        leaving = table.seats.order_by("position").first().player
        withdraw_player(leaving, reason="unwell")
        finish(table, seed, minutes)


def finish(table: Table, seed: int, minutes: int) -> None:
    """The rest of a table's game as the simulator plays it (its own random stream), each
    round entered for the players who play it: the simulator's own ``simulate_table`` enters
    a pip count for every seat, which a table with a late arrival's missed rounds or a player
    who withdrew refuses."""
    sheet = table_sheet(table)
    game = play_timed_game(
        sheet.rules,
        sheet.engines,
        len(sheet.players),
        game_rng(seed, table.stage.number, table.number),
        minutes,
        sheet.rules.game_minutes,
    )
    for i in range(len(sheet.rounds), len(game.rounds)):
        pips = {
            p.pk: game.rounds[i].pips[seat]
            for seat, p in enumerate(sheet.players)
            if sheet.plays(p.pk, i + 1)
        }
        record_round(table, pips, None, sheet.engines[i], number=i + 1)


def between_games(event: Event, rng: random.Random, seed: int, minutes: int) -> None:
    """Game 1 played and closed (the next game seated), then a player withdraws."""
    if not Seat.objects.filter(stage__event=event).exists():
        seat_first_game(event, rng)
    stage = next_stage_to_play(event)
    simulate_stage(stage, seed, minutes_per_round=minutes)
    stage.refresh_from_db()
    if not stage.closed:
        close_and_seat(stage, None, rng=rng)
    seated = Player.objects.filter(event=event, withdrawn=False, seats__stage__closed=False)
    leaving = seated.order_by("pk").first()
    if leaving is not None:
        withdraw_player(leaving, reason="called away")


def play_season(director, seed: int, series) -> list[Event]:
    """Every night played to its medals, each added to ``series``."""
    rng = random.Random(seed)
    events = []
    for name, slug, day, fields in NIGHTS:
        event = night(director, rng, name, f"{slug}-{seed}", day, fields)
        minutes = rng.choice([8, 10, 12])
        if rng.random() < 0.6:
            late_and_withdrawn(event, rng, seed, minutes)
        if event.format.is_cumulative and rng.random() < 0.6:
            between_games(event, rng, seed, minutes)
        play_to_medals(event, seed, minutes_per_round=minutes)
        SeriesEvent.objects.create(series=series, event=event)
        events.append(event)
    return events


# -- the rows, read back -------------------------------------------------------------------------


def read_season(series=None) -> Season:
    """The whole site's events as plain rows (the ORM's rows only; the medals, §7, as the
    site's results give them), and ``series``' settings and events."""
    players = {
        p.pk: SPlayer(p.pk, p.event_id, p.name, p.club, p.division, p.withdrawn)
        for p in Player.objects.all()
    }
    seats: dict[int, list] = {}
    for s in Seat.objects.order_by("table_id", "position"):
        seats.setdefault(s.table_id, []).append((s.player_id, s.joined_at, s.left_after))
    pips: dict[int, dict[int, int]] = {}
    for round_id, player_id, count in Score.objects.values_list("round_id", "player_id", "pips"):
        pips.setdefault(round_id, {})[player_id] = count
    rounds: dict[int, list] = {}
    for r in Round.objects.order_by("table_id", "number"):
        rounds.setdefault(r.table_id, []).append(pips.get(r.pk, {}))
    tables: dict[int, list[STable]] = {}
    for t in Table.objects.order_by("stage_id", "number"):
        tables.setdefault(t.stage_id, []).append(
            STable(t.pk, t.number, seats.get(t.pk, []), rounds.get(t.pk, []), t.game_over_after)
        )
    events = []
    for e in Event.objects.order_by("pk"):
        stages = [
            SStage(s.number, s.kind, s.closed, [t for t in tables.get(s.pk, []) if t.seats])
            for s in Stage.objects.filter(event=e).order_by("number")
        ]
        events.append(
            SEvent(
                e.pk,
                e.slug,
                e.name,
                e.date,
                len(e.engines),
                e.format_kind,
                e.format_games,
                e.format_medals_from,
                stages,
                load_results(e).medal_of(),
            )
        )
    links = [
        (a, b, getattr(link, "same", True))
        for link in PersonLink.objects.order_by("pk")
        for a, b in [(link.first_id, link.second_id)]
    ]
    season = Season(events, players, links)
    if series is not None:
        season.series = list(
            SeriesEvent.objects.filter(series=series).values_list("event_id", flat=True)
        )
        season.scoring = series.scoring
        season.points = tuple(series.points)
        season.medal_bonus = tuple(series.medal_bonus)
        season.best_of = series.best_of
        season.tie_break = series.tie_break
    return season


def cut_playoffs(events: list[Event]) -> int:
    return Stage.objects.filter(
        event__in=events, kind=StageKind.PLAYOFF, wildcards_of__isnull=False
    ).count()
