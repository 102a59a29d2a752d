"""Past events, records and a player across events (issue 16 item 3).

What is computed from whole events (medals, records) is kept in Django's cache under the
events' versions (tournament/history.py bumps a version with every change), so a page that
lists past events or records reads each event once per change, not per request.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from django.core.cache import cache
from django.db import connection

from scoring.models import PersonLink, Series
from scoring.results import load_results
from scoring.sheets import TableSheet, event_sheets
from tournament.game import people as rule
from tournament.game.awards import MEDALS
from tournament.models import Event, Medal, Player, StageKind
from tournament.text import name_key

PAST_EVENTS = 10  # the home page lists this many past events with their medalists


@dataclass(frozen=True)
class Medalist:
    medal: str
    division: str
    names: tuple[str, ...]  # tied players share a medal

    @property
    def label(self) -> str:
        """The medal's word in the reader's language ("Gold", "Or")."""
        return str(Medal(self.medal).label)


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
    # an event whose results are held back (issue 49 item 4) shows its medallists once released
    events = Event.objects.listed().filter(date__lt=today, results_held=False)
    events = events.order_by("-date", "name")[:limit]
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
    events = Event.objects.filter(results_held=False)  # held back: not public yet
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


# -- people across events (issue 45 item 4; the rule: tournament/game/people.py) ---------------


@dataclass(frozen=True)
class People:
    """Every player's person (named by their lowest player id) and each person's players."""

    person_of: dict[int, int]
    players_of: dict[int, list[int]]

    def others(self, pk: int) -> list[int]:
        """The other players of ``pk``'s person (every event of theirs, transitively)."""
        person = self.person_of.get(pk)
        return [other for other in self.players_of.get(person, ()) if other != pk]


@lru_cache(maxsize=4096)
def club_key(club: str) -> str:
    """A club as the desk folds a name: "RIVERTOWN Domino-Club" is "rivertowndominoclub"."""
    return name_key(club)


def someone(pk: int, event_id: int, key: str, club: str, ref: str) -> rule.Someone:
    return rule.Someone(pk, event_id, key, club_key(club), ref)


PLAYER_FIELDS = ("pk", "event_id", "search_key", "club", "ref")


def people_state() -> str:
    """What the people depend on, in one query: the events (how many, the last, the sum of
    their versions: a player added, renamed or moved to another club, a link made or undone,
    each writes its event's history and moves its version), and the players' and links' counts
    and last ids (a row made without a history entry)."""
    quote = connection.ops.quote_name
    parts = []
    for model, more in ((Event, ", SUM({version})"), (Player, ""), (PersonLink, "")):
        table = quote(model._meta.db_table)
        what = f"COUNT(*), MAX({quote('id')})" + more.format(version=quote("version"))
        parts.append(f"SELECT {what} FROM {table}")  # noqa: S608 (the models' own names)
    sql = "SELECT * FROM ({}) e, ({}) p, ({}) l".format(*parts)  # noqa: S608 (the same)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return hashlib.sha256(repr(tuple(row)).encode()).hexdigest()


def people(state: str | None = None) -> People:
    """Every player's person across all events, kept until ``people_state`` moves."""
    state = state or people_state()
    return cache.get_or_set(f"people:{state}", _people)


def _people() -> People:
    players = [someone(*row) for row in Player.objects.order_by("pk").values_list(*PLAYER_FIELDS)]
    links = list(PersonLink.objects.order_by("pk").values_list("first_id", "second_id", "same"))
    person_of = rule.people(players, links)
    players_of: dict[int, list[int]] = {}
    for pk, person in person_of.items():
        players_of.setdefault(person, []).append(pk)
    return People(person_of, players_of)


def same_person(player: Player) -> list[Player]:
    """The player in other events, latest event first: the same name in the same club, the
    same registration id in the same club, or linked by a director (transitively), unless a
    director said otherwise."""
    others = Player.objects.filter(pk__in=people().others(player.pk))
    return list(others.select_related("event").order_by("-event__date", "pk"))


def link_candidates(player: Player, limit: int = 20) -> list[Player]:
    """Players of other events a director may say are this one: the same name (folded), not
    the same person (no club, another club, or said not to be)."""
    same_name = Player.objects.filter(search_key=player.search_key).exclude(
        event_id=player.event_id
    )
    same_name = same_name.exclude(pk__in=people().others(player.pk))
    return list(same_name.select_related("event").order_by("-event__date", "pk")[:limit])


@dataclass(frozen=True)
class Probable:
    """People of one name who are probably one person (a series' page offers to link them):
    each person's players in the series, latest first."""

    name: str
    key: str  # the folded name, what the form posts
    people: list[list[Player]]


def probable_people(events: list[Event]) -> list[Probable]:
    """The probable matches among the players of ``events`` (a series'): the same folded
    name as several people, none in one event together, none said not to be the same. Three
    queries beside the people's."""
    mine = list(Player.objects.filter(event__in=events).values_list(*PLAYER_FIELDS))
    keys = {row[2] for row in mine if row[2]}
    known = people()
    among = {known.person_of[row[0]] for row in mine if row[0] in known.person_of}
    alike = [
        someone(*row)
        for row in Player.objects.filter(search_key__in=keys).values_list(*PLAYER_FIELDS)
        if row[0] in known.person_of
    ]
    links = PersonLink.objects.filter(first__search_key__in=keys, same=False)
    groups = rule.probable(
        alike, known.person_of, links.values_list("first_id", "second_id", "same"), among
    )
    in_series = {row[0] for row in mine}
    wanted = [pk for group in groups for person in group for pk in known.players_of[person]]
    players = {
        p.pk: p
        for p in Player.objects.filter(
            pk__in=[pk for pk in wanted if pk in in_series]
        ).select_related("event")
    }
    out = []
    for group in groups:
        shown = [
            sorted(
                (players[pk] for pk in known.players_of[person] if pk in players),
                key=lambda p: (p.event.date, p.event_id, p.pk),
                reverse=True,
            )
            for person in group
        ]
        latest = max((p for who in shown for p in who), key=lambda p: (p.event.date, p.pk))
        out.append(Probable(latest.name, latest.search_key, shown))
    return sorted(out, key=lambda g: (g.key, g.name))
