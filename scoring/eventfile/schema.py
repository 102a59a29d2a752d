"""The event file's shape (formats/event-file.md), declared once: pydantic models.

Every object, list, key and value the file may hold is here, with its bounds; the JSON Schema
published for other tools (``docs/event-file.schema.json``) is generated from these models
(``manage.py event_file_schema``). What a shape cannot say (totals, engines in order, seats,
stages, playoffs) is the game's, checked in ``checks.py``.

A field's words for a wrong value, where they are not the general ones, ride with its type
(``Says``): ``reader.py`` turns pydantic's errors into the located messages the site shows.
"""

from __future__ import annotations

import json
import zoneinfo
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal

from django.conf import settings
from django.db.models import Model
from django.utils.translation import gettext_noop
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
)
from pydantic_core import PydanticCustomError

from scoring.models import Infraction, InfractionAction, InfractionKind, ScoreChange
from tournament.game.formats import Format
from tournament.game.rules import SETS
from tournament.models import (
    MAX_QUALIFYING_PLACES,
    AdvancementTie,
    AgeOn,
    ClockAction,
    ClockEvent,
    Event,
    FormatKind,
    InfractionPenalty,
    InfractionScope,
    Medal,
    MedalsFrom,
    MedalTie,
    PaperSize,
    Player,
    QualifierTie,
    Reseat,
    RoundInProgress,
    Stage,
    StageKind,
    Waiting,
)
from tournament.text import bad_character

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
EARLIEST_DATE, LATEST_DATE = date(1900, 1, 1), date(2199, 12, 31)


def _max_length(model: type[Model], name: str) -> int:
    return model._meta.get_field(name).max_length


# -- the kinds of values, each with its words ----------------------------------------------------


@dataclass(frozen=True)
class Says:
    """A field's own words (msgids) for a value that is not of its type, or out of its bounds;
    ``%(value)s`` is the value as the file writes it."""

    not_type: str | None = None
    below: str | None = None
    above: str | None = None


def _refuse(kind: str, **context: Any) -> PydanticCustomError:
    """An error of a kind pydantic has no words for; ``reader.py`` words it."""
    return PydanticCustomError(kind, kind, context)


def _text(value: str, *, blank: bool) -> str:
    if not blank and not value.strip():
        raise _refuse("blank")
    if bad_character(value):
        raise _refuse("bad_character")
    return value


# Not blank (unless allowed), and no NUL, lone surrogate or bare carriage return (text.py).
_STORABLE = r"(?:[^\u0000\r\ud800-\udfff]|\r\n)*"


def Text(most: int, blank: bool = False) -> Any:  # noqa: N802 (a type, written as one)
    """A string of at most ``most`` characters that the site can store (``cannot be empty``
    unless ``blank``)."""
    pattern = f"^{_STORABLE}$" if blank else rf"^(?=[\s\S]*\S){_STORABLE}$"
    return Annotated[
        str,
        StringConstraints(max_length=most),
        AfterValidator(partial(_text, blank=blank)),
        Field(json_schema_extra={"pattern": pattern}),
    ]


# The reader refuses a whole number of more than MAX_DIGITS digits: no count of this file has that
# many (the schema says so of every number the models leave unbounded; the checks bound them).
_DIGITS = {"minimum": -(10**MAX_DIGITS - 1), "maximum": 10**MAX_DIGITS - 1}
Whole = Annotated[int, Field(json_schema_extra=_DIGITS)]


def Int(lo: int | None = None, hi: int | None = None) -> Any:  # noqa: N802
    """A whole number, from ``lo`` to ``hi`` when given."""
    unbounded = {} if lo is not None else {"minimum": _DIGITS["minimum"]}
    return Annotated[int, Field(ge=lo, le=hi, json_schema_extra=unbounded or None)]


def Choice(values: Any) -> Any:  # noqa: N802
    """One of ``values`` (a Django ``TextChoices``, or strings)."""
    return Literal[tuple(getattr(values, "values", values))]


def _capped(value: Any, *, most: int) -> Any:
    if isinstance(value, list) and len(value) > most:
        raise _refuse("items", count=len(value), most=most)
    return value


def Items(item: Any, most: int) -> Any:  # noqa: N802
    """A list of at most ``most`` items: a longer one is refused before its items are read."""
    return Annotated[
        list[item], BeforeValidator(partial(_capped, most=most)), Field(max_length=most)
    ]


def _day(value: Any) -> date:
    if isinstance(value, str) and len(value) == 10 and value[4] == value[7] == "-":
        try:
            day = date.fromisoformat(value)
        except ValueError:
            pass
        else:
            if not EARLIEST_DATE <= day <= LATEST_DATE:
                raise _refuse("date_range")
            return day
    raise _refuse("date")


def _moment(value: Any) -> str:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or "T" not in value:
        raise _refuse("moment")
    if moment.tzinfo is None:
        raise _refuse("moment_zone")
    return value


def moment(text: str) -> datetime:
    """The moment a ``Moment`` of the file names."""
    return datetime.fromisoformat(text)


def _zone(value: str) -> str:
    if value not in zoneinfo.available_timezones():
        raise _refuse("zone")
    return value


def _division(value: Any) -> Any:
    if value == "":
        raise _refuse("division_blank")
    return value


# A date such as 2019-09-19, from 1900 to 2199.
Day = Annotated[
    date, BeforeValidator(_day), Field(json_schema_extra={"pattern": r"^(19|2[01])\d\d-\d\d-\d\d$"})
]
# A date and time with its zone, such as 2019-09-19T10:00:00+00:00, kept as the file writes it
# (how far from the event's date it may be is a check: the event's date is another field).
Moment = Annotated[
    str,
    BeforeValidator(_moment),
    Field(
        json_schema_extra={
            "format": "date-time",
            "pattern": r"^\d{4}-?\d\d-?\d\dT\d.*(Z|[+-]\d\d(:?\d\d)*(\.\d+)?)$",
        }
    ),
]
Seconds = Annotated[
    float,
    Field(ge=0, le=366 * 86400),
    Says(
        not_type=gettext_noop("%(value)s is not a number of seconds"),
        below=gettext_noop("%(value)s is not a number of seconds"),
        above=gettext_noop("%(value)s seconds is more than %(days)s days"),
    ),
]
Zone = Annotated[str, AfterValidator(_zone), Field(description='An IANA time zone, "Europe/Paris"')]
PlayerRef = Annotated[
    str,
    Says(not_type=gettext_noop("%(value)s is not a player id (a string)")),
    Field(description="The id of a player in players"),
]
Pips = Annotated[
    int,
    Says(not_type=gettext_noop("%(value)s is not a whole number of pips")),
    Field(json_schema_extra=_DIGITS),
]
_NOT_SETS = gettext_noop("%(value)s is not 1 or 2 (copies of the set mixed together)")
SetsMixed = Annotated[
    int, Field(ge=1, le=2), Says(not_type=_NOT_SETS, below=_NOT_SETS, above=_NOT_SETS)
]
TableSize = Annotated[str, StringConstraints(pattern=r"^(0|[1-9][0-9]{0,2})$")]
Division = Annotated[
    Text(_max_length(Player, "division")) | None,
    BeforeValidator(_division),
    Field(description="A division name, or null for none"),
]


# -- the objects ---------------------------------------------------------------------------------


class Shape(BaseModel):
    """An object of the file: its keys are these and ``extra`` (anything under it is a site's
    own: what this site knows is read, the rest ignored)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Extra(BaseModel):
    """An ``extra`` object: the keys this site writes and reads; any other is ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Finals(Shape):
    """The road to the Final; without it, each table's winner advances (older files)."""

    top_n: Int(0, 8) | None = None  # 0: none by table place, the best overall (fill_to)
    fill_to: Int(2, 99) | None = None
    big_final: bool | None = None
    extra: Any = None


class Qualifiers(Shape):
    """Qualifiers for the next level (issue 50 item 4, PRODUCT.md §15); absent: none."""

    places: Int(0, MAX_QUALIFYING_PLACES) = Field(
        description="The first places of each division that qualify; 0: none"
    )
    next_level: Text(_max_length(Event, "next_level"), blank=True) = ""
    tie: Choice(QualifierTie) = QualifierTie.ALL_QUALIFY
    extra: Any = None


class Signup(Shape):
    """Sign-up on the event's page (issue 49 item 1); absent: closed, no limit."""

    open: bool = False
    closes: Moment | None = None
    capacity: Int(1, 100_000) | None = None  # places; later sign-ups wait on a list
    approval: bool = False  # a director approves each sign-up
    extra: Any = None


class EventExtra(Extra):
    paper_size: Choice(PaperSize) | None = None
    time_zone: Zone | None = None
    finals: Finals = None  # not null when given
    sheet_language: Choice([code for code, _name in settings.LANGUAGES]) | None = None
    seed_by_rating: bool | None = None  # Game 1 seeded by rating (issue 31); absent: not
    # Players enter their table's rounds from their phones (issue 15); absent: not.
    table_entry: bool | None = None
    # Divisions by age for imported lists, and the day ages are taken on; absent: none.
    age_brackets: Text(_max_length(Event, "age_brackets"), blank=True) | None = None
    age_on: Choice(AgeOn) | None = None
    archived: bool | None = None  # left off the home page's list; absent: listed
    qualifiers: Qualifiers = None  # not null when given
    # Standings and results held back from the public until released; absent: public.
    results_held: bool | None = None
    signup: Signup = None  # not null when given


class RulesExtra(Extra):
    table_size: Whole | None = None
    infraction_penalty: Choice(InfractionPenalty) | None = None
    infraction_scope: Choice(InfractionScope) | None = None
    late_arrivals: bool | None = None


class Rules(Shape):
    """The rule set (PRODUCT.md §2-§8)."""

    set_: Whole = Field(alias="set", description="The highest double of the set")
    sets: SetsMixed = Field(1, description="Copies of the set mixed together: 1 or 2")
    engines: Items(Whole, MAX_ENGINES) = Field(description="The engines in play order")
    tiles_drawn: dict[TableSize, Whole] = Field(
        description="Tiles each player draws, by table size",
        json_schema_extra={"additionalProperties": False},
    )
    game_minutes: Int(hi=SMALL_MAX) | None = Field(description="Minutes per game, or null")
    round_in_progress: Choice(RoundInProgress)
    double_blank_points: Whole
    advancement_tie: Choice(AdvancementTie)
    medal_tie: Choice(MedalTie)
    # "skip" too: files written before it moved to extra have it here.
    infraction_penalty: Choice(InfractionPenalty)
    extra: RulesExtra = Field(default_factory=RulesExtra)


_FORMAT = Format()


class EventFormat(Shape):
    """The event's format (PRODUCT.md §12); without it, a knockout (older files). Its numbers
    are bounded here as the site stores them; what they must be under the rule set and the
    field is ``Format.problems``' (checks.py)."""

    kind: Choice(FormatKind) = _FORMAT.kind
    games: Int(0, SMALL_MAX) = Field(  # not null when given
        None, description="Cumulative kinds (required there): the games everyone plays"
    )
    reseat: Choice(Reseat) = _FORMAT.reseat
    move: Int(0, SMALL_MAX) = Field(
        _FORMAT.move, description="Progressive: how many move up and down at each table"
    )
    final_size: Int(0, SMALL_MAX) | None = Field(
        _FORMAT.final_size,
        description="cumulative_final: players in each division's Final, null for one table's",
    )
    medals_from: Choice(MedalsFrom) = _FORMAT.medals_from
    extra: Any = None


class EventInfo(Shape):
    name: Text(_max_length(Event, "name"))
    date: Day
    venue: Text(_max_length(Event, "venue"), blank=True)
    rules: Rules
    format: EventFormat = None  # not null when given; without it, a knockout
    extra: EventExtra = Field(default_factory=EventExtra)


class PlayerExtra(Extra):
    club: Text(_max_length(Player, "club"), blank=True) | None = None
    # A keep-apart group (issue 49 item 3): seated apart from the others of it where possible.
    keep_apart: Text(_max_length(Player, "keep_apart"), blank=True) | None = None
    checked_in: bool | None = None
    withdrawn: bool | None = None
    former_names: Items(Text(_max_length(Player, "name")), MAX_FORMER_NAMES) | None = None
    # Signed up on the event's page (issue 49): the order of the sign-up (1 for the first), and
    # what the player waits for (the waitlist, a director's approval, or a free place: a
    # walk-on added as standby at the desk, issue 49 item 2); absent: registered. The
    # walk-ons' order as standbys is the order of the players in the file.
    signed_up: Int(1, 10_000_000) | None = None
    waiting: Choice(Waiting) | None = None
    # Senior games (issue 50 item 4): an athlete from outside the district (duplicate medals
    # and qualifying places); absent: in district. The birth date, for the games office.
    out_of_district: bool | None = None
    birth_date: Day | None = None


class PlayerEntry(Shape):
    id: Text(_max_length(Player, "ref"))
    name: Text(_max_length(Player, "name"))
    division: Division
    extra: PlayerExtra = Field(default_factory=PlayerExtra)


class Change(Shape):
    """A score corrected: the audit trail of a round."""

    player: PlayerRef
    old_pips: Int(0, INT_MAX)
    new_pips: Int(0, INT_MAX)
    reason: Text(_max_length(ScoreChange, "reason"))
    changed_at: Moment | None = None
    extra: Any = None


class RoundExtra(Extra):
    entered_at: Moment | None = None
    changes: Items(Change, MAX_CHANGES) | None = None
    # Entered from a player's phone and not confirmed by a second player yet; absent: not.
    awaiting_confirmation: bool | None = None


class RoundEntry(Shape):
    engine: Whole
    pips: dict[str, Pips] = Field(
        description="Pips left in hand, by player id",
        json_schema_extra={"propertyNames": {"pattern": f"^{_STORABLE}$"}},
    )
    extra: RoundExtra = Field(default_factory=RoundExtra)


class InfractionExtra(Extra):
    original_action: Choice(InfractionAction) | None = None
    reason: Text(_max_length(Infraction, "change_reason"), blank=True) | None = None
    logged_at: Moment | None = None
    changed_at: Moment | None = None


class InfractionEntry(Shape):
    player: PlayerRef
    engine: Whole
    kind: Choice(InfractionKind)
    action: Choice(InfractionAction)
    note: Text(_max_length(Infraction, "note"), blank=True)
    extra: InfractionExtra = Field(default_factory=InfractionExtra)


class TableExtra(Extra):
    game_over_after: Int(0, SMALL_MAX) | None = None
    withdrew: dict[str, Int(0, SMALL_MAX)] | None = Field(
        None, description="Player id -> rounds played before withdrawing"
    )
    joined: dict[str, Int(1, SMALL_MAX)] | None = Field(
        None, description="A late arrival's id -> the first round played"
    )
    added_minutes: Int(1, 600) | None = Field(
        None, description="Minutes a director added to this table's clock alone"
    )


class TableEntry(Shape):
    number: Int(1, SMALL_MAX)
    players: Items(PlayerRef, MAX_PLAYERS) = Field(description="Player ids, in seat order")
    rounds: Items(RoundEntry, MAX_ENGINES + 1)
    infractions: Items(InfractionEntry, MAX_INFRACTIONS) = Field(default_factory=list)
    extra: TableExtra = Field(default_factory=TableExtra)


class TableRef(Shape):
    """A table of an earlier stage: its index in stages and its number."""

    stage: Int(0, MAX_STAGES)
    table: Int(1, SMALL_MAX)
    extra: Any = None


class StageClock(Shape):
    started_at: Moment | None = None
    paused_at: Moment | None = None
    paused_total: Seconds | None = None
    time_called_at: Moment | None = None
    added_minutes: Int(1, SMALL_MAX) | None = None
    extra: Any = None


class ClockPress(Shape):
    """A button of the stage clock pressed."""

    action: Choice(ClockAction)
    at: Moment
    minutes: Int(1, SMALL_MAX) | None = None
    reason: Text(_max_length(ClockEvent, "reason"), blank=True) | None = None
    extra: Any = None


class StageExtra(Extra):
    division: Text(_max_length(Stage, "division")) | None = None
    table: TableRef | None = None
    wildcards_of: Int(0, MAX_STAGES) | None = None
    clock: StageClock | None = None
    clock_events: Items(ClockPress, MAX_CLOCK_EVENTS) | None = None
    # A table size the chart does not list, allowed for this stage by a director.
    allowed_size: Int(2, 12) | None = None
    # The seating is a draft, the directors' alone until published; absent: published.
    draft: bool | None = None
    # "Keep the published seating": division ("" for none) -> the advancers (player ids) a
    # correction made, which the seating of this stage was kept against.
    kept_seating: dict[str, Items(PlayerRef, MAX_PLAYERS)] | None = Field(
        None, description='Division ("" for none) -> the advancers the seating was kept against'
    )


class StageEntry(Shape):
    name: Text(_max_length(Stage, "name"))
    kind: Choice(StageKind)
    closed: bool
    tables: Items(TableEntry, MAX_TABLES)
    medal: Choice(Medal) | None = Field(None, description="What a playoff decides")
    extra: StageExtra = Field(default_factory=StageExtra)


class MedalEntry(Shape):
    division: str | None = None
    medal: Choice(("gold", "silver", "bronze"))
    players: list[str]
    pending: Literal["playoff"] | None = None
    between: list[str] | None = None
    none: Literal[True] | None = None


class QualifierEntry(Extra):
    """One line of the qualifier and medal report (scoring/qualifiers.py)."""

    division: str | None = None
    player: str
    place: int
    medal: str | None = None
    qualified: Literal["qualified", "alternate"] | None = None
    out_of_district: bool | None = None


class ResultsExtra(Extra):
    # The qualifier and medal report of each decided division (issue 50 item 4), when the
    # event has qualifying places or out-of-district players: out-of-district medals are here.
    qualifiers: list[QualifierEntry] | None = None


class Results(Shape):
    """Written by export, computed from everything else: ignored on import (recomputed)."""

    advanced: dict[str, list[str]]
    # Cumulative kinds: each closed game's name -> player id -> the cumulative total after it.
    cumulative: dict[str, dict[str, int]] | None = None
    medals: list[MedalEntry]
    extra: ResultsExtra = Field(default_factory=ResultsExtra)


class EventFile(Shape):
    """A whole Mexican Train event: its rule set, players, stages, tables, every round score,
    infractions and playoffs (formats/event-file.md)."""

    model_config = ConfigDict(title="Mexican Train event file")

    format: Literal[FORMAT]
    version: Literal[VERSION]
    event: EventInfo
    players: Items(PlayerEntry, MAX_PLAYERS)
    stages: Items(StageEntry, MAX_STAGES) = Field(description="In play order")
    results: Results | None = None
    extra: Any = None


SCHEMA_FILE = Path(settings.BASE_DIR) / "docs" / "event-file.schema.json"


def json_schema() -> dict[str, Any]:
    """The file's JSON Schema, generated from the models."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **EventFile.model_json_schema(by_alias=True),
    }


def schema_text() -> str:
    """The JSON Schema as published in ``SCHEMA_FILE`` (``manage.py event_file_schema``)."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
