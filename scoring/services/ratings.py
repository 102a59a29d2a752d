"""The ratings' rows (issue 31 item 2; PRODUCT.md §13): computed from the whole history,
never entered.

``compute_ratings`` replays every rated game (scoring/ratings.py ``read_history``) with
tournament/game/ratings.py's rule and replaces, in one transaction, every ``Rating`` (a
person's rating after their last game, shown under their latest player), ``RatingPoint`` (a
person's rating after each event they played a rated game in) and ``RatedPlayer`` (each
player of a rated person, in every event, also one not yet played: seeding by rating reads
it). When the history's fingerprint is the one of the rows there, nothing is written.

It runs in the background (scoring/tasks.py ``compute_ratings``), asked for by every
committed change of an event (``ask_for_ratings``: one task waits at a time), or by
``manage.py compute_ratings``. Two computations at once write one after the other (the state's
row is locked); one whose history changed while it was read reads it again, so the rows left
are never older than the last computation's reading.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState
from scoring.ratings import History, read_history
from tournament.game import ratings as rule
from tournament.models import Event

STATE = 1  # the one row of RatingsState
ATTEMPTS = 3  # readings of a history that keeps changing before its rows are written anyway
BATCH = 2000
ROWS_PER_INSERT = 500  # 3,500 parameters at most: within SQLite's and PostgreSQL's limits


@dataclass(frozen=True)
class Outcome:
    """What a computation did: ``written`` False when the rows were already those of the
    history (its fingerprint unchanged)."""

    written: bool
    games: int
    people: int
    events: int
    seconds: float


@dataclass(frozen=True)
class _Rows:
    ratings: dict[int, rule.Rating]  # person -> rating after their last game
    points: list[tuple[int, int, int, rule.Rating]]  # (person, event, player, rating after)
    events: dict[int, int]  # person -> events with a rated game


def replay(history: History) -> _Rows:
    """Every person's rating after each event and after the last game (pure)."""
    ratings: dict[int, rule.Rating] = {}
    points: list[tuple[int, int, int, rule.Rating]] = []
    events: dict[int, int] = {}
    for event, games in groupby(history.games, key=attrgetter("event")):
        played: dict[int, int] = {}  # person -> their player in this event
        for game in games:
            ratings.update(rule.rate_game(ratings, game.totals))
            for person, player in game.players.items():
                played.setdefault(person, player)
        for person in sorted(played):
            points.append((person, event, played[person], ratings[person]))
            events[person] = events.get(person, 0) + 1
    return _Rows(ratings, points, events)


def _state() -> RatingsState:
    state = RatingsState.objects.filter(pk=STATE).first()
    if state is not None:
        return state
    try:
        with transaction.atomic():
            return RatingsState.objects.create(pk=STATE)
    except IntegrityError:  # made by another process meanwhile
        return RatingsState.objects.get(pk=STATE)


def _events_token() -> str:
    """Every event's version (bumped in the transaction of each of its changes): the same
    before and after a reading, nothing was committed in between."""
    rows = Event.objects.order_by("pk").values_list("pk", "version")
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()


def compute_ratings(*, force: bool = False) -> Outcome:
    """Compute the ratings from the whole history and replace their rows, unless the rows
    there are already this history's (``force``: write them anyway)."""
    began = time.monotonic()
    _state()
    for attempt in range(ATTEMPTS):
        before = _events_token()
        history = read_history()
        stored = RatingsState.objects.filter(pk=STATE).values_list("fingerprint", flat=True)
        if not force and stored.first() == history.fingerprint:
            return _outcome(history, False, began)
        rows = replay(history)
        with transaction.atomic():
            state = RatingsState.objects.select_for_update().get(pk=STATE)
            if not force and state.fingerprint == history.fingerprint:
                return _outcome(history, False, began)  # another computation wrote them
            if _events_token() != before and attempt < ATTEMPTS - 1:
                continue  # a change was committed while the history was read: read it again
            _write(history, rows)
            state.fingerprint = history.fingerprint
            state.computed_at = timezone.now()
            state.games = len(history.games)
            state.save(update_fields=["fingerprint", "computed_at", "games"])
            return _outcome(history, True, began)
    raise AssertionError("unreachable: the last attempt writes")  # pragma: no cover


def _outcome(history: History, written: bool, began: float) -> Outcome:
    people = {p for g in history.games for p in g.totals}
    events = {g.event for g in history.games}
    return Outcome(written, len(history.games), len(people), len(events), time.monotonic() - began)


def _write(history: History, rows: _Rows) -> None:
    RatedPlayer.objects.all().delete()
    RatingPoint.objects.all().delete()
    Rating.objects.all().delete()
    # Highest first (then by person): the rows' own order is the leaderboard's.
    people = sorted(rows.ratings, key=lambda p: (-rows.ratings[p].shown, p))
    made = Rating.objects.bulk_create(
        (
            Rating(
                player_id=history.latest[p],
                mu=rows.ratings[p].mu,
                sigma=rows.ratings[p].sigma,
                score=rows.ratings[p].shown,
                games=rows.ratings[p].games,
                events=rows.events[p],
            )
            for p in people
        ),
        batch_size=BATCH,
    )
    rating_of = {p: r.pk for p, r in zip(people, made, strict=True)}
    _insert(
        RatingPoint,
        ["rating_id", "player_id", "event_id", "mu", "sigma", "score", "games"],
        (
            (rating_of[person], player, event, r.mu, r.sigma, r.shown, r.games)
            for person, event, player, r in sorted(rows.points, key=lambda pt: pt[0])
        ),
    )
    _insert(
        RatedPlayer,
        ["player_id", "rating_id"],
        ((player, rating_of[person]) for person in people for player in history.players_of[person]),
    )


def _insert(model, columns: list[str], rows) -> None:
    """Insert plain rows, many to a statement: the 10,000 points of a history of 500 events
    cost 0.2 s this way, 4 s as model instances (bulk_create's work per field), while the
    hall's writes wait."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    names = ", ".join(quote(model._meta.get_field(c.removesuffix("_id")).column) for c in columns)
    one = "({})".format(", ".join(["%s"] * len(columns)))
    rows = list(rows)
    with connection.cursor() as cursor:
        for i in range(0, len(rows), ROWS_PER_INSERT):
            batch = rows[i : i + ROWS_PER_INSERT]
            # Names from the model's own table and columns, quoted; the values are parameters.
            sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([one] * len(batch))}"  # noqa: S608
            cursor.execute(sql, [value for row in batch for value in row])


def ask_for_ratings() -> bool:
    """Ask for a computation: True when this call asked first (the caller enqueues the task),
    False when one is asked for already and has not begun (it will read this change)."""
    if RatingsState.objects.filter(pk=STATE, pending=False).update(pending=True):
        return True
    if RatingsState.objects.filter(pk=STATE).exists():
        return False
    try:
        with transaction.atomic():
            RatingsState.objects.create(pk=STATE, pending=True)
    except IntegrityError:  # made by another process meanwhile, which asked
        return False
    return True


def begin_asked() -> None:
    """The asked-for computation begins: a change from now on asks for another one."""
    RatingsState.objects.filter(pk=STATE).update(pending=False)
