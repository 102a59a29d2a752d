"""Rows for tests: an event, players, a seated stage, rounds played."""

import datetime
import itertools
import random

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tournament.models import Event, Player
from tournament.services.accounts import ensure_roles
from tournament.services.events import create_event
from tournament.services.seating import seat_stage

_n = itertools.count(1)


def make_director(username=None, password="a-Long-pass-phrase-42"):  # noqa: S107
    ensure_roles()
    user = get_user_model().objects.create_user(
        username or f"director{next(_n)}", password=password
    )
    user.groups.add(Group.objects.get(name="Directors"))
    return user


def make_event(director=None, **fields):
    director = director or make_director()
    n = next(_n)
    event = Event(
        name=fields.pop("name", f"Test Event {n}"),
        slug=fields.pop("slug", f"test-{n}"),
        date=fields.pop("date", datetime.date(2026, 9, 19)),
        **fields,
    )
    return create_event(event, director)


def make_players(event, names=None, count=8, checked_in=True, **fields):
    names = names or [f"Player {i:02d}" for i in range(1, count + 1)]
    return [
        Player.objects.create(event=event, name=name, checked_in=checked_in, **fields)
        for name in names
    ]


def seat(event, players=None, stage_number=1, seed=1):
    stage = event.stages.get(number=stage_number)
    players = players if players is not None else event.players.filter(checked_in=True)
    seat_stage(stage, players, rng=random.Random(seed))
    return stage


def publish_drafts(client, event) -> None:
    """Press Publish on the seating page of every stage of ``event`` seated as a draft (the
    seating page's draw, a stage seated from the close page), as a director does before play."""
    for number in event.stages.filter(seating_draft=True).values_list("number", flat=True):
        client.post(f"/director/e/{event.slug}/{number}/seat/", {"action": "publish"})


def play(table, rounds, user=None, seed=7):
    """Record ``rounds`` valid rounds at ``table``: one player dominoes, the others hold pips."""
    rng = random.Random(seed)
    for _ in range(rounds):
        sheet = table_sheet(table)
        winner = rng.choice(sheet.players)
        record_round(
            table, {p.pk: 0 if p == winner else rng.randint(1, 40) for p in sheet.players}, user
        )


def stale_totals() -> list[str]:
    """Seats and tables whose stored totals (scoring.services.rounds.store_totals) differ from
    their rounds, these worked out here in Python from every score and round in the database."""
    from collections import Counter

    from scoring.models import Round, Score
    from tournament.models import Seat, Table

    entered: Counter = Counter()
    for table_id, player_id, pips in Score.objects.values_list(
        "round__table_id", "player_id", "pips"
    ):
        entered[table_id, player_id] += pips
    played: Counter = Counter()
    waiting: Counter = Counter()
    for table_id, awaiting in Round.objects.values_list("table_id", "awaiting_confirmation"):
        played[table_id] += 1
        waiting[table_id] += awaiting
    seats = Seat.objects.values_list("pk", "table_id", "player_id", "pips_entered")
    tables = Table.objects.values_list("pk", "rounds_played", "rounds_awaiting")
    return [
        f"seat {pk}: {stored} pips stored, {entered[t, p]} entered"
        for pk, t, p, stored in seats
        if stored != entered[t, p]
    ] + [
        f"table {pk}: {n} round(s), {w} awaiting stored; {played[pk]}, {waiting[pk]} entered"
        for pk, n, w in tables
        if (n, w) != (played[pk], waiting[pk])
    ]
