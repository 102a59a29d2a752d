"""Past events, records and a player across events (issue 16 item 3).

What is computed from whole events (medals, records) is kept in Django's cache under the
events' versions (tournament/history.py bumps a version with every change), so a page that
lists past events or records reads each event once per change, not per request.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.db.models import Q

from scoring.models import PersonLink, Series
from scoring.results import load_results
from scoring.sheets import TableSheet, event_sheets
from tournament.game.awards import MEDALS
from tournament.models import Event, Player, StageKind

PAST_EVENTS = 10  # the home page lists this many past events with their medalists


@dataclass(frozen=True)
class Medalist:
    medal: str
    division: str
    names: tuple[str, ...]  # tied players share a medal


def medalists(event: Event) -> list[Medalist]:
    """The event's medals, gold first, per division; kept until the event changes."""

    def compute():
        results = load_results(event)
        players = results.players
        out = []
        for division in results.medals:
            for award in division.result.medals:
                if award.players and not award.pending:
                    names = tuple(players[pk].name for pk in award.players)
                    out.append(Medalist(award.medal, division.division, names))
        return sorted(out, key=lambda m: (m.division, MEDALS.index(m.medal)))

    return cache.get_or_set(f"medalists:{event.pk}:{event.version}", compute)


def past_events(today: date, limit: int = PAST_EVENTS) -> list[tuple[Event, list[Medalist]]]:
    """The latest events held before ``today``, with their medalists (not the archived)."""
    events = Event.objects.listed().filter(date__lt=today).order_by("-date", "name")[:limit]
    return [(e, medalists(e)) for e in events]


@dataclass(frozen=True)
class Record:
    what: str  # "lowest game total", ...
    value: int
    player: str
    event: Event
    stage_number: int
    table_number: int


@dataclass(frozen=True)
class RecordGroup:
    set: int
    table_size: int
    records: tuple[Record, ...]
    sets: int = 1  # two sets mixed deal other games: their records stand apart


LOWEST_GAME = "lowest_game"
MOST_ZEROS = "most_zeros"
LOWEST_FINAL = "lowest_final"
KINDS = (LOWEST_GAME, MOST_ZEROS, LOWEST_FINAL)


def sheet_records(event: Event, sheet: TableSheet) -> list[Record]:
    """What a finished table may hold: each player's game total (every engine played), rounds
    at 0, and, in a Final, the final total. Pure: the sheet is loaded."""
    if not sheet.all_engines_played or sheet.is_playoff:
        return []
    out = []
    stage, table = sheet.table.stage.number, sheet.table.number
    for p in sheet.players:
        if p.pk in sheet.left or p.pk in sheet.joined:
            continue  # a partial game (withdrew, or came late) sets no record
        total = sheet.totals[p.pk]
        zeros = sum(1 for r in sheet.rounds if r.pips.get(p.pk) == 0)
        out.append(Record(LOWEST_GAME, total, p.name, event, stage, table))
        out.append(Record(MOST_ZEROS, zeros, p.name, event, stage, table))
        if sheet.table.stage.kind == StageKind.FINAL:
            out.append(Record(LOWEST_FINAL, total, p.name, event, stage, table))
    return out


def best(records: list[Record]) -> list[Record]:
    """The record of each kind: lowest totals, most zeros; a tie goes to the earlier event."""
    out = []
    for kind in KINDS:
        mine = [r for r in records if r.what == kind]
        if not mine:
            continue
        sign = -1 if kind == MOST_ZEROS else 1
        out.append(min(mine, key=lambda r: (sign * r.value, r.event.date, r.event.pk)))
    return out


def records(series: Series | None = None) -> list[RecordGroup]:
    """Records per set and table size over every event, or over the events of ``series``;
    kept until one of those events changes, or the series gains or loses one."""
    events = Event.objects.all()
    if series is not None:
        events = events.filter(series_entry__series=series)
    versions = list(events.order_by("pk").values_list("pk", "version"))
    state = hashlib.sha256(repr(versions).encode()).hexdigest()

    def compute():
        by_group: dict[tuple[int, int, int], list[Record]] = {}
        for event in events.order_by("date", "pk"):
            for _stage, sheets in event_sheets(event).items():
                for sheet in sheets:
                    key = (event.set_size, event.sets, len(sheet.players))
                    by_group.setdefault(key, []).extend(sheet_records(event, sheet))
        return [
            RecordGroup(s, size, tuple(best(found)), sets)
            for (s, sets, size), found in sorted(by_group.items(), reverse=True)
            if found
        ]

    return cache.get_or_set(f"records:{series.pk if series else 'all'}:{state}", compute)


def series_events(series: Series) -> list[Event]:
    """The series' events in date order (one query)."""
    return list(Event.objects.filter(series_entry__series=series).order_by("date", "pk"))


def same_person(player: Player) -> list[Player]:
    """The player in other events: the same registration id within the same club, or linked
    by a director (either way round), latest event first."""
    match = Q(pk__in=linked_ids(player))
    if player.ref and player.club:
        match |= Q(ref=player.ref, club__iexact=player.club)
    others = Player.objects.filter(match).exclude(event_id=player.event_id)
    return list(others.select_related("event").order_by("-event__date", "pk"))


def linked_ids(player: Player) -> set[int]:
    pairs = PersonLink.objects.filter(Q(first=player) | Q(second=player))
    return {pk for pair in pairs.values_list("first_id", "second_id") for pk in pair} - {player.pk}


def link_candidates(player: Player, limit: int = 20) -> list[Player]:
    """Players of other events a director may say are this one: the same name, not linked."""
    same_name = Player.objects.filter(name__iexact=player.name).exclude(event_id=player.event_id)
    same_name = same_name.exclude(pk__in=[p.pk for p in same_person(player)])
    return list(same_name.select_related("event").order_by("-event__date", "pk")[:limit])


def people() -> dict[int, int]:
    """Every player's person (issue 31): the same registration id within the same club, or
    linked by a director, across all events, as ``same_person`` says of one player but
    transitively. Each person is named by their players' lowest id. Two queries."""
    parent: dict[int, int] = {}

    def root(pk: int) -> int:
        while parent[pk] != pk:
            parent[pk] = parent[parent[pk]]
            pk = parent[pk]
        return pk

    def join(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_key: dict[tuple[str, str], int] = {}
    for pk, ref, club in Player.objects.values_list("pk", "ref", "club").order_by("pk"):
        parent[pk] = pk
        if ref and club:
            first = by_key.setdefault((ref, club.casefold()), pk)
            join(first, pk)
    for first, second in PersonLink.objects.values_list("first_id", "second_id"):
        if first in parent and second in parent:
            join(first, second)
    return {pk: root(pk) for pk in parent}
