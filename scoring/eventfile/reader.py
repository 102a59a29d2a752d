"""Reading an event file: its JSON, its shape (``schema.py``), then the game's checks.

``validate`` names every error by its place in the file (``stages[0].tables[2].rounds[3].pips.p4:
...``): what cannot be read as JSON by line and column, then the shape's errors (pydantic's,
put in the site's words), then the game's (``checks.py``), which go on reading every part of the
file that has the right shape. Bounds: 20 MB, linear time, at most 1,000 errors listed.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from scoring.eventfile.checks import BAD, Plan, check
from scoring.eventfile.errors import (
    Errors,
    EventFileError,
    Number,
    TooManyErrors,
    grouped,
    kind,
    line_and_column,
    place,
    quoted,
    show,
    whole_file,
)
from scoring.eventfile.schema import (
    EARLIEST_DATE,
    FORMAT,
    LATEST_DATE,
    MAX_BYTES,
    VERSION,
    EventFile,
    Says,
)
from tournament.text import bad_character

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


def validate(data_or_text: Any) -> Plan:
    """Read the file (text, bytes or the parsed JSON); raise ``EventFileError`` naming every
    error, or return what it says."""
    data, twice = _parse(data_or_text)
    errors = Errors()
    try:
        _sniff(errors, data)
        for where in _places_of(data, twice):
            errors.add(where, _("given twice"))
        file, broken = _shape(errors, data)
        plan = check(errors, file, broken)
    except TooManyErrors:
        raise errors.stopped() from None
    if errors:
        raise errors.refusal()
    return plan


# -- JSON ----------------------------------------------------------------------------------------


class _Object(dict):
    """A JSON object that remembers the keys it was given twice."""

    duplicates: tuple[str, ...] = ()


def _parse(data_or_text: Any) -> tuple[Any, list[_Object]]:
    """The file's JSON and its objects that give a key twice, or ``EventFileError`` naming
    where it cannot be read (line, column)."""
    if isinstance(data_or_text, bytes | bytearray | str) and len(data_or_text) > MAX_BYTES:
        raise EventFileError.at(
            [
                (
                    whole_file(),
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
                        line_and_column(good, len(good)),
                        _("not UTF-8 text (byte %(byte)s cannot be read)")
                        % {"byte": why.start + 1},
                    )
                ]
            ) from None
    if not isinstance(data_or_text, str):
        return data_or_text, []
    twice: list[_Object] = []

    def object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
        obj = _Object(pairs)
        if len(obj) < len(pairs):
            seen: set[str] = set()
            keys = []
            for key, _value in pairs:
                if key in seen and key not in keys:
                    keys.append(key)
                seen.add(key)
            obj.duplicates = tuple(keys)
            twice.append(obj)
        return obj

    try:
        data = json.loads(
            data_or_text.removeprefix("\ufeff"),
            object_pairs_hook=object_pairs,
            parse_int=Number.integer,
            parse_float=Number.real,
            parse_constant=Number.constant,
        )
    except json.JSONDecodeError as why:
        where = _("line %(line)s, column %(column)s") % {"line": why.lineno, "column": why.colno}
        # The decoder's own words, in the reader's language when they are among JSON_ERRORS.
        raise EventFileError.at(
            [(where, _("not valid JSON: %(why)s") % {"why": _(why.msg)})]
        ) from None
    except RecursionError:
        raise EventFileError.at(
            [(_deepest(data_or_text), _("nested too deeply to be an event file"))]
        ) from None
    return data, twice


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _deepest(text: str) -> str:
    """The place (line, column) where ``text`` is nested deepest: lists and objects opened
    and not yet closed, strings skipped."""
    depth = deepest = offset = 0
    for token in _TOKEN.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest, offset = depth, token.start()
        elif char in "]}":
            depth -= 1
    return line_and_column(text, offset)


def _places_of(data: Any, twice: list[_Object]) -> list[str]:
    """The place of each key given twice, in the order of the file (one walk, only when the
    file has some)."""
    if not twice:
        return []
    wanted = {id(obj) for obj in twice}
    found = []
    stack: list[tuple[tuple, Any]] = [((), data)]
    while stack:
        loc, value = stack.pop()
        if isinstance(value, dict):
            if id(value) in wanted:
                found += [place((*loc, key)) for key in value.duplicates]
            stack += [((*loc, k), v) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [((*loc, i), v) for i, v in reversed(list(enumerate(value)))]
    return found


# -- which file this is --------------------------------------------------------------------------


def _sniff(errors: Errors, data: Any) -> None:
    """Refuse a file that is not an event file of this version: its other errors would be
    noise."""
    if not isinstance(data, dict):
        errors.add("", _expected_object(data))
        raise errors.refusal()
    known_version = type(data.get("version")) is int and data["version"] == VERSION
    if data.get("format") == FORMAT and known_version:
        return
    for key in data.duplicates if isinstance(data, _Object) else ():
        errors.add(key, _("given twice"))
    keys = _keys(EventFile)
    for key in keys:
        if key not in data and _fields(EventFile)[key][2]:
            errors.add(key, _("missing"))
    for key in data:
        if key not in keys:
            errors.add(place([key]), _unknown_key(EventFile))
    if "format" in data and data["format"] != FORMAT:
        errors.add(
            "format",
            _("%(value)s is not %(format)s")
            % {"value": show(data["format"]), "format": json.dumps(FORMAT)},
        )
    if "version" in data and not known_version:
        errors.add(
            "version",
            _("%(value)s is not a version this site reads (%(version)s)")
            % {"value": show(data["version"]), "version": VERSION},
        )
    raise errors.refusal()


# -- the shape: pydantic's errors in the site's words ---------------------------------------------


def _shape(errors: Errors, data: dict) -> tuple[Any, frozenset[tuple]]:
    """The file as the models read it, and the places (paths) that hold a shape error: the
    file's parts without one are read whole, the parts with one down to their wrong values,
    which read as ``BAD``. ``results`` is not read: the site computes its own."""
    data = {key: value for key, value in data.items() if key != "results"}
    try:
        return EventFile.model_validate(data), frozenset()
    except ValidationError as refused:
        details = refused.errors(include_url=False)
    for detail in details:
        errors.add(*_located(detail))  # stops at MAX_ERRORS
    broken: set[tuple] = set()
    for detail in details:
        loc = detail["loc"]
        broken.update(loc[:n] for n in range(len(loc) + 1))
    exact = frozenset(detail["loc"] for detail in details)
    return _salvage(EventFile, data, (), broken, exact), frozenset(broken)


def _located(error: ErrorDetails) -> tuple[str, str]:
    """A pydantic error as the site says it, at its place in the file."""
    loc, value, context = error["loc"], error.get("input"), error.get("ctx") or {}
    if loc and loc[-1] == "[key]":  # a key of a map: only table sizes have a pattern
        return place(loc[:-1]), _('%(key)s is not a table size such as "4"') % {
            "key": json.dumps(value)
        }
    says = _says_at(loc)
    shown = {"value": show(value)}
    words = {
        "missing": lambda: _("missing"),
        "extra_forbidden": lambda: _unknown_key(_model_at(loc[:-1])),
        "model_type": lambda: _expected_object(value),
        "model_attributes_type": lambda: _expected_object(value),
        "dict_type": lambda: _expected_object(value),
        "list_type": lambda: _("expected a list, not %(kind)s") % {"kind": kind(value)},
        "bool_type": lambda: _("%(value)s is not true or false") % shown,
        "string_type": lambda: _("%(value)s is not a string") % shown,
        "literal_error": lambda: (
            _("%(value)s is not one of %(values)s") % {**shown, "values": quoted(_choices_at(loc))}
        ),
        "greater_than_equal": lambda: (
            _("%(value)s is below %(lo)s") % {**shown, "lo": context["ge"]}
        ),
        "less_than_equal": lambda: (
            _("%(value)s is more than %(hi)s") % {**shown, "hi": context["le"]}
        ),
        "string_too_long": lambda: (
            _("longer than %(most)s characters") % {"most": context["max_length"]}
        ),
        "blank": lambda: _("cannot be empty"),
        "bad_character": lambda: _("holds %(why)s") % {"why": bad_character(value)},
        # a lone surrogate, which pydantic cannot read as a string
        "string_unicode": lambda: _("holds %(why)s") % {"why": bad_character(value)},
        "items": lambda: (
            _("%(count)s items: an event file holds at most %(most)s here")
            % {"count": grouped(context["count"]), "most": grouped(context["most"])}
        ),
        "date": lambda: _("%(value)s is not a date such as 2019-09-19") % shown,
        "date_range": lambda: (
            _("%(value)s is not a date from %(first)s to %(last)s")
            % {**shown, "first": EARLIEST_DATE.year, "last": LATEST_DATE.year}
        ),
        "moment": lambda: (
            _("%(value)s is not a date and time such as 2019-09-19T10:00:00+00:00") % shown
        ),
        "moment_zone": lambda: _("%(value)s has no time zone (such as +00:00)") % shown,
        "zone": lambda: _('%(value)s is not a time zone (such as "Europe/Paris")') % shown,
        "division_blank": lambda: _('"" is not a division name: write null for no division'),
    }
    kind_ = error["type"]
    if kind_ in ("int_type", "int_from_float", "float_type", "string_type"):
        if says.not_type:
            message = _(says.not_type) % shown
        elif kind_ == "string_type":
            message = words[kind_]()
        elif isinstance(value, Number):
            message = value.why
        else:
            message = _("%(value)s is not a whole number") % shown
    elif kind_ == "greater_than_equal" and says.below:
        message = _(says.below) % shown
    elif kind_ == "less_than_equal" and says.above:
        message = _(says.above) % {**shown, "days": int(context["le"] // 86400)}
    elif kind_ in words:
        message = words[kind_]()
    else:  # a kind this file's fields never give: pydantic's own words
        message = error["msg"]
    return place(loc), message


def _expected_object(value: Any) -> str:
    return _("expected an object, not %(kind)s") % {"kind": kind(value)}


def _unknown_key(model: type[BaseModel]) -> str:
    return _("unknown key (expected %(keys)s)") % {"keys": ", ".join(_keys(model))}


# -- the models, walked by the places of their errors --------------------------------------------


@cache
def _fields(model: type[BaseModel]) -> dict[str, tuple[str, Any, bool]]:
    """Each key of the model's object: its field's name, its type (with its bounds and
    words) and whether it is required."""
    return {
        (info.alias or name): (
            name,
            Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation,
            info.is_required(),
        )
        for name, info in model.model_fields.items()
    }


@cache
def _keys(model: type[BaseModel]) -> tuple[str, ...]:
    """The keys of the model's object as the site lists them: required ones, others, extra."""
    fields = _fields(model)
    required = [key for key, (_name, _tp, needed) in fields.items() if needed]
    optional = [key for key, (_name, _tp, needed) in fields.items() if not needed]
    optional.remove("extra")
    return (*required, *optional, "extra")


def _bare(tp: Any) -> tuple[Any, list]:
    """``tp`` without ``Annotated`` and ``| None``, and the metadata met on the way."""
    metadata: list = []
    while True:
        if get_origin(tp) is Annotated:
            tp, *more = get_args(tp)
            metadata += more
        elif get_origin(tp) in (Union, type(int | None)) and type(None) in get_args(tp):
            others = [arg for arg in get_args(tp) if arg is not type(None)]
            tp = others[0] if len(others) == 1 else Union[tuple(others)]  # noqa: UP007
        else:
            return tp, metadata


def _type_at(loc: tuple) -> Any:
    tp: Any = EventFile
    for key in loc:
        tp, _metadata = _bare(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            tp = _fields(tp).get(key, (key, Any, False))[1]
        elif get_origin(tp) is list:
            tp = get_args(tp)[0]
        elif get_origin(tp) is dict:
            tp = get_args(tp)[0 if key == "[key]" else 1]
    return tp


def _model_at(loc: tuple) -> type[BaseModel]:
    return _bare(_type_at(loc))[0]


def _says_at(loc: tuple) -> Says:
    _tp, metadata = _bare(_type_at(loc))
    return next((m for m in metadata if isinstance(m, Says)), Says())


def _choices_at(loc: tuple) -> tuple[str, ...]:
    tp = _bare(_type_at(loc))[0]
    return get_args(tp) if get_origin(tp) is Literal else ()


@cache
def _adapter(tp: Any) -> TypeAdapter:
    return TypeAdapter(tp)


def _salvage(tp: Any, value: Any, loc: tuple, broken: set, exact: frozenset) -> Any:
    """``value`` read as ``tp`` where it has the right shape, ``BAD`` where it has not: a part
    without an error is validated whole, a part with one is read key by key, item by item."""
    if loc not in broken:
        return _adapter(tp).validate_python(value, strict=True)
    if loc in exact:
        return BAD
    tp, _metadata = _bare(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        values = {}
        for key, (name, field_type, required) in _fields(tp).items():
            if key in value:
                values[name] = _salvage(field_type, value[key], (*loc, key), broken, exact)
            elif required:
                values[name] = BAD
        return tp.model_construct(**values)
    if get_origin(tp) is list:
        item = get_args(tp)[0]
        return [_salvage(item, v, (*loc, i), broken, exact) for i, v in enumerate(value)]
    if get_origin(tp) is dict:
        item = get_args(tp)[1]
        return {
            k: _salvage(item, v, (*loc, k), broken, exact)
            for k, v in value.items()
            if (*loc, k, "[key]") not in exact
        }
    return BAD
