"""The series file (docs/series-file.md): a series' settings and the whole file of each of its
events, one JSON file that carries a season from one site to another.

``export_series`` reads a series into the file's shape (``dumps`` writes it, as it writes an
event file); ``validate_series`` reads a file, naming every error by its place
(``events[2].stages[0].tables[1].rounds[3].pips.p4: ...``: each event is read by the event
file's own reader, its places prefixed with the event's); ``upload_series`` makes the series
and every event of a valid file, all or nothing, exactly once per form. Ratings are derived
from the events, never written in the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.archive import series_events
from scoring.eventfile.checks import Plan
from scoring.eventfile.errors import (
    Errors,
    EventFileError,
    Number,
    TooManyErrors,
    at,
    kind,
    quoted,
    show,
    whole_file,
)
from scoring.eventfile.exporter import export_event, player_ids
from scoring.eventfile.reader import _parse, _places_of, validate
from scoring.eventfile.schema import MAX_BYTES
from scoring.eventfile.writer import write_event
from scoring.models import PersonLink, Series, SeriesScoring, SeriesTieBreak
from scoring.services.archive import keep_apart, link_same_person
from scoring.services.series import SeriesRefusal, add_event, create_series
from tournament.game.series import MOST_POINTS
from tournament.history import claim, settle
from tournament.models import Event, Player
from tournament.refusals import Refusal
from tournament.text import bad_character

FORMAT = "mexican-train-series"
VERSION = 1
KEYS = ("format", "version", "series", "events")
OPTIONAL = ("people",)  # the directors' words on who is who (issue 45), when any
SETTINGS = ("name", "slug", "scoring", "points", "medal_bonus", "best_of", "tie_break")
MAX_EVENTS = 1_000
MAX_PEOPLE = 100_000  # words on who is who
MAX_PLACES = 1_000  # places in the points table
MAX_POINTS = MOST_POINTS  # points for one place, or one medal (the series form's bound too)
MEDALS = 3  # gold, silver, bronze
SLUG_ATTEMPTS = 3
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


class SeriesFileError(EventFileError):
    """The series file was not imported; ``located`` names every error by its place."""

    def __init__(self, errors: list[str], located: list[tuple[str, str]] | None = None):
        self.errors = list(errors)
        self.located = located if located is not None else [(e, "") for e in errors]
        count = ngettext(
            "The series file has %(count)s error:",
            "The series file has %(count)s errors:",
            len(errors),
        ) % {"count": len(errors)}
        Refusal.__init__(self, count + "\n" + "\n".join(self.errors))


# -- out -----------------------------------------------------------------------------------------


def export_series(series: Series) -> dict[str, Any]:
    """The series' settings, each of its events' files, whole (``export_event``), and the
    directors' words on who is the same person among their players (``people``)."""
    events = series_events(series)
    people = _people(events)
    return {
        "format": FORMAT,
        "version": VERSION,
        "series": {
            "name": series.name,
            "slug": series.slug,
            "scoring": series.scoring,
            "points": list(series.points),
            "medal_bonus": list(series.medal_bonus),
            "best_of": series.best_of,
            "tie_break": series.tie_break,
        },
        # by date, then as they were made: the order they are made in again on import
        "events": [export_event(event) for event in events],
        **({"people": people} if people else {}),
    }


def _people(events: list[Event]) -> list[dict[str, Any]]:
    """The directors' "same person" and "not the same person" words between players of the
    series' events, in the order they were said: each player as [the event's index in
    ``events``, their id in its file]."""
    index = {e.pk: i for i, e in enumerate(events)}
    players = Player.objects.filter(event__in=events).order_by("pk")
    ids: dict[int, tuple[int, str]] = {}
    for event in events:
        mine = [p for p in players if p.event_id == event.pk]
        ids.update({pk: (index[event.pk], ref) for pk, ref in player_ids(mine).items()})
    links = PersonLink.objects.filter(first__in=ids, second__in=ids).order_by("pk")
    return [
        {"players": [list(ids[link.first_id]), list(ids[link.second_id])], "same": link.same}
        for link in links
    ]


def file_name(series: Series) -> str:
    return f"{series.slug}.series.json"


def may_download(series: Series, user) -> bool:
    """Whether ``user`` may download the series' file: it holds each event's file, which is
    its directors' only, so a director of the series and of every event in it (or a
    superuser)."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    others = Event.objects.filter(series_entry__series=series).exclude(directors=user)
    return series.is_director(user) and not others.exists()


# -- in ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeriesPlan:
    """What a valid series file says: the series' settings, and each event as its reader read
    it."""

    settings: dict[str, Any]
    events: list[Plan]
    people: list[tuple[tuple[int, str], tuple[int, str], bool]] = ()


def validate_series(data_or_text: Any) -> SeriesPlan:
    """Read a series file (text, bytes or the parsed JSON); raise ``SeriesFileError`` naming
    every error at its place, or return what it says."""
    if isinstance(data_or_text, bytes | bytearray | str) and len(data_or_text) > MAX_BYTES:
        raise SeriesFileError.at(
            [
                (
                    whole_file(),
                    _("larger than %(most)s MB: a series file is at most that")
                    % {"most": MAX_BYTES // 1_000_000},
                )
            ]
        )
    try:
        data, twice = _parse(data_or_text)
    except EventFileError as error:  # not JSON: its place is a line and a column
        raise SeriesFileError.at(error.located) from None
    errors = Errors()
    try:
        _sniff(errors, data)
        for where in _places_of(data, twice):
            errors.add(where, _("given twice"))
        settings = _settings(errors, data)
        plans = _events(errors, data)
        people = _people_said(errors, data)
    except TooManyErrors:
        raise SeriesFileError.at(errors.stopped().located) from None
    if errors:
        raise SeriesFileError.at(errors.located)
    return SeriesPlan(settings, plans, people)


def _sniff(errors: Errors, data: Any) -> None:
    """Refuse a file that is not a series file of this version, or lacks its parts: its other
    errors would be noise."""
    if not isinstance(data, dict):
        errors.add("", _("expected an object, not %(kind)s") % {"kind": kind(data)})
        raise SeriesFileError.at(errors.located)
    for key in KEYS:
        if key not in data:
            errors.add(key, _("missing"))
    for key in data:
        if key not in KEYS + OPTIONAL:
            errors.add(at("", key), _unknown_key(KEYS + OPTIONAL))
    if "format" in data and data["format"] != FORMAT:
        message = _("%(value)s is not %(format)s") % {
            "value": show(data["format"]),
            "format": json.dumps(FORMAT),
        }
        if data["format"] == "mexican-train-event":
            message += " " + _("(an event file: import it as an event)")
        errors.add("format", message)
    elif "version" in data and not (type(data["version"]) is int and data["version"] == VERSION):
        errors.add(
            "version",
            _("%(value)s is not a version this site reads (%(version)s)")
            % {"value": show(data["version"]), "version": VERSION},
        )
    if errors:
        raise SeriesFileError.at(errors.located)


def _unknown_key(keys: tuple[str, ...]) -> str:
    return _("unknown key (expected %(keys)s)") % {"keys": ", ".join(keys)}


def _settings(errors: Errors, data: dict) -> dict[str, Any]:
    """The series' settings, each checked at its place (``series.points[2]``)."""
    given = data["series"]
    if not isinstance(given, dict):
        errors.add("series", _("expected an object, not %(kind)s") % {"kind": kind(given)})
        return {}
    for key in SETTINGS:
        if key not in given:
            errors.add(at("series", key), _("missing"))
    for key in given:
        if key not in SETTINGS:
            errors.add(at("series", key), _unknown_key(SETTINGS))
    checks = {
        "name": lambda where, v: _text(errors, where, v, Series._meta.get_field("name")),
        "slug": lambda where, v: _slug(errors, where, v),
        "scoring": lambda where, v: _choice(errors, where, v, SeriesScoring.values),
        "points": lambda where, v: _numbers(errors, where, v, MAX_PLACES),
        "medal_bonus": lambda where, v: _numbers(errors, where, v, MEDALS),
        "best_of": lambda where, v: _best_of(errors, where, v),
        "tie_break": lambda where, v: _choice(errors, where, v, SeriesTieBreak.values),
    }
    ok = True
    for key, check in checks.items():
        if key in given:
            ok = check(at("series", key), given[key]) and ok
    return {key: given[key] for key in SETTINGS} if ok and len(given) == len(SETTINGS) else {}


def _text(errors: Errors, where: str, value: Any, field) -> bool:
    if not isinstance(value, str):
        errors.add(where, _("%(value)s is not a string") % {"value": show(value)})
    elif not value.strip():
        errors.add(where, _("cannot be empty"))
    elif len(value) > field.max_length:
        errors.add(where, _("longer than %(most)s characters") % {"most": field.max_length})
    elif bad_character(value):
        errors.add(where, _("holds %(why)s") % {"why": bad_character(value)})
    else:
        return True
    return False


def _slug(errors: Errors, where: str, value: Any) -> bool:
    if not _text(errors, where, value, Series._meta.get_field("slug")):
        return False
    if not SLUG.fullmatch(value):
        errors.add(
            where,
            _("%(value)s is not a short name for links (letters, digits, - and _)")
            % {"value": show(value)},
        )
        return False
    return True


def _choice(errors: Errors, where: str, value: Any, values: list[str]) -> bool:
    if value in values and isinstance(value, str):
        return True
    errors.add(
        where,
        _("%(value)s is not one of %(values)s") % {"value": show(value), "values": quoted(values)},
    )
    return False


def _whole(errors: Errors, where: str, value: Any, lo: int, hi: int) -> bool:
    if isinstance(value, Number):
        errors.add(where, value.why)
    elif type(value) is not int:
        errors.add(where, _("%(value)s is not a whole number") % {"value": show(value)})
    elif value < lo:
        errors.add(where, _("%(value)s is below %(lo)s") % {"value": show(value), "lo": lo})
    elif value > hi:
        errors.add(where, _("%(value)s is more than %(hi)s") % {"value": show(value), "hi": hi})
    else:
        return True
    return False


def _numbers(errors: Errors, where: str, value: Any, most: int) -> bool:
    """A list of at most ``most`` whole numbers of points (0 or more)."""
    if not isinstance(value, list):
        errors.add(where, _("expected a list, not %(kind)s") % {"kind": kind(value)})
        return False
    if len(value) > most:
        errors.add(
            where,
            _("%(count)s items: a series file holds at most %(most)s here")
            % {"count": len(value), "most": most},
        )
        return False
    ok = True
    for i, item in enumerate(value):
        ok = _whole(errors, at(where, i), item, 0, MAX_POINTS) and ok
    return ok


def _best_of(errors: Errors, where: str, value: Any) -> bool:
    return value is None or _whole(errors, where, value, 1, MAX_EVENTS)


def _events(errors: Errors, data: dict) -> list[Plan]:
    """Each event read by the event file's reader, its errors at their places in this file."""
    given = data["events"]
    if not isinstance(given, list):
        errors.add("events", _("expected a list, not %(kind)s") % {"kind": kind(given)})
        return []
    if len(given) > MAX_EVENTS:
        errors.add(
            "events",
            _("%(count)s items: a series file holds at most %(most)s here")
            % {"count": len(given), "most": MAX_EVENTS},
        )
        return []
    plans = []
    for i, event in enumerate(given):
        inside = at("events", i)
        try:
            plans.append(validate(event))
        except EventFileError as error:
            for where, message in error.located:
                errors.add(_within(inside, where), message)
    return plans


def _people_said(errors: Errors, data: dict) -> list[tuple[tuple[int, str], tuple[int, str], bool]]:
    """``people``: each word a director said, {"players": [[event, id], [event, id]], "same":
    true or false}; the events are indexes of ``events``, the ids their players'; two players
    of one event are two people; a pair is said once."""
    given = data.get("people", [])
    if not isinstance(given, list):
        errors.add("people", _("expected a list, not %(kind)s") % {"kind": kind(given)})
        return []
    events = data["events"] if isinstance(data.get("events"), list) else []
    known: list[set[str]] = []
    for event in events:
        players = event.get("players") if isinstance(event, dict) else None
        known.append(
            {p["id"] for p in players if isinstance(p, dict) and isinstance(p.get("id"), str)}
            if isinstance(players, list)
            else set()
        )
    out = []
    seen: set[frozenset] = set()
    for i, word in enumerate(given[:MAX_PEOPLE]):
        where = at("people", i)
        if not isinstance(word, dict) or set(word) != {"players", "same"}:
            errors.add(where, _("expected an object with players and same"))
            continue
        if type(word["same"]) is not bool:
            errors.add(
                at(where, "same"),
                _("%(value)s is not true or false") % {"value": show(word["same"])},
            )
            continue
        pair = word["players"]
        if not isinstance(pair, list) or len(pair) != 2:
            errors.add(at(where, "players"), _("expected two players, each [event, id]"))
            continue
        found = []
        for j, one in enumerate(pair):
            place = at(at(where, "players"), j)
            if not (
                isinstance(one, list)
                and len(one) == 2
                and type(one[0]) is int
                and isinstance(one[1], str)
            ):
                errors.add(place, _("expected [the event's index in events, a player's id]"))
            elif not 0 <= one[0] < len(events):
                errors.add(
                    place,
                    _("%(value)s is not the index of an event of this file")
                    % {"value": show(one[0])},
                )
            elif one[1] not in known[one[0]]:
                errors.add(
                    place,
                    _("%(id)s is not a player of events[%(event)s]")
                    % {"id": show(one[1]), "event": one[0]},
                )
            else:
                found.append((one[0], one[1]))
        if len(found) != 2:
            continue
        if found[0][0] == found[1][0]:
            errors.add(at(where, "players"), _("two players of one event are two people"))
        elif frozenset(found) in seen:
            errors.add(at(where, "players"), _("these two players are given twice"))
        else:
            seen.add(frozenset(found))
            out.append((found[0], found[1], word["same"]))
    if len(given) > MAX_PEOPLE:
        errors.add(
            "people",
            _("%(count)s items: a series file holds at most %(most)s here")
            % {"count": len(given), "most": MAX_PEOPLE},
        )
    return out


def _within(inside: str, where: str) -> str:
    """An event's place in the series file: ``events[2]`` and its place in the event's file."""
    if where == whole_file():
        return inside
    return inside + where if where.startswith("[") else f"{inside}.{where}"


# -- the write -----------------------------------------------------------------------------------


def free_slug(slug: str) -> str:
    """``slug``, or the next free one (``club-2``) when a series has it: as an event's import
    takes the next free short name."""
    most = Series._meta.get_field("slug").max_length
    candidate, n = slug, 2
    while Series.objects.filter(slug=candidate).exists():
        suffix = f"-{n}"
        candidate, n = slug[: most - len(suffix)] + suffix, n + 1
    return candidate


def write_series(plan: SeriesPlan, user) -> Series:
    """The series of a file ``validate_series`` read, and each of its events, written in the
    caller's transaction; ``user`` directs the series and every event. A short name another
    series has (or takes at the same moment) gives way to the next free one."""
    for attempt in range(1, SLUG_ATTEMPTS + 1):
        series = Series(**{**plan.settings, "slug": free_slug(plan.settings["slug"])})
        try:
            series = create_series(series, user)
            break
        except SeriesRefusal:  # the short name was taken in between
            if attempt == SLUG_ATTEMPTS:
                raise
    events = []
    for event_plan in plan.events:
        events.append(write_event(event_plan, director=user))
        add_event(series, events[-1], user)
    players = {
        (index[p.event_id], p.ref): p
        for index in [{e.pk: i for i, e in enumerate(events)}]
        for p in Player.objects.filter(event__in=events).select_related("event")
    }
    for one, other, same in plan.people:
        (keep_apart if not same else link_same_person)(players[one], players[other], user)
    return series


def upload_series(data: bytes, user, key: str) -> Series:
    """The new series made from an uploaded series file, with every event of it.

    All or nothing: a file with any error raises ``SeriesFileError`` and writes nothing. A
    repeat of the form (``key``: a double click, a retry) answers the series the first post
    made. The file is read before the transaction (the hall's writers do not wait on it).
    """
    plan = validate_series(data)
    with transaction.atomic():
        earlier = claim(key, user)
        if earlier is not None:
            made = Series.objects.filter(pk=earlier.outcome.get("series")).first()
            if made is not None:
                return made
        series = write_series(plan, user)
        settle(key, series=series.pk)
    return series
