"""The event file (formats/event-file.md): a whole event as one JSON file, out and back in.

``export_event`` reads an event into the file's shape (``dumps`` writes it the one stable way),
``import_event`` creates a new event from a file, all or nothing: a validation pass names every
error by its place in the file (``stages[0].tables[2].rounds[3].pips.p4: ...``), then one
transaction writes the rows in bulk.

No rule of the game is written here: the rule set is checked by ``RuleSet.problems``, each round
by ``round_errors``, an infraction's round by the infraction service's check, the clock by
``Clock``, and playoffs by computing the results the way the site does (``compute_results``).
This module only reads, locates and writes.

What the site keeps beyond the format goes under ``extra`` keys, as the format allows:

- ``event.extra``: ``paper_size`` and ``sheet_language`` (when set); ``event.rules.extra``:
  ``table_size`` (the usual one),
  ``infraction_scope`` (``"event"`` when warnings count for the whole event, not per game),
  ``infraction_penalty`` (``"skip"``: skip the next turn every time, a rule the format's
  ``infraction_penalty`` has no value for: that one then says ``"warn_then_skip"``) and
  ``late_arrivals`` (the house rule, when on);
- ``players[].extra``: ``club`` (when set), ``checked_in``, ``withdrawn`` (when true) and
  ``former_names`` (names changed at the desk, oldest first, when any);
- ``stages[].extra``: ``division`` (a playoff's), ``table`` (the table whose tie an advancement
  playoff settles: ``{"stage": <index in stages>, "table": <number>}``), ``clock`` (started,
  paused, paused total in seconds, time called, ``added_minutes`` a director added) and
  ``clock_events`` (the buttons pressed, with the ``minutes`` added and the ``reason`` given);
- ``tables[].extra``: ``game_over_after`` (the table's game marked over after that round, once
  time was called: no round follows it);
  ``withdrew`` (player id -> rounds played before withdrawing: later rounds have no pips for
  them) and ``joined`` (a late arrival's id -> the first round played: earlier rounds have no
  pips for them, the site scores them the table's highest);
- ``rounds[].extra``: ``entered_at`` and ``changes`` (the score audit trail);
- ``infractions[].extra``: ``logged_at``, and when changed by a director ``original_action``,
  ``reason`` and ``changed_at``.

Who did what (users) is not in the file: users belong to a site, not to an event.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import zoneinfo
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Model
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext, pgettext

from scoring.models import (
    Infraction,
    InfractionAction,
    InfractionKind,
    Round,
    Score,
    ScoreChange,
)
from scoring.results import ADVANCING_KINDS, compute_results, division_of
from scoring.services.infractions import engine_error
from scoring.services.rounds import store_totals
from scoring.sheets import SheetRound, TableSheet, event_sheets
from tournament.game.clock import Clock
from tournament.game.rules import SETS, RuleSet, round_errors, running_totals
from tournament.models import (
    Action,
    AdvancementTie,
    ClockAction,
    ClockEvent,
    Event,
    InfractionPenalty,
    InfractionScope,
    Medal,
    MedalTie,
    PaperSize,
    Player,
    RoundInProgress,
    Seat,
    Stage,
    StageKind,
    Table,
)
from tournament.services.events import unique_slug
from tournament.stage_names import recognise
from tournament.text import bad_character, translated

FORMAT = "mexican-train-event"
VERSION = 1
SMALL_MAX = 32767  # the largest PositiveSmallIntegerField value (table numbers, minutes)
INT_MAX = 2_147_483_647  # the largest IntegerField value (pips in the audit trail)

# What one file may hold (formats/event-file.md has no limits; these keep an import to seconds
# and a worker free). Larger is refused with a message that names the limit.
MAX_BYTES = 20_000_000
MAX_DIGITS = 15  # a whole number with more digits is no count this file has
MAX_PLAYERS = 100_000
MAX_STAGES = 10_000
MAX_TABLES = 50_000  # in one stage
MAX_ENGINES = max(SETS) + 1  # every double of the largest set, once
MAX_INFRACTIONS = 1_000  # at one table
MAX_CHANGES = 1_000  # of one round
MAX_FORMER_NAMES = 100  # names a player had before, changed at the desk
MAX_CLOCK_EVENTS = 10_000  # of one stage
MAX_ERRORS = 1_000  # reading stops there: the file is refused anyway
# Moments are the event's: a clock runs within days of its date; the audit trail (rounds
# typed, infractions logged, corrections) may go on for a while after it.
CLOCK_DAYS = 366  # an export must import again: the site lets a clock run on any day
AUDIT_DAYS = 366
EARLIEST_DATE, LATEST_DATE = date(1900, 1, 1), date(2199, 12, 31)


# The format's infraction_penalty values are three; a rule the site added since is written as
# the nearest of them, and itself under event.rules.extra.infraction_penalty.
FILE_PENALTY = {InfractionPenalty.SKIP: InfractionPenalty.WARN_THEN_SKIP}


def _max_length(model: type[Model], name: str) -> int:
    return model._meta.get_field(name).max_length


class EventFileError(ValueError):
    """The file was not imported; ``errors`` names every error by its place in the file.

    ``located`` holds the same errors as (place, message) pairs, for pages that show them apart.
    """

    def __init__(self, errors: list[str], located: list[tuple[str, str]] | None = None):
        self.errors = list(errors)
        self.located = located if located is not None else [(e, "") for e in errors]
        count = ngettext(
            "The event file has %(count)s error:",
            "The event file has %(count)s errors:",
            len(errors),
        ) % {"count": len(errors)}
        super().__init__(count + "\n" + "\n".join(self.errors))

    @classmethod
    def at(cls, located: list[tuple[str, str]]) -> EventFileError:
        return cls([f"{where}: {message}" for where, message in located], located)


# -- export ---------------------------------------------------------------------------------------


def dumps(data: dict[str, Any]) -> str:
    """The file's text, always the same for the same event: keys in the documented order."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def player_ids(players: Iterable[Player]) -> dict[int, str]:
    """Each player's id in the file: their ``ref``, else ``p<pk>`` (made unique if a ref took it).

    Import stores the id as the player's ref, so a file read back gives the same ids.
    """
    players = list(players)
    taken = {p.ref for p in players if p.ref}
    ids = {}
    for p in players:
        if p.ref:
            ids[p.pk] = p.ref
            continue
        candidate, n = f"p{p.pk}", 2
        while candidate in taken:
            candidate, n = f"p{p.pk}-{n}", n + 1
        taken.add(candidate)
        ids[p.pk] = candidate
    return ids


def _finals_extra(event: Event) -> dict[str, Any]:
    """The finals options (issue 12), written unless they are what a file without them means:
    each table's winner alone advances."""
    options = {
        "top_n": event.finals_top_n,
        "fill_to": event.finals_fill_to,
        "big_final": event.finals_big_final,
    }
    return {} if options == LEGACY_FINALS else {"finals": options}


LEGACY_FINALS = {"top_n": 1, "fill_to": None, "big_final": False}


def export_event(event: Event) -> dict[str, Any]:
    """The whole event in the event file's shape, ``results`` computed as the site shows them."""
    sheets = event_sheets(event)
    results = compute_results(event, sheets)
    players = list(event.players.order_by("pk"))
    ids = player_ids(players)
    stages = sorted(sheets, key=lambda s: s.number)
    stage_index = {stage.pk: index for index, stage in enumerate(stages)}
    table_refs = {
        sheet.table.pk: {"stage": index, "table": sheet.table.number}
        for index, stage in enumerate(stages)
        for sheet in sheets[stage]
    }
    entered: dict[tuple[int, int], datetime] = {
        (table_id, number): at
        for table_id, number, at in Round.objects.filter(table__stage__event=event).values_list(
            "table_id", "number", "entered_at"
        )
    }
    changes: dict[tuple[int, int], list[dict]] = {}
    for change in (
        ScoreChange.objects.filter(round__table__stage__event=event)
        .select_related("round")
        .order_by("changed_at", "pk")
    ):
        changes.setdefault((change.round.table_id, change.round.number), []).append(
            {
                "player": ids[change.player_id],
                "old_pips": change.old_pips,
                "new_pips": change.new_pips,
                "reason": change.reason,
                "changed_at": _moment(change.changed_at),
            }
        )
    clock_events: dict[int, list[dict]] = {}
    for e in ClockEvent.objects.filter(stage__event=event).order_by("at", "pk"):
        pressed = {"action": e.action, "at": _moment(e.at)}
        if e.minutes is not None:
            pressed["minutes"] = e.minutes
        if e.reason:
            pressed["reason"] = e.reason
        clock_events.setdefault(e.stage_id, []).append(pressed)

    def export_round(table: Table, r: SheetRound, seated: list[int]) -> dict:
        order = [pk for pk in seated if pk not in r.filled]
        order += [pk for pk in r.pips if pk not in seated and pk not in r.filled]
        extra: dict[str, Any] = {"entered_at": _moment(entered.get((table.pk, r.number)))}
        if (table.pk, r.number) in changes:
            extra["changes"] = changes[table.pk, r.number]
        return {
            "engine": r.engine,
            "pips": {ids[pk]: r.pips[pk] for pk in order if pk in r.pips},
            "extra": extra,
        }

    def export_infraction(i: Infraction) -> dict:
        extra: dict[str, Any] = {"logged_at": _moment(i.logged_at)}
        if i.original_action != i.action:
            extra["original_action"] = i.original_action
        if i.change_reason:
            extra["reason"] = i.change_reason
        if i.changed_at is not None:
            extra["changed_at"] = _moment(i.changed_at)
        return {
            "player": ids[i.player_id],
            "engine": i.engine,
            "kind": i.kind,
            "action": i.action,
            "note": i.note,
            "extra": extra,
        }

    def export_table(sheet: TableSheet) -> dict:
        seated = [p.pk for p in sheet.players]
        out = {
            "number": sheet.table.number,
            "players": [ids[pk] for pk in seated],
            "rounds": [export_round(sheet.table, r, seated) for r in sheet.rounds],
            "infractions": [export_infraction(i) for i in sheet.infractions],
        }
        extra = {}
        if sheet.table.game_over_after is not None:
            extra["game_over_after"] = sheet.table.game_over_after
        if sheet.left:
            extra["withdrew"] = {ids[pk]: n for pk, n in sheet.left.items()}
        if sheet.joined:
            extra["joined"] = {ids[pk]: n for pk, n in sheet.joined.items()}
        if extra:
            out["extra"] = extra
        return out

    def export_stage(stage: Stage) -> dict:
        out: dict[str, Any] = {"name": stage.name, "kind": stage.kind}
        if stage.medal:
            out["medal"] = stage.medal
        out["closed"] = stage.closed
        out["tables"] = [export_table(sheet) for sheet in sheets[stage]]
        extra: dict[str, Any] = {}
        if stage.division:
            extra["division"] = stage.division
        if stage.playoff_table_id is not None:
            extra["table"] = table_refs[stage.playoff_table_id]
        if stage.wildcards_of_id is not None:
            extra["wildcards_of"] = stage_index[stage.wildcards_of_id]
        clock = {
            "started_at": _moment(stage.clock_started_at),
            "paused_at": _moment(stage.clock_paused_at),
            "paused_total": (
                None
                if stage.clock_paused_total is None
                else stage.clock_paused_total.total_seconds()
            ),
            "time_called_at": _moment(stage.time_called_at),
        }
        if stage.clock_added:
            clock["added_minutes"] = round(stage.clock_added.total_seconds() / 60)
        if any(v is not None for v in clock.values()):
            extra["clock"] = clock
        if stage.pk in clock_events:
            extra["clock_events"] = clock_events[stage.pk]
        if extra:
            out["extra"] = extra
        return out

    former: dict[int, list[str]] = {}
    for data in (
        event.actions.filter(verb="player.edited")
        .order_by("at", "pk")
        .values_list("data", flat=True)
    ):
        if data.get("renamed_from") and data.get("player_pk") in ids:
            former.setdefault(data["player_pk"], []).append(data["renamed_from"])
    with_divisions = any(p.division for p in players)
    medals = []
    for division in results.medals:
        for award in division.result.medals:
            entry = award.as_dict()
            entry["players"] = [ids[pk] for pk in entry["players"]]
            if "between" in entry:
                entry["between"] = [ids[pk] for pk in entry["between"]]
            if with_divisions:
                entry = {"division": division.division or None, **entry}
            medals.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "event": {
            "name": event.name,
            "date": event.date.isoformat(),
            "venue": event.venue,
            "rules": {
                "set": event.set_size,
                "engines": list(event.engines),
                "tiles_drawn": {
                    str(size): drawn
                    for size, drawn in sorted(((int(k), v) for k, v in event.tiles_drawn.items()))
                },
                "game_minutes": event.game_minutes,
                "round_in_progress": event.round_in_progress,
                "double_blank_points": event.double_blank_points,
                "advancement_tie": event.advancement_tie,
                "medal_tie": event.medal_tie,
                "infraction_penalty": FILE_PENALTY.get(
                    event.infraction_penalty, event.infraction_penalty
                ),
                "extra": {
                    "table_size": event.table_size,
                    **(
                        {"infraction_penalty": event.infraction_penalty}
                        if event.infraction_penalty in FILE_PENALTY
                        else {}
                    ),
                    **(
                        {"infraction_scope": event.infraction_scope}
                        if event.infraction_scope != InfractionScope.GAME
                        else {}
                    ),
                    **({"late_arrivals": True} if event.late_arrivals else {}),
                },
            },
            "extra": {
                "paper_size": event.paper_size,
                **({"time_zone": event.time_zone} if event.time_zone else {}),
                **_finals_extra(event),
                **({"sheet_language": event.sheet_language} if event.sheet_language else {}),
            },
        },
        "players": [
            {
                "id": ids[p.pk],
                "name": p.name,
                "division": p.division or None,
                "extra": {
                    **({"club": p.club} if p.club else {}),
                    "checked_in": p.checked_in,
                    **({"withdrawn": True} if p.withdrawn else {}),
                    **({"former_names": former[p.pk]} if p.pk in former else {}),
                },
            }
            for p in players
        ],
        "stages": [export_stage(stage) for stage in stages],
        "results": {
            "advanced": {
                stage.name: [ids[p.pk] for p in results.advancing(stage)]
                for stage in stages
                if stage.closed and stage.kind in ADVANCING_KINDS
            },
            "medals": medals,
        },
    }


# -- import: what a valid file says, as plain values ---------------------------------------


@dataclass
class _Change:
    player: str
    old_pips: int
    new_pips: int
    reason: str
    changed_at: datetime | None


@dataclass
class _Round:
    engine: int
    pips: dict[str, int]
    entered_at: datetime | None = None
    changes: list[_Change] = field(default_factory=list)


@dataclass
class _Infraction:
    player: str
    engine: int
    kind: str
    action: str
    note: str
    original_action: str
    reason: str = ""
    logged_at: datetime | None = None
    changed_at: datetime | None = None


@dataclass
class _Table:
    number: int
    players: list[str]
    withdrew: dict[str, int] = field(default_factory=dict)
    joined: dict[str, int] = field(default_factory=dict)
    rounds: list[_Round] = field(default_factory=list)
    infractions: list[_Infraction] = field(default_factory=list)
    game_over_after: int | None = None


@dataclass
class _Stage:
    name: str
    kind: str
    closed: bool
    medal: str = ""
    division: str | None = None  # None: not given, derived from the players
    table_ref: tuple[int, int] | None = None  # (stage index, table number)
    wildcards_of: int | None = None  # a wildcard playoff: the index of the stage it settles
    clock: dict[str, Any] = field(default_factory=dict)
    clock_events: list[_ClockEvent] = field(default_factory=list)
    tables: list[_Table] = field(default_factory=list)


@dataclass
class _ClockEvent:
    action: str
    at: datetime
    minutes: int | None = None
    reason: str = ""


@dataclass
class _Player:
    id: str
    name: str
    division: str
    club: str = ""
    checked_in: bool = False
    withdrawn: bool = False
    former_names: list[str] = field(default_factory=list)


@dataclass
class _Plan:
    event: dict[str, Any]
    players: list[_Player]
    stages: list[_Stage]


# -- import: reading and locating ---------------------------------------------------------------


class _Object(dict):
    """A JSON object that remembers the keys it was given twice."""

    duplicates: tuple[str, ...] = ()


def _object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        twice = []
        for key, _value in pairs:
            if key in seen and key not in twice:
                twice.append(key)
            seen.add(key)
        obj.duplicates = tuple(twice)
    return obj


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _at(where: str, key: str | int) -> str:
    """The place of ``key`` inside ``where``: ``stages[0]``, ``pips.p4``, ``pips["a b"]``."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    if not _PLAIN_KEY.fullmatch(key):
        return f"{where}[{json.dumps(key, ensure_ascii=False)}]"
    return f"{where}.{key}" if where else key


class _Number:
    """A number JSON allows but no field of the file can hold (too many digits, too large a
    float, NaN or Infinity), kept as its text so that its place can be named."""

    def __init__(self, text: str, why: str) -> None:
        self.text = text if len(text) <= 20 else text[:17] + "..."
        self.why = why

    @classmethod
    def integer(cls, text: str) -> int | _Number:
        digits = len(text.lstrip("-"))
        if digits <= MAX_DIGITS:
            return int(text)
        return cls(
            text,
            _("a whole number of %(digits)s digits is more than this file can hold")
            % {"digits": digits},
        )

    @classmethod
    def real(cls, text: str) -> float | _Number:
        value = float(text)
        if math.isfinite(value) and abs(value) < 1e15:
            return value
        return cls(text, _("a number too large for this file"))

    @classmethod
    def constant(cls, text: str) -> _Number:
        return cls(text, _("%(value)s is not a number this file can hold") % {"value": text})


_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _printable(text: str) -> str:
    """An error message as it can be printed and shown: control characters and lone surrogates
    written as escapes (\\u0000)."""
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _show(value: Any) -> str:
    """A value as the file writes it, shortened."""
    if isinstance(value, _Number):
        return value.text
    if isinstance(value, list | dict) and len(value) > 10:
        return _kind(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _("true or false")
    if isinstance(value, int | float | _Number):
        return _("a number")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, list):
        return _("a list")
    return _("an object")


def _quoted(values: Iterable[str]) -> str:
    return ", ".join(json.dumps(v) for v in values)


# The messages are put in the reader's language when the error is recorded (gettext then
# reads the request's language). Places stay as the file writes them: they name its keys.


def _whole_file() -> str:
    """The place of an error of the whole file (no key of it)."""
    return pgettext("the place of an error in an event file", "file")


def _grouped(count: int) -> str:
    """A large count as the reader writes it: 100,000 (English), 100 000 (French)."""
    return number_format(count, force_grouping=True)


def _not_seated(ref: Any) -> str:
    return _("%(value)s is not seated at this table") % {"value": _show(ref)}


def _not_a_player(ref: Any) -> str:
    return _("%(value)s is not the id of a player in players") % {"value": _show(ref)}


def _division_name(division: str) -> str:
    return json.dumps(division) if division else _("no division")


# What the JSON decoder says (Python 3.13's words), for the catalog: a message not listed here
# is shown as the decoder wrote it.
JSON_ERRORS = (
    gettext_noop("Expecting value"),
    gettext_noop("Expecting property name enclosed in double quotes"),
    gettext_noop("Expecting ':' delimiter"),
    gettext_noop("Expecting ',' delimiter"),
    gettext_noop("Illegal trailing comma before end of object"),
    gettext_noop("Illegal trailing comma before end of array"),
    gettext_noop("Unterminated string starting at"),
    gettext_noop("Invalid control character at"),
    gettext_noop("Invalid \\escape"),
    gettext_noop("Invalid \\uXXXX escape"),
    gettext_noop("Extra data"),
)


class _Bad:
    """A value that was missing or wrong (its error is already recorded)."""


BAD: Any = _Bad()


class _TooManyErrors(Exception):
    pass


class _Reader:
    """Reads the file's values, recording each error with its place; bad values read as BAD."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []
        self.day_of_event: date | None = None

    def error(self, where: str, message: str) -> None:
        """Record ``message`` at ``where``, in the reader's language: a message of the rules
        (``tournament.game.message.Message``, or an error carrying one) is translated here."""
        message = translated(message).removesuffix(".")
        self.errors.append((_printable(where or _whole_file()), _printable(message)))
        if len(self.errors) >= MAX_ERRORS:
            raise _TooManyErrors

    def obj(
        self,
        value: Any,
        where: str,
        required: tuple[str, ...] = (),
        optional: tuple[str, ...] = (),
        any_key: bool = False,
    ) -> dict | _Bad:
        """An object with the ``required`` keys, and ``optional`` ones and ``extra`` (or
        ``any_key``, for maps such as ``pips``)."""
        if not isinstance(value, dict):
            self.error(where, _("expected an object, not %(kind)s") % {"kind": _kind(value)})
            return BAD
        for key in getattr(value, "duplicates", ()):
            self.error(_at(where, key), _("given twice"))
        for key in required:
            if key not in value:
                self.error(_at(where, key), _("missing"))
        allowed = (*required, *optional, "extra")
        for key in value:
            if not any_key and key not in allowed:
                self.error(
                    _at(where, key),
                    _("unknown key (expected %(keys)s)") % {"keys": ", ".join(allowed)},
                )
        return value

    def extra_of(self, obj: dict | _Bad, where: str) -> dict:
        """The object's ``extra``: what this site knows in it is read, the rest ignored."""
        if obj is BAD or "extra" not in obj:
            return {}
        value = self.obj(obj["extra"], _at(where, "extra"), any_key=True)
        return {} if value is BAD else value

    def get(self, obj: dict | _Bad, where: str, key: str, read: Callable, *args, **kwargs) -> Any:
        """``read`` the value of ``key`` (missing keys are reported by ``obj``)."""
        if obj is BAD or key not in obj:
            return BAD
        return read(obj[key], _at(where, key), *args, **kwargs)

    def optional(self, obj: dict, where: str, key: str, read: Callable, default=None, **kwargs):
        """``read`` an optional key, ``null`` meaning the default."""
        if key not in obj or obj[key] is None:
            return default
        return read(obj[key], _at(where, key), **kwargs)

    def integer(self, value: Any, where: str, lo: int | None = None, hi: int | None = None):
        if isinstance(value, _Number):
            self.error(where, value.why)
            return BAD
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, _("%(value)s is not a whole number") % {"value": _show(value)})
            return BAD
        if lo is not None and value < lo:
            self.error(where, _("%(value)s is below %(lo)s") % {"value": value, "lo": lo})
            return BAD
        if hi is not None and value > hi:
            self.error(where, _("%(value)s is more than %(hi)s") % {"value": value, "hi": hi})
            return BAD
        return value

    def nullable_integer(self, value: Any, where: str, **kwargs):
        return None if value is None else self.integer(value, where, **kwargs)

    def boolean(self, value: Any, where: str):
        if not isinstance(value, bool):
            self.error(where, _("%(value)s is not true or false") % {"value": _show(value)})
            return BAD
        return value

    def text(self, value: Any, where: str, max_length: int, blank: bool = False):
        if not isinstance(value, str):
            self.error(where, _("%(value)s is not a string") % {"value": _show(value)})
            return BAD
        if not blank and not value.strip():
            self.error(where, _("cannot be empty"))
            return BAD
        if len(value) > max_length:
            self.error(where, _("longer than %(most)s characters") % {"most": max_length})
            return BAD
        why = bad_character(value)
        if why:
            self.error(where, _("holds %(why)s") % {"why": why})
            return BAD
        return value

    def choice(self, value: Any, where: str, values: Iterable[str]):
        values = list(values)
        if not isinstance(value, str) or value not in values:
            self.error(
                where,
                _("%(value)s is not one of %(values)s")
                % {"value": _show(value), "values": _quoted(values)},
            )
            return BAD
        return value

    def zone_name(self, value: Any, where: str):
        if not isinstance(value, str) or value not in zoneinfo.available_timezones():
            self.error(
                where,
                _('%(value)s is not a time zone (such as "Europe/Paris")')
                % {"value": _show(value)},
            )
            return BAD
        return value

    def items(self, value: Any, where: str, cap: int, null: bool = False) -> list:
        """A list of at most ``cap`` items (``null`` reads as an empty one when allowed); a
        longer one is an error and is not read further."""
        if null and value is None:
            return []
        if not isinstance(value, list):
            self.error(where, _("expected a list, not %(kind)s") % {"kind": _kind(value)})
            return []
        if len(value) > cap:
            self.error(
                where,
                _("%(count)s items: an event file holds at most %(most)s here")
                % {"count": _grouped(len(value)), "most": _grouped(cap)},
            )
            return []
        return value

    def day(self, value: Any, where: str):
        if isinstance(value, str) and _DATE.fullmatch(value):
            try:
                day = date.fromisoformat(value)
            except ValueError:
                pass
            else:
                if EARLIEST_DATE <= day <= LATEST_DATE:
                    return day
                self.error(
                    where,
                    _("%(value)s is not a date from %(first)s to %(last)s")
                    % {
                        "value": _show(value),
                        "first": EARLIEST_DATE.year,
                        "last": LATEST_DATE.year,
                    },
                )
                return BAD
        self.error(where, _("%(value)s is not a date such as 2019-09-19") % {"value": _show(value)})
        return BAD

    def clock_moment(self, value: Any, where: str):
        """A moment of the stage clock: within ``CLOCK_DAYS`` of the event's date."""
        return self.moment(value, where, after=CLOCK_DAYS)

    def moment(self, value: Any, where: str, after: int = AUDIT_DAYS):
        """A date and time with its zone, from ``CLOCK_DAYS`` before the event's date to
        ``after`` days after it."""
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or "T" not in value:
            self.error(
                where,
                _("%(value)s is not a date and time such as 2019-09-19T10:00:00+00:00")
                % {"value": _show(value)},
            )
            return BAD
        if moment.tzinfo is None:
            self.error(
                where, _("%(value)s has no time zone (such as +00:00)") % {"value": _show(value)}
            )
            return BAD
        day = self.day_of_event
        if day is None:  # the event's date is wrong (an error already): a sane range
            lo, hi = EARLIEST_DATE, LATEST_DATE
        else:
            lo, hi = day - timedelta(days=CLOCK_DAYS), day + timedelta(days=after)
        try:
            utc_day = moment.astimezone(UTC).date()
        except OverflowError:
            utc_day = None
        if utc_day is None or not lo <= utc_day <= hi:
            values = {"value": _show(value), "lo": lo, "hi": hi}
            if day is None:
                self.error(where, _("%(value)s is not between %(lo)s and %(hi)s") % values)
            else:
                self.error(
                    where,
                    _(
                        "%(value)s is not between %(lo)s and %(hi)s (event.date %(day)s, "
                        "%(before)s days before and %(after)s after)"
                    )
                    % {**values, "day": day, "before": CLOCK_DAYS, "after": after},
                )
            return BAD
        return moment

    def seconds(self, value: Any, where: str, most: timedelta = timedelta(days=CLOCK_DAYS)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            self.error(where, _("%(value)s is not a number of seconds") % {"value": _show(value)})
            return BAD
        if value > most.total_seconds():
            self.error(
                where,
                _("%(value)s seconds is more than %(days)s days")
                % {"value": _show(value), "days": most.days},
            )
            return BAD
        return timedelta(seconds=value)


def _ok(*values: Any) -> bool:
    return all(v is not BAD for v in values)


# -- import: the rule set ------------------------------------------------------------------------


RULE_KEYS = (
    "set",
    "engines",
    "tiles_drawn",
    "game_minutes",
    "round_in_progress",
    "double_blank_points",
    "advancement_tie",
    "medal_tie",
    "infraction_penalty",
)


def _usual_table_size(rules: RuleSet) -> int:
    """The usual table size when the file does not say: 4, else the dealable size nearest 4."""
    sizes = rules.dealable_sizes or tuple(sorted(rules.tiles_drawn)) or (4,)
    return min(sizes, key=lambda n: (abs(n - 4), n))


def _rule_problems(
    read: _Reader, where: str, rules: RuleSet, table_size_given: bool, complete: bool
) -> bool:
    """Record ``rules.problems()``, each at the part of the rule set that causes it.

    A problem is placed by asking the same question of a rule set that differs from a playable
    one in that part alone: an engine (alone, or with itself when listed again), one
    tiles-drawn entry, the time limit, the double-blank, or the usual table size. When a part
    was wrong (``complete`` false), problems of the whole (the usual table size against the
    tiles drawn) are left until it is corrected.
    """
    problems = rules.problems()
    if not problems:
        return True
    base = RuleSet(
        set=rules.set,
        engines=(rules.set,),
        tiles_drawn={2: 1},
        table_size=2,
        game_minutes=None,
        double_blank_points=0,
    )
    some_size = next(iter(rules.tiles_drawn), 2)
    # Each engine alone (is it a double of the set?), and the first one listed again with
    # itself (a repeat): one small rule set per engine, never one per prefix of the list.
    candidates: list[tuple[str, RuleSet]] = []
    seen: set[int] = set()
    for i, engine in enumerate(rules.engines):
        again = (engine, engine) if engine in seen else (engine,)
        candidates.append((_at(_at(where, "engines"), i), replace(base, engines=again)))
        seen.add(engine)
    candidates.append((_at(where, "engines"), replace(base, engines=rules.engines)))
    candidates += [
        (
            _at(_at(where, "tiles_drawn"), str(size)),
            replace(base, tiles_drawn={size: n}, table_size=size),
        )
        for size, n in rules.tiles_drawn.items()
    ]
    candidates.append(
        (
            _at(where, "tiles_drawn"),
            replace(base, tiles_drawn=rules.tiles_drawn, table_size=some_size),
        )
    )
    candidates.append((_at(where, "game_minutes"), replace(base, game_minutes=rules.game_minutes)))
    candidates.append(
        (
            _at(where, "double_blank_points"),
            replace(base, double_blank_points=rules.double_blank_points),
        )
    )
    table_size_at = (
        _at(_at(where, "extra"), "table_size") if table_size_given else _at(where, "tiles_drawn")
    )
    candidates.append(
        (table_size_at, replace(base, tiles_drawn=rules.tiles_drawn, table_size=rules.table_size))
    )
    whole = (table_size_at, where)
    for problem in problems:
        place = next((at for at, variant in candidates if problem in variant.problems()), where)
        if complete or place not in whole:
            read.error(place, problem)
    return False


def _read_rules(read: _Reader, value: Any, where: str) -> tuple[RuleSet | None, dict]:
    """The rule set to check tables and rounds with (None when its set, engines, tiles drawn
    or double-blank have errors); and the event fields it sets.

    Every part is checked even when another is wrong: a wrong part is replaced by a playable
    stand-in while ``RuleSet.problems`` is asked about the others.
    """
    rules = read.obj(value, where, RULE_KEYS)
    the_set = read.get(rules, where, "set", read.integer)
    engines = read.get(rules, where, "engines", _read_int_list, read)
    errors_before = len(read.errors)
    tiles = read.get(rules, where, "tiles_drawn", _read_tiles, read)
    tiles_complete = _ok(tiles) and len(read.errors) == errors_before
    minutes = read.get(rules, where, "game_minutes", read.nullable_integer, hi=SMALL_MAX)
    in_progress = read.get(rules, where, "round_in_progress", read.choice, RoundInProgress.values)
    double_blank = read.get(rules, where, "double_blank_points", read.integer)
    advancement = read.get(rules, where, "advancement_tie", read.choice, AdvancementTie.values)
    medal_tie = read.get(rules, where, "medal_tie", read.choice, MedalTie.values)
    # "skip" is read here too: files written before it moved to extra have it here.
    penalty = read.get(rules, where, "infraction_penalty", read.choice, InfractionPenalty.values)
    extra = read.extra_of(rules, where)
    extra_at = _at(where, "extra")
    table_size = read.optional(extra, extra_at, "table_size", read.integer)
    site_penalty = read.optional(
        extra, extra_at, "infraction_penalty", read.choice, values=InfractionPenalty.values
    )
    scope = read.optional(
        extra,
        extra_at,
        "infraction_scope",
        read.choice,
        default=InfractionScope.GAME,
        values=InfractionScope.values,
    )
    late = read.optional(extra, extra_at, "late_arrivals", read.boolean, default=False)
    fields = dict(
        set_size=the_set,
        engines=engines,
        tiles_drawn=tiles,
        game_minutes=minutes,
        round_in_progress=in_progress,
        double_blank_points=double_blank,
        advancement_tie=advancement,
        medal_tie=medal_tie,
        infraction_penalty=penalty if site_penalty is None else site_penalty,
        infraction_scope=scope,
        late_arrivals=late if _ok(late) else False,
    )
    if not _ok(the_set):
        return None, fields
    if the_set not in SETS:
        read.error(_at(where, "set"), RuleSet(set=the_set).problems()[0])
        return None, fields
    complete = tiles_complete and _ok(
        engines,
        minutes,
        double_blank,
        table_size,
        in_progress,
        advancement,
        medal_tie,
        penalty,
        site_penalty,
        scope,
    )
    ruleset = RuleSet(
        set=the_set,
        engines=tuple(engines) if _ok(engines) else (the_set,),
        tiles_drawn=tiles if tiles_complete else ((_ok(tiles) and tiles) or {2: 1}),
        game_minutes=minutes if _ok(minutes) else None,
        double_blank_points=double_blank if _ok(double_blank) else 0,
        round_in_progress=in_progress if _ok(in_progress) else "finish",
    )
    given = table_size is not None and _ok(table_size)
    ruleset = replace(ruleset, table_size=table_size if given else _usual_table_size(ruleset))
    fields["table_size"] = ruleset.table_size
    if _rule_problems(read, where, ruleset, given, complete) and complete:
        return ruleset, fields
    # The tables and rounds are still checked when only the time limit or the usual table
    # size is wrong, not when the set, engines, tiles drawn or double-blank are.
    for_tables = replace(ruleset, game_minutes=None, table_size=min(ruleset.tiles_drawn))
    if for_tables.problems() or not (tiles_complete and _ok(engines, double_blank)):
        return None, fields
    timed = replace(for_tables, game_minutes=ruleset.game_minutes)
    return (for_tables if timed.problems() else timed), fields


def _read_int_list(value: Any, where: str, read: _Reader):
    items = read.items(value, where, MAX_ENGINES)
    if isinstance(value, list) and len(value) > MAX_ENGINES:
        return BAD
    if not isinstance(value, list):
        return BAD
    numbers = [read.integer(v, _at(where, i)) for i, v in enumerate(items)]
    return numbers if _ok(*numbers) else BAD


def _read_tiles(value: Any, where: str, read: _Reader):
    tiles = read.obj(value, where, any_key=True)
    if tiles is BAD:
        return BAD
    out: dict[int, int] = {}  # the entries that read well; the others are errors
    for key, drawn in tiles.items():
        at = _at(where, key)
        if not (len(key) <= 3 and key.isascii() and key.isdigit() and str(int(key)) == key):
            read.error(at, _('%(key)s is not a table size such as "4"') % {"key": json.dumps(key)})
            continue
        drawn = read.integer(drawn, at)
        if drawn is not BAD:
            out[int(key)] = drawn
    return out


# -- import: the whole file ----------------------------------------------------------------------


class _Validator(_Reader):
    def __init__(self) -> None:
        super().__init__()
        self.rules: RuleSet | None = None
        self.divisions: dict[str, str] = {}  # player id -> division ("" for none)

    # -- event and players ------------------------------------------------------------------
    def event(self, value: Any) -> dict[str, Any]:
        where = "event"
        event = self.obj(value, where, ("name", "date", "venue", "rules"))
        fields: dict[str, Any] = {
            "name": self.get(event, where, "name", self.text, _max_length(Event, "name")),
            "date": self.get(event, where, "date", self.day),
            "venue": self.get(
                event, where, "venue", self.text, _max_length(Event, "venue"), blank=True
            ),
        }
        if _ok(fields["date"]):
            self.day_of_event = fields["date"]
        if event is not BAD and "rules" in event:
            self.rules, rule_fields = _read_rules(self, event["rules"], _at(where, "rules"))
            fields.update(rule_fields)
        extra = self.extra_of(event, where)
        fields["paper_size"] = self.optional(
            extra,
            _at(where, "extra"),
            "paper_size",
            self.choice,
            default=PaperSize.LETTER,
            values=PaperSize.values,
        )
        # The event's zone (optional): a file without one takes the importing site's.
        fields["time_zone"] = self.optional(
            extra, _at(where, "extra"), "time_zone", self.zone_name, default=""
        )
        fields.update(self.finals(extra, _at(where, "extra")))
        fields["sheet_language"] = self.optional(
            extra,
            _at(where, "extra"),
            "sheet_language",
            self.choice,
            default="",
            values=[code for code, _name in settings.LANGUAGES],
        )
        return fields

    def finals(self, extra: dict, where: str) -> dict[str, Any]:
        """The finals options (issue 12). A file without them was written when each table's
        winner alone advanced: it imports as the top 1, unchanged."""
        if "finals" not in extra:
            return {"finals_top_n": 1}
        where = _at(where, "finals")
        finals = self.obj(extra["finals"], where, (), ("top_n", "fill_to", "big_final"))
        if finals is BAD:
            return {}
        return {
            "finals_top_n": self.optional(finals, where, "top_n", self.integer, lo=1, hi=8),
            "finals_fill_to": self.optional(finals, where, "fill_to", self.integer, lo=2, hi=99),
            "finals_big_final": self.optional(
                finals, where, "big_final", self.boolean, default=False
            ),
        }

    def players(self, value: Any) -> list[_Player]:
        out = []
        first: dict[str, int] = {}
        for i, raw in enumerate(self.items(value, "players", MAX_PLAYERS)):
            where = _at("players", i)
            player = self.obj(raw, where, ("id", "name", "division"))
            if player is BAD:
                continue
            ref = player.get("id")
            if isinstance(ref, str):
                # Known even when wrong, so that its seats are not reported as unknown too.
                if ref in first:
                    self.error(
                        _at(where, "id"),
                        _("%(value)s is the id of %(other)s too")
                        % {"value": _show(ref), "other": _at("players", first[ref])},
                    )
                else:
                    first[ref] = i
            ref = self.get(player, where, "id", self.text, _max_length(Player, "ref"))
            name = self.get(player, where, "name", self.text, _max_length(Player, "name"))
            division = self.get(player, where, "division", self.division)
            extra = self.extra_of(player, where)
            extra_at = _at(where, "extra")
            club = self.optional(
                extra,
                extra_at,
                "club",
                self.text,
                default="",
                max_length=_max_length(Player, "club"),
                blank=True,
            )
            checked_in = self.optional(extra, extra_at, "checked_in", self.boolean, default=False)
            withdrawn = self.optional(extra, extra_at, "withdrawn", self.boolean, default=False)
            former_at = _at(extra_at, "former_names")
            former = [
                self.text(n, _at(former_at, k), _max_length(Player, "name"))
                for k, n in enumerate(
                    self.items(extra.get("former_names"), former_at, MAX_FORMER_NAMES, null=True)
                )
            ]
            if isinstance(player.get("id"), str):
                self.divisions.setdefault(player["id"], division if _ok(division) else "")
            if _ok(ref, name, division, club, checked_in, withdrawn, *former):
                out.append(_Player(ref, name, division, club, checked_in, withdrawn, former))
        return out

    def division(self, value: Any, where: str):
        if value is None:
            return ""
        if value == "":
            self.error(where, _('"" is not a division name: write null for no division'))
            return BAD
        return self.text(value, where, _max_length(Player, "division"))

    def known(self, ref: Any, where: str) -> bool:
        if not isinstance(ref, str):
            self.error(where, _("%(value)s is not a player id (a string)") % {"value": _show(ref)})
            return False
        if ref not in self.divisions:
            self.error(where, _not_a_player(ref))
            return False
        return True

    # -- stages -----------------------------------------------------------------------------
    def stages(self, value: Any) -> list[_Stage]:
        out: list[_Stage] = []
        finals: dict[str, int] = {}  # division ("" for the event's) -> the final's index
        for i, raw in enumerate(self.items(value, "stages", MAX_STAGES)):
            where = _at("stages", i)
            stage = self.obj(raw, where, ("name", "kind", "closed", "tables"), ("medal",))
            name = self.get(stage, where, "name", self.text, _max_length(Stage, "name"))
            kind = self.get(stage, where, "kind", self.choice, StageKind.values)
            closed = self.get(stage, where, "closed", self.boolean)
            medal = ""
            if stage is not BAD and kind == StageKind.PLAYOFF:
                if "medal" not in stage or stage["medal"] is None:
                    self.error(
                        _at(where, "medal"),
                        _('missing: a playoff decides "gold", "silver", "bronze" or "advance"'),
                    )
                    medal = BAD
                else:
                    medal = self.choice(stage["medal"], _at(where, "medal"), Medal.values)
            elif stage is not BAD and stage.get("medal") is not None and _ok(kind):
                self.error(_at(where, "medal"), _("only a playoff stage decides a medal"))
            plan = _Stage(
                name if _ok(name) else "",
                kind if _ok(kind) else "",
                closed if _ok(closed) else False,
                medal if _ok(medal) else "",
            )
            self.stage_extra(stage, where, plan)
            if kind == StageKind.FINAL:
                # One final for the event, and one more per division that played its own
                # Final while another still needed a semifinal (its extra.division says which).
                key = plan.division or ""
                if key in finals:
                    other = _at("stages", finals[key])
                    self.error(
                        _at(where, "kind"),
                        _(
                            "a second final: %(other)s is the final of division %(division)s, "
                            "and a file has one final stage at most per division"
                        )
                        % {"other": other, "division": json.dumps(key)}
                        if key
                        else _(
                            "a second final: %(other)s is the final, and a file has one final "
                            "stage at most"
                        )
                        % {"other": other},
                    )
                finals.setdefault(key, i)
            if stage is not BAD and "tables" in stage:
                plan.tables = self.tables(stage["tables"], _at(where, "tables"), plan)
            out.append(plan)
        for i, stage in enumerate(out):
            self.playoff_of(out, i, stage)
        return out

    def stage_extra(self, stage: dict | _Bad, where: str, plan: _Stage) -> None:
        extra = self.extra_of(stage, where)
        at = _at(where, "extra")
        division = self.optional(
            extra, at, "division", self.text, max_length=_max_length(Stage, "division")
        )
        plan.division = division if _ok(division) else None
        if extra.get("table") is not None:
            ref_at = _at(at, "table")
            ref = self.obj(extra["table"], ref_at, ("stage", "table"))
            index = self.get(ref, ref_at, "stage", self.integer, lo=0, hi=MAX_STAGES)
            number = self.get(ref, ref_at, "table", self.integer, lo=1, hi=SMALL_MAX)
            if _ok(index, number):
                plan.table_ref = (index, number)
        if extra.get("wildcards_of") is not None:
            index = self.integer(
                extra["wildcards_of"], _at(at, "wildcards_of"), lo=0, hi=MAX_STAGES
            )
            plan.wildcards_of = index if _ok(index) else None
        if extra.get("clock") is not None:
            clock_at = _at(at, "clock")
            raw = self.obj(
                extra["clock"],
                clock_at,
                (),
                ("started_at", "paused_at", "paused_total", "time_called_at", "added_minutes"),
            )
            if raw is not BAD:
                clock = {
                    key: self.optional(raw, clock_at, key, self.clock_moment)
                    for key in ("started_at", "paused_at", "time_called_at")
                }
                clock["paused_total"] = self.optional(raw, clock_at, "paused_total", self.seconds)
                clock["added_minutes"] = self.optional(
                    raw, clock_at, "added_minutes", self.integer, lo=1, hi=SMALL_MAX
                )
                if _ok(*clock.values()) and self.clock(clock, clock_at) is not None:
                    plan.clock = clock
        events_at = _at(at, "clock_events")
        clock_events = self.items(extra.get("clock_events"), events_at, MAX_CLOCK_EVENTS, null=True)
        for j, raw in enumerate(clock_events):
            event_at = _at(events_at, j)
            pressed = self.obj(raw, event_at, ("action", "at"), ("minutes", "reason"))
            action = self.get(pressed, event_at, "action", self.choice, ClockAction.values)
            moment = self.get(pressed, event_at, "at", self.clock_moment)
            minutes = reason = None
            if pressed is not BAD:
                minutes = self.optional(
                    pressed, event_at, "minutes", self.integer, lo=1, hi=SMALL_MAX
                )
                reason = self.optional(
                    pressed,
                    event_at,
                    "reason",
                    self.text,
                    default="",
                    max_length=_max_length(ClockEvent, "reason"),
                    blank=True,
                )
            if _ok(action, moment, minutes, reason):
                plan.clock_events.append(_ClockEvent(action, moment, minutes, reason or ""))

    def clock(self, clock: dict[str, Any], where: str | None = None) -> Clock | None:
        """The stage's clock as ``tournament.game.clock`` reads it; an impossible one is an error
        at ``where``."""
        minutes = self.rules.game_minutes if self.rules else None
        added = clock.get("added_minutes")
        if added and not minutes:
            if where is not None:
                self.error(
                    _at(where, "added_minutes"),
                    _("an untimed game has no time limit to lengthen (event.rules.game_minutes)"),
                )
            return None
        try:
            return Clock(
                limit=None if not minutes else timedelta(minutes=minutes + (added or 0)),
                started_at=clock["started_at"],
                paused_at=clock["paused_at"],
                paused_total=clock["paused_total"] or timedelta(0),
                time_called_at=clock["time_called_at"],
            )
        except ValueError as why:
            if where is not None:
                self.error(where, why)
            return None

    def tables(self, value: Any, where: str, stage: _Stage) -> list[_Table]:
        out: list[_Table] = []
        numbers: dict[int, int] = {}
        seated: dict[str, str] = {}  # player id -> where they were first seated in the stage
        final_tables: dict[str, int] = {}  # division -> index of its final table
        items = self.items(value, where, MAX_TABLES)
        if stage.kind == StageKind.PLAYOFF and len(items) > 1:
            self.error(_at(where, 1), _("a playoff is played at one table"))
        for j, raw in enumerate(items):
            at = _at(where, j)
            table = self.obj(raw, at, ("number", "players", "rounds"), ("infractions",))
            number = self.get(table, at, "number", self.integer, lo=1, hi=SMALL_MAX)
            if _ok(number):
                if number in numbers:
                    self.error(
                        _at(at, "number"),
                        _("table %(number)s is also %(other)s")
                        % {"number": number, "other": _at(where, numbers[number])},
                    )
                numbers.setdefault(number, j)
            players = self.seats(table, at, seated)
            plan = _Table(number if _ok(number) else 0, players)
            self.comings_and_goings(table, at, plan)
            division = self.table_division(players, _at(at, "players"))
            if stage.kind == StageKind.FINAL and table is not BAD and division is not None:
                if division in final_tables:
                    other = _at(where, final_tables[division])
                    self.error(
                        at,
                        _(
                            "a second final table for division %(division)s (%(other)s is one): "
                            "a final has one table, one per division when players have divisions"
                        )
                        % {"division": json.dumps(division), "other": other}
                        if division
                        else _(
                            "a second final table (%(other)s is one): a final has one table, "
                            "one per division when players have divisions"
                        )
                        % {"other": other},
                    )
                final_tables.setdefault(division, j)
            self.table_size(players, _at(at, "players"))
            if table is not BAD and "rounds" in table:
                plan.rounds = self.rounds(table["rounds"], _at(at, "rounds"), stage, players, plan)
            extra = self.extra_of(table, at)
            plan.game_over_after = self.game_over(extra, _at(at, "extra"), plan.rounds)
            if table is not BAD and "infractions" in table:
                plan.infractions = self.infractions(
                    table["infractions"], _at(at, "infractions"), stage, plan
                )
            out.append(plan)
        return out

    def game_over(self, extra: dict, where: str, rounds: list[_Round]) -> int | None:
        """The round after which the table's game was marked over (time called): the table's
        last round. A round after it was not played (PRODUCT.md §5); nothing else limits the
        rounds entered after time was called."""
        after = self.optional(extra, where, "game_over_after", self.integer, lo=0, hi=SMALL_MAX)
        if after is None or after is BAD:
            return None
        for n in range(after, len(rounds)):
            self.error(
                _at(_at(where.removesuffix(".extra"), "rounds"), n),
                _(
                    "after the game was marked over after round %(after)s (%(where)s): no later "
                    "round was played"
                )
                % {"after": after, "where": _at(where, "game_over_after")},
            )
        if after > len(rounds):
            self.error(
                _at(where, "game_over_after"),
                ngettext(
                    "%(after)s, but the table has %(count)s round: the game is marked over after "
                    "its last round",
                    "%(after)s, but the table has %(count)s rounds: the game is marked over after "
                    "its last round",
                    len(rounds),
                )
                % {"after": after, "count": len(rounds)},
            )
            return None
        return after

    def comings_and_goings(self, table: dict | _Bad, where: str, plan: _Table) -> None:
        """The table's ``extra.withdrew`` and ``extra.joined``: who left after which round,
        who joined at which round (each a player seated at the table)."""
        extra = self.extra_of(table, where)
        for key, into in (("withdrew", plan.withdrew), ("joined", plan.joined)):
            if extra.get(key) is None:
                continue
            at = _at(_at(where, "extra"), key)
            given = self.obj(extra[key], at, any_key=True)
            if given is BAD:
                continue
            for ref, n in given.items():
                if ref not in plan.players:
                    self.error(_at(at, ref), _not_seated(ref))
                    continue
                n = self.integer(n, _at(at, ref), lo=0 if key == "withdrew" else 1, hi=SMALL_MAX)
                if _ok(n):
                    into[ref] = n

    def seats(self, table: dict | _Bad, where: str, seated: dict[str, str]) -> list[str]:
        if table is BAD or "players" not in table:
            return []
        at = _at(where, "players")
        players = []
        for k, ref in enumerate(self.items(table["players"], at, MAX_PLAYERS)):
            seat_at = _at(at, k)
            if not self.known(ref, seat_at):
                continue
            if ref in seated:
                self.error(
                    seat_at,
                    _("%(value)s is seated twice in this stage (also %(other)s)")
                    % {"value": _show(ref), "other": seated[ref]},
                )
                continue
            seated[ref] = seat_at
            players.append(ref)
        return players

    def table_division(self, players: list[str], where: str) -> str | None:
        """The table's division as the site reads it (``advancement.table_division``); None
        when no player is seated, or when they mix divisions (an error)."""
        if len({self.divisions[p] for p in players}) > 1:
            shown = ", ".join(
                _("%(player)s in %(division)s")
                % {"player": p, "division": _division_name(self.divisions[p])}
                for p in players
            )
            self.error(where, _("a table never mixes divisions: %(players)s") % {"players": shown})
            return None
        if not players:
            return None
        return division_of(self.divisions[p] for p in players)

    def table_size(self, players: list[str], where: str) -> None:
        if self.rules is None or not players:
            return
        size = len(players)
        if size not in self.rules.tiles_drawn:
            listed = ", ".join(map(str, sorted(self.rules.tiles_drawn)))
            self.error(
                where,
                _(
                    "a table of %(size)s is not in event.rules.tiles_drawn (%(listed)s): a table "
                    "is seated only at a size listed there"
                )
                % {"size": size, "listed": listed},
            )

    # -- rounds -----------------------------------------------------------------------------
    def rounds(
        self, value: Any, where: str, stage: _Stage, players: list[str], table: _Table | None = None
    ) -> list[_Round]:
        out: list[_Round] = []
        # One more than a game has (or a playoff's one): the first too many is an error.
        items = self.items(value, where, MAX_ENGINES + 1)
        if items and not players:
            self.error(where, _("a table with no players has no rounds"))
            return out
        playoff = stage.kind == StageKind.PLAYOFF
        for n, raw in enumerate(items):
            at = _at(where, n)
            round_ = self.obj(raw, at, ("engine", "pips"))
            engine = self.get(round_, at, "engine", self.integer)
            if playoff and n >= 1:
                self.error(at, _("a playoff is one round"))
            elif self.rules is not None and _ok(engine):
                engine = self.round_engine(engine, at, n, playoff)
            playing = players
            if table is not None and (table.withdrew or table.joined):
                playing = [
                    p
                    for p in players
                    if table.joined.get(p, 0) <= n + 1 <= table.withdrew.get(p, n + 1)
                ]
            pips = self.get(round_, at, "pips", self.pips, playing, engine)
            extra = self.extra_of(round_, at)
            extra_at = _at(at, "extra")
            entered_at = self.optional(extra, extra_at, "entered_at", self.moment)
            changes_at = _at(extra_at, "changes")
            changes = [
                self.change(c, _at(changes_at, k), players)
                for k, c in enumerate(
                    self.items(extra.get("changes"), changes_at, MAX_CHANGES, null=True)
                )
            ]
            if _ok(engine, pips, entered_at, *changes):
                out.append(_Round(engine, pips, entered_at, changes))
            else:
                out.append(_Round(engine if _ok(engine) else -1, {}))
        return out

    def round_engine(self, engine: int, where: str, n: int, playoff: bool):
        """The engine of round ``n`` (from 0): the next of the rule set's, any double in a
        playoff."""
        rules = self.rules
        if playoff:
            problems = replace(rules, engines=(engine,)).problems()
            for problem in problems:
                self.error(_at(where, "engine"), problem)
            return BAD if problems else engine
        expected = rules.next_engine(n)
        if expected is None:
            self.error(
                where,
                _("a game has %(count)s rounds (event.rules.engines): this would be round %(n)s")
                % {"count": len(rules.engines), "n": n + 1},
            )
            return BAD
        if engine != expected:
            self.error(
                _at(where, "engine"),
                _(
                    "%(engine)s is out of order: round %(n)s is %(expected)s-%(expected)s, the "
                    "next of event.rules.engines"
                )
                % {"engine": engine, "n": n + 1, "expected": expected},
            )
            return BAD
        return engine

    def pips(self, value: Any, where: str, players: list[str], engine: int | _Bad):
        pips = self.obj(value, where, any_key=True)
        if pips is BAD:
            return BAD
        good = True
        counts: dict[str, int] = {}
        for ref in players:
            if ref not in pips:
                self.error(_at(where, ref), _("missing: every seated player has a pip count"))
                good = False
        for ref, count in pips.items():
            at = _at(where, ref)
            if ref not in players:
                known = ref in self.divisions
                self.error(at, _not_seated(ref) if known else _not_a_player(ref))
                good = False
            elif isinstance(count, bool) or not isinstance(count, int):
                self.error(
                    at, _("%(value)s is not a whole number of pips") % {"value": _show(count)}
                )
                good = False
            else:
                counts[ref] = count
        if self.rules is not None and _ok(engine):
            errors = round_errors(self.rules, engine, counts)
            for ref, messages in errors.fields.items():
                for message in messages:
                    self.error(_at(where, ref), message)
            for message in errors.whole:
                self.error(where, message)
            good = good and not errors
        return {ref: pips[ref] for ref in players} if good else BAD

    def change(self, value: Any, where: str, players: list[str]):
        change = self.obj(
            value, where, ("player", "old_pips", "new_pips", "reason"), ("changed_at",)
        )
        player = self.get(change, where, "player", self.seated, players)
        old = self.get(change, where, "old_pips", self.integer, lo=0, hi=INT_MAX)
        new = self.get(change, where, "new_pips", self.integer, lo=0, hi=INT_MAX)
        reason = self.get(change, where, "reason", self.text, _max_length(ScoreChange, "reason"))
        changed_at = (
            BAD if change is BAD else self.optional(change, where, "changed_at", self.moment)
        )
        if not _ok(player, old, new, reason, changed_at):
            return BAD
        return _Change(player, old, new, reason, changed_at)

    def seated(self, ref: Any, where: str, players: list[str]):
        if not self.known(ref, where):
            return BAD
        if ref not in players:
            self.error(where, _not_seated(ref))
            return BAD
        return ref

    # -- infractions ------------------------------------------------------------------------
    def infractions(self, value: Any, where: str, stage: _Stage, table: _Table):
        items = self.items(value, where, MAX_INFRACTIONS)
        if not items:
            return []
        sheet = TableSheet(
            table=Table(stage=Stage(kind=stage.kind)),
            rules=self.rules,
            players=[],
            rounds=[SheetRound(n, r.engine, {}, {}) for n, r in enumerate(table.rounds, 1)],
        )
        out = []
        for k, raw in enumerate(items):
            at = _at(where, k)
            infraction = self.obj(raw, at, ("player", "engine", "kind", "action", "note"))
            player = self.get(infraction, at, "player", self.seated, table.players)
            engine = self.get(infraction, at, "engine", self.integer)
            if _ok(engine) and self.rules is not None:
                why = engine_error(sheet, engine)
                if why:
                    self.error(_at(at, "engine"), why)
                    engine = BAD
            kind = self.get(infraction, at, "kind", self.choice, InfractionKind.values)
            action = self.get(infraction, at, "action", self.choice, InfractionAction.values)
            note = self.get(
                infraction, at, "note", self.text, _max_length(Infraction, "note"), blank=True
            )
            extra = self.extra_of(infraction, at)
            extra_at = _at(at, "extra")
            original = self.optional(
                extra, extra_at, "original_action", self.choice, values=InfractionAction.values
            )
            reason = self.optional(
                extra,
                extra_at,
                "reason",
                self.text,
                default="",
                max_length=_max_length(Infraction, "change_reason"),
                blank=True,
            )
            logged_at = self.optional(extra, extra_at, "logged_at", self.moment)
            changed_at = self.optional(extra, extra_at, "changed_at", self.moment)
            if _ok(player, engine, kind, action, note, original, reason, logged_at, changed_at):
                out.append(
                    _Infraction(
                        player,
                        engine,
                        kind,
                        action,
                        note,
                        original or action,
                        reason,
                        logged_at,
                        changed_at,
                    )
                )
        return out

    # -- playoffs ---------------------------------------------------------------------------
    def playoff_of(self, stages: list[_Stage], i: int, stage: _Stage) -> None:
        """A playoff's division, and the table whose tie an advancement playoff settles."""
        where = _at("stages", i)
        players = [p for t in stage.tables for p in t.players]
        divisions = {self.divisions[p] for p in players}
        if stage.division is not None and stage.kind:
            if divisions and divisions != {stage.division}:
                self.error(
                    _at(_at(where, "extra"), "division"),
                    _("%(division)s, but the players seated play in %(divisions)s")
                    % {
                        "division": json.dumps(stage.division),
                        "divisions": ", ".join(map(_division_name, sorted(divisions))),
                    },
                )
        elif stage.kind == StageKind.PLAYOFF and len(divisions) == 1:
            stage.division = divisions.pop()
        ref_at = _at(_at(where, "extra"), "table")
        if stage.table_ref is not None and stage.medal != Medal.ADVANCE:
            self.error(
                ref_at, _("only an advancement playoff names the table whose tie it settles")
            )
            stage.table_ref = None
        if stage.kind != StageKind.PLAYOFF or stage.medal != Medal.ADVANCE:
            if stage.wildcards_of is not None:
                self.error(
                    _at(_at(where, "extra"), "wildcards_of"),
                    _("only an advancement playoff settles a stage's wildcards"),
                )
                stage.wildcards_of = None
            return
        if stage.wildcards_of is not None:  # tied for the last wildcard: from several tables
            index = stage.wildcards_of
            if index >= i or stages[index].kind not in ADVANCING_KINDS:
                self.error(
                    _at(_at(where, "extra"), "wildcards_of"),
                    _("%(stage)s is not an earlier qualifying or semifinal stage")
                    % {"stage": _at("stages", index)},
                )
                stage.wildcards_of = None
            return
        if stage.table_ref is not None:
            index, number = stage.table_ref
            if index >= len(stages) or stages[index].kind not in ADVANCING_KINDS:
                self.error(
                    ref_at,
                    _("%(stage)s is not a qualifying or semifinal stage")
                    % {"stage": _at("stages", index)},
                )
                stage.table_ref = None
                return
            table = next((t for t in stages[index].tables if t.number == number), None)
            if table is None:
                self.error(
                    ref_at,
                    _("%(stage)s has no table %(number)s")
                    % {"stage": _at("stages", index), "number": number},
                )
                stage.table_ref = None
            elif not set(players) <= set(table.players):
                self.error(ref_at, _("the playoff's players did not all play at that table"))
                stage.table_ref = None
            return
        found = [
            (index, t.number)
            for index, other in enumerate(stages)
            if other.kind in ADVANCING_KINDS
            for t in other.tables
            if players and set(players) <= set(t.players)
        ]
        if found:
            stage.table_ref = found[-1]
        else:
            self.error(
                where,
                _(
                    "an advancement playoff is played by players tied at one table of a "
                    "qualifying or semifinal stage: give it in extra.table"
                ),
            )


def _check_playoffs(read: _Validator, fields: dict[str, Any], plan: _Plan) -> None:
    """Compute the results as the site does: a playoff that no tie calls for, or played by
    other players than the tied ones, is an error at that playoff."""
    playoffs = [i for i, s in enumerate(plan.stages) if s.kind == StageKind.PLAYOFF]
    if not playoffs:
        return
    event = Event(**{k: v for k, v in fields.items() if k in _EVENT_FIELDS})
    event.tiles_drawn = {str(k): v for k, v in fields["tiles_drawn"].items()}
    divisions = {p.id: p.division for p in plan.players}
    players: dict[str, Player] = {}

    def player(ref: str) -> Player:
        if ref not in players:
            players[ref] = Player(pk=ref, division=divisions[ref])
        return players[ref]

    stages, table_pk, sheets = [], {}, {}
    next_pk = itertools.count(1)
    for i, s in enumerate(plan.stages):
        stage = Stage(
            pk=i + 1,
            number=i + 1,
            name=s.name,
            kind=s.kind,
            closed=s.closed,
            medal=s.medal,
            division=s.division or "",
        )
        stages.append(stage)
        # Only what the results read: closed qualifying and semifinal stages, the final and
        # the playoffs (a large open stage costs nothing here).
        counted = s.kind in (StageKind.PLAYOFF, StageKind.FINAL) or (
            s.closed and s.kind in ADVANCING_KINDS
        )
        for t in s.tables:
            table_pk[i, t.number] = next(next_pk)
            if not counted:
                continue
            table = Table(pk=table_pk[i, t.number], stage=stage, number=t.number)
            rounds = [r.pips for r in t.rounds]
            sheet = TableSheet(table=table, rules=event.rules, players=list(map(player, t.players)))
            for n, (r, totals) in enumerate(zip(t.rounds, running_totals(rounds), strict=True), 1):
                sheet.rounds.append(SheetRound(n, r.engine, dict(r.pips), totals))
            sheets.setdefault(stage, []).append(sheet)
    for i, s in enumerate(plan.stages):
        if s.table_ref is not None:
            stages[i].playoff_table_id = table_pk[s.table_ref]
        if s.wildcards_of is not None:
            stages[i].wildcards_of_id = stages[s.wildcards_of].pk
    # The results are computed once, with every playoff; a playoff round that does not fit is
    # found among the scored playoffs deciding the same thing, by its round number.
    results = compute_results(event, {stage: sheets.get(stage, []) for stage in stages})
    groups: dict[tuple, list[int]] = {}
    for i in playoffs:
        s, stage = plan.stages[i], stages[i]
        if not any(t.rounds for t in s.tables[:1]):
            continue
        if s.medal == Medal.ADVANCE:
            key = ("table", stage.playoff_table_id, s.medal)
        else:
            key = ("division", stage.division, s.medal)
        groups.setdefault(key, []).append(i)
    for problem in results.playoff_problems:
        if problem.table_id is not None:
            key = ("table", problem.table_id, problem.decides)
        else:
            key = ("division", problem.division, problem.decides)
        among = groups.get(key, [])
        at = among[min(problem.round_number, len(among)) - 1] if among else None
        read.error(
            "stages" if at is None else _at("stages", at),
            _("this playoff does not fit the ties: %(why)s") % {"why": translated(problem.message)},
        )
    # A playoff still to play is one the results owe, between the players they name.
    # Indexed by what each settles, taken in order: one pass over the playoffs.
    owed: dict[tuple, list] = {}
    for o in results.owed:
        owed.setdefault((o.division, o.medal, o.table and o.table.pk), []).append(o)
    order = {p.id: n for n, p in enumerate(plan.players)}
    for i in playoffs:
        s = plan.stages[i]
        if s.closed and any(t.rounds for t in s.tables):
            continue  # it decided: checked above (an open one decides nothing yet)
        key = (s.division or "", s.medal, stages[i].playoff_table_id)
        if not owed.get(key):
            read.error(
                _at("stages", i),
                _("no %(medal)s playoff is owed: the results call for none") % {"medal": s.medal},
            )
            continue
        match = owed[key].pop(0)
        seated = [p for t in s.tables for p in t.players]
        if seated and set(seated) != set(match.owed.players):
            read.error(
                _at("stages", i),
                _("the %(medal)s playoff owed is between %(owed)s, not %(seated)s")
                % {
                    "medal": s.medal,
                    "owed": ", ".join(sorted(match.owed.players, key=order.get)),
                    "seated": ", ".join(seated),
                },
            )


_EVENT_FIELDS = (
    "late_arrivals",
    "name",
    "date",
    "venue",
    "set_size",
    "engines",
    "table_size",
    "game_minutes",
    "round_in_progress",
    "double_blank_points",
    "advancement_tie",
    "medal_tie",
    "infraction_penalty",
    "infraction_scope",
    "paper_size",
    "time_zone",
    "finals_top_n",
    "finals_fill_to",
    "finals_big_final",
    "sheet_language",
)


def _line_and_column(text: str, offset: int) -> str:
    """The place of character ``offset`` (from 0) of ``text``, as an editor shows it."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind(chr(10), 0, offset) + 1) + 1
    return _("line %(line)s, column %(column)s") % {"line": line, "column": column}


def _parse(data_or_text: Any) -> Any:
    """The file's JSON, or ``EventFileError`` naming where it cannot be read (line, column)."""
    if isinstance(data_or_text, bytes | bytearray | str) and len(data_or_text) > MAX_BYTES:
        raise EventFileError.at(
            [
                (
                    _whole_file(),
                    _("larger than %(most)s MB: an event file is at most that")
                    % {"most": MAX_BYTES // 1_000_000},
                )
            ]
        )
    if isinstance(data_or_text, bytes | bytearray):
        raw = bytes(data_or_text)
        try:
            data_or_text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as why:
            good = raw[: why.start].decode("utf-8-sig", "replace")
            raise EventFileError.at(
                [
                    (
                        _line_and_column(good, len(good)),
                        _("not UTF-8 text (byte %(byte)s cannot be read)")
                        % {"byte": why.start + 1},
                    )
                ]
            ) from None
    if not isinstance(data_or_text, str):
        return data_or_text
    try:
        return json.loads(
            data_or_text.removeprefix("\ufeff"),
            object_pairs_hook=_object_pairs,
            parse_int=_Number.integer,
            parse_float=_Number.real,
            parse_constant=_Number.constant,
        )
    except json.JSONDecodeError as why:
        at = _("line %(line)s, column %(column)s") % {"line": why.lineno, "column": why.colno}
        # The decoder's own words, in the reader's language when they are among JSON_ERRORS.
        raise EventFileError.at(
            [(at, _("not valid JSON: %(why)s") % {"why": _(why.msg)})]
        ) from None
    except RecursionError:
        raise EventFileError.at(
            [(_deepest(data_or_text), _("nested too deeply to be an event file"))]
        ) from None


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _deepest(text: str) -> str:
    """The place (line, column) where ``text`` is nested deepest: lists and objects opened
    and not yet closed, strings skipped."""
    depth = deepest = at = 0
    for token in _TOKEN.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, token.start()
        elif char in "]}":
            depth -= 1
    return _line_and_column(text, at)


def validate(data_or_text: Any) -> _Plan:
    """Read the file; raise ``EventFileError`` naming every error, or return what it says."""
    data = _parse(data_or_text)
    read = _Validator()
    try:
        return _validate(read, data)
    except _TooManyErrors:
        read.errors.append(
            (_whole_file(), _("reading stopped after %(count)s errors") % {"count": MAX_ERRORS})
        )
        raise EventFileError.at(read.errors) from None


def _validate(read: _Validator, data: Any) -> _Plan:
    top = read.obj(data, "", ("format", "version", "event", "players", "stages"), ("results",))
    if top is BAD:
        raise EventFileError.at(read.errors)
    if "format" in top and top["format"] != FORMAT:
        read.error(
            "format",
            _("%(value)s is not %(format)s")
            % {"value": _show(top["format"]), "format": json.dumps(FORMAT)},
        )
    version = top.get("version", VERSION)
    known_version = type(version) is int and version == VERSION
    if not known_version:
        read.error(
            "version",
            _("%(value)s is not a version this site reads (%(version)s)")
            % {"value": _show(version), "version": VERSION},
        )
    if top.get("format") != FORMAT or not known_version or "version" not in top:
        # Not an event file this site knows: its other errors would be noise.
        raise EventFileError.at(read.errors)
    fields = read.event(top["event"]) if "event" in top else {}
    players = read.players(top.get("players", []))
    stages = read.stages(top.get("stages", []))
    plan = _Plan(fields, players, stages)
    if not read.errors:
        _check_playoffs(read, fields, plan)
    if read.errors:
        raise EventFileError.at(read.errors)
    return plan


# -- import: writing ----------------------------------------------------------------------------


def import_event(
    data_or_text: Any,
    *,
    director=None,
    slug: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Event:
    """Create a new event from an event file (text, bytes or the parsed JSON), all or nothing.

    Raises ``EventFileError`` with every error located in the file, writing nothing. The slug
    is made from the name and year (unique) unless given; ``director`` directs the new event.
    ``progress`` is told each step as it starts: ``"checking"``, then ``"writing"``.
    """
    step = progress or (lambda name: None)
    step("checking")
    plan = validate(data_or_text)
    if slug is not None and Event.objects.filter(slug=slug).exists():
        raise EventFileError.at([("event", f"an event with the short name {slug!r} exists")])
    step("writing")
    return write_event(plan, director=director, slug=slug)


@transaction.atomic
def write_event(plan: _Plan, *, director=None, slug: str | None = None) -> Event:
    """The new event of a file ``validate`` read, written in one transaction."""
    fields = {k: v for k, v in plan.event.items() if k in _EVENT_FIELDS}
    event = Event(**fields)
    event.tiles_drawn = {str(k): v for k, v in sorted(plan.event["tiles_drawn"].items())}
    event.slug = slug or unique_slug(event.name, event.date)
    event.save()
    if director is not None:
        event.directors.add(director)
    players = Player.objects.bulk_create(
        Player(
            event=event,
            ref=p.id,
            name=p.name,
            division=p.division,
            club=p.club,
            checked_in=p.checked_in,
            withdrawn=p.withdrawn,
        )
        for p in plan.players
    )
    Action.objects.bulk_create(
        Action(
            event=event,
            verb="player.edited",
            data={
                "player": old,
                "player_pk": by.pk,
                "renamed_from": old,
                "changes": f"name: {old} → {new}",
            },
        )
        for p, by in zip(plan.players, players, strict=True)
        for old, new in zip(p.former_names, [*p.former_names[1:], p.name], strict=False)
    )
    by_id = {p.ref: p for p in players}
    stages = Stage.objects.bulk_create(
        Stage(
            event=event,
            number=i,
            name=s.name,
            auto_name=recognise(s.name, s.kind, s.division or ""),
            kind=s.kind,
            closed=s.closed,
            medal=s.medal,
            division=s.division or "",
            clock_started_at=s.clock.get("started_at"),
            clock_paused_at=s.clock.get("paused_at"),
            clock_paused_total=s.clock.get("paused_total"),
            time_called_at=s.clock.get("time_called_at"),
            clock_added=(
                timedelta(minutes=s.clock["added_minutes"])
                if s.clock.get("added_minutes")
                else None
            ),
        )
        for i, s in enumerate(plan.stages, start=1)
    )
    tables = Table.objects.bulk_create(
        Table(stage=stage, number=t.number, game_over_after=t.game_over_after)
        for stage, s in zip(stages, plan.stages, strict=True)
        for t in s.tables
    )
    table_of = {}
    found = iter(tables)
    for i, s in enumerate(plan.stages):
        for t in s.tables:
            table_of[i, t.number] = next(found)
    linked = []
    for stage, s in zip(stages, plan.stages, strict=True):
        if s.table_ref is not None or s.wildcards_of is not None:
            stage.playoff_table = table_of[s.table_ref] if s.table_ref is not None else None
            stage.wildcards_of = stages[s.wildcards_of] if s.wildcards_of is not None else None
            linked.append(stage)
    Stage.objects.bulk_update(linked, ["playoff_table", "wildcards_of"])
    Seat.objects.bulk_create(
        Seat(
            stage=stage,
            table=table_of[i, t.number],
            player=by_id[ref],
            position=k,
            left_after=t.withdrew.get(ref),
            joined_at=t.joined.get(ref),
        )
        for i, (stage, s) in enumerate(zip(stages, plan.stages, strict=True))
        for t in s.tables
        for k, ref in enumerate(t.players, start=1)
    )
    ClockEvent.objects.bulk_create(
        ClockEvent(stage=stage, action=e.action, at=e.at, minutes=e.minutes, reason=e.reason)
        for stage, s in zip(stages, plan.stages, strict=True)
        for e in s.clock_events
    )
    played = [
        (Round(table=table_of[i, t.number], number=n, engine=r.engine), r)
        for i, s in enumerate(plan.stages)
        for t in s.tables
        for n, r in enumerate(t.rounds, start=1)
    ]
    Round.objects.bulk_create(row for row, _ in played)
    Score.objects.bulk_create(
        Score(round=row, player=by_id[ref], pips=pips)
        for row, r in played
        for ref, pips in r.pips.items()
    )
    store_totals(Table.objects.filter(stage__event=event))
    changes = [
        (
            ScoreChange(
                round=row,
                player=by_id[c.player],
                old_pips=c.old_pips,
                new_pips=c.new_pips,
                reason=c.reason,
            ),
            c.changed_at,
        )
        for row, r in played
        for c in r.changes
    ]
    ScoreChange.objects.bulk_create(row for row, _ in changes)
    infractions = [
        (
            Infraction(
                table=table_of[i, t.number],
                player=by_id[f.player],
                engine=f.engine,
                kind=f.kind,
                note=f.note,
                action=f.action,
                original_action=f.original_action,
                change_reason=f.reason,
                changed_at=f.changed_at,
            ),
            f.logged_at,
        )
        for i, s in enumerate(plan.stages)
        for t in s.tables
        for f in t.infractions
    ]
    Infraction.objects.bulk_create(row for row, _ in infractions)
    # Creation stamps "now" on these; the file's moments are put back where it gives them.
    _restore(Round, "entered_at", [(row, r.entered_at) for row, r in played])
    _restore(ScoreChange, "changed_at", changes)
    _restore(Infraction, "logged_at", infractions)
    return event


def _restore(model: type[Model], name: str, rows: list[tuple[Model, datetime | None]]) -> None:
    given = []
    for row, moment in rows:
        if moment is not None:
            setattr(row, name, moment)
            given.append(row)
    model.objects.bulk_update(given, [name], batch_size=500)
