"""The games the ratings are computed from (issue 31 item 2; PRODUCT.md §13), read from the
whole history in a fixed number of queries whatever its size.

A rated game is a table of a closed stage that is not a playoff (a game of a cumulative event,
a knockout stage, a Final) whose game ended (issue 45 item 2, PRODUCT.md §5 and §13): every
engine played, or its last round marked as the last once time was called (most timed games end
so), rated on the rounds it played. Its players are ranked by their game total as the table
ranked them (lower is better, equal totals tie): a late arrival's total counts the rounds
missed at the table's highest, as the sheet does; a player who withdrew during the game has no
place at the table and is left out; a game needs two players left. Totals are the stored ones
(``Seat.pips_entered``, kept by scoring.services.rounds.store_totals), plus the missed rounds
of late arrivals (their tables' pip counts alone are loaded).

Players are people: scoring/archive.py ``people`` (tournament/game/people.py: the same name or
id within the same club, or linked by a director, unless a director said otherwise), as the
series count them. A person is numbered by what they are, not by the order rows were entered
in: by their first player's event date, event short name, name and id. Games are replayed in the
order of their event's date (then its short name), stage and table, so the same history gives
the same ratings whatever the order it was entered or imported in.

``fingerprint`` is a hash of all that the ratings are made of (the games, who is who, the
events' dates): a change that touches none of it (a round saved at a table still playing)
computes nothing (scoring/services/ratings.py).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from scoring.archive import people
from scoring.models import Score
from tournament.models import Event, Player, Seat, Stage, StageKind, Table


@dataclass(frozen=True)
class EventInfo:
    pk: int
    date: date
    slug: str

    @property
    def order(self) -> tuple[date, str, int]:
        return (self.date, self.slug, self.pk)


@dataclass(frozen=True)
class Game:
    """One finished table: each person's game total and the player they played as."""

    event: int  # event id
    stage: int  # stage number
    table: int  # table number
    totals: dict[int, int]  # person -> game total
    players: dict[int, int]  # person -> player id


@dataclass
class History:
    games: list[Game]  # in the order they are replayed
    events: dict[int, EventInfo]  # every event
    person_of: dict[int, int]  # every player id -> their person
    players_of: dict[int, list[int]] = field(default_factory=dict)  # person -> player ids
    latest: dict[int, int] = field(default_factory=dict)  # person -> their latest player
    fingerprint: str = ""


def read_history() -> History:
    """Every rated game of every event, in replay order, and who is who (a fixed number of
    queries)."""
    events = {
        e.pk: (EventInfo(e.pk, e.date, e.slug), len(e.rules.engines))
        for e in Event.objects.order_by()
    }
    info = {pk: ev for pk, (ev, _) in events.items()}
    rated_stages = Stage.objects.filter(closed=True).exclude(kind=StageKind.PLAYOFF).order_by()
    stages = {
        pk: (event_id, n)
        for pk, event_id, n in rated_stages.values_list("pk", "event_id", "number")
        if event_id in events  # not an event made while this was read
    }
    tables = {
        pk: (stage_id, number, played)
        for pk, stage_id, number, played, over in Table.objects.filter(stage_id__in=rated_stages)
        .order_by()
        .values_list("pk", "stage_id", "number", "rounds_played", "game_over_after")
        if stage_id in stages and ended(played, over, events[stages[stage_id][0]][1])
    }
    seated: dict[int, list[tuple[int, int]]] = defaultdict(list)
    late: dict[int, dict[int, int]] = defaultdict(dict)  # table -> late arrival -> first round
    seats = Seat.objects.filter(stage_id__in=rated_stages).order_by("table_id", "position")
    for table_id, player_id, total, joined_at, left_after in seats.values_list(
        "table_id", "player_id", "pips_entered", "joined_at", "left_after"
    ):
        if table_id in tables and left_after is None:
            seated[table_id].append((player_id, total))
            if joined_at is not None:
                late[table_id][player_id] = joined_at
    missed = missed_rounds(late)
    for table_id, arrivals in missed.items():
        seated[table_id] = [(pk, total + arrivals.get(pk, 0)) for pk, total in seated[table_id]]

    root_of = people().person_of
    players = {
        pk: (event_id, name, ref)
        for pk, event_id, name, ref in Player.objects.order_by().values_list(
            "pk", "event_id", "name", "ref"
        )
        if pk in root_of
    }

    def what(pk: int):  # a player by what they are: event date and short name, name, id
        event_id, name, ref = players[pk]
        return (*info[event_id].order[:2], name, ref, pk)

    members: dict[int, list[int]] = defaultdict(list)
    for pk in players:
        members[root_of[pk]].append(pk)
    roots = sorted(members, key=lambda root: min(what(pk) for pk in members[root]))
    number = {root: i for i, root in enumerate(roots)}
    person_of = {pk: number[root_of[pk]] for pk in players}
    players_of = {number[root]: sorted(members[root]) for root in roots}
    latest = {
        person: max(pks, key=lambda pk: (info[players[pk][0]].order, pk))
        for person, pks in players_of.items()
    }

    games = []
    for table_id, (stage_id, table_number, _) in tables.items():
        totals: dict[int, int] = {}
        played_as: dict[int, int] = {}
        for player_id, total in seated[table_id]:
            person = person_of.get(player_id)  # None: deleted while this was read
            if (
                person is not None and person not in totals
            ):  # one person twice at a table: the first seat counts
                totals[person], played_as[person] = total, player_id
        if len(totals) >= 2:
            event_id, stage_number = stages[stage_id]
            games.append(Game(event_id, stage_number, table_number, totals, played_as))
    games.sort(key=lambda g: (info[g.event].order, g.stage, g.table))
    history = History(games, info, person_of, players_of, latest)
    history.fingerprint = fingerprint(history)
    return history


def ended(played: int, over_after: int | None, engines: int) -> bool:
    """A table's game has ended (PRODUCT.md §5): its last round was played, or marked as the
    last once time was called; it is rated on the rounds it played (at least one)."""
    return played >= 1 and (played >= engines or over_after is not None)


def missed_rounds(late: dict[int, dict[int, int]]) -> dict[int, dict[int, int]]:
    """Table -> late arrival -> what the rounds they missed add to their total: each round
    before their first scores the table's highest of that round (the event's late-arrival
    rule, as the sheet fills them in). One query, over the tables with a late arrival only."""
    if not late:
        return {}
    highest: dict[tuple[int, int], int] = {}
    rows = Score.objects.filter(round__table_id__in=late).order_by()
    for table_id, number, player_id, pips in rows.values_list(
        "round__table_id", "round__number", "player_id", "pips"
    ):
        if number < late[table_id].get(player_id, 0):
            continue  # a count saved for a round before the player joined is not theirs
        highest[table_id, number] = max(highest.get((table_id, number), 0), pips)
    return {
        table_id: {
            pk: sum(highest.get((table_id, n), 0) for n in range(1, first))
            for pk, first in arrivals.items()
        }
        for table_id, arrivals in late.items()
    }


def fingerprint(history: History) -> str:
    """A hash of what the ratings are made of: the games in their order (event, stage, table,
    each person's player and total), every player's person, the events' dates."""
    digest = hashlib.sha256()
    for g in history.games:
        cells = ",".join(f"{p}:{g.players[p]}:{t}" for p, t in sorted(g.totals.items()))
        digest.update(f"g{g.event}.{g.stage}.{g.table}|{cells};".encode())
    for pk, person in sorted(history.person_of.items()):
        digest.update(f"p{pk}:{person};".encode())
    for pk, e in sorted(history.events.items()):
        digest.update(f"e{pk}:{e.date.isoformat()}:{e.slug};".encode())
    return digest.hexdigest()
