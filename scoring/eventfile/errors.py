"""An event file's errors: each named by its place in the file, in the reader's language.

The messages are put in the reader's language when an error is recorded (gettext then reads
the request's language). Places stay as the file writes them: they name its keys
(``stages[0].tables[2].rounds[3].pips.p4``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from scoring.eventfile.schema import MAX_DIGITS, MAX_ERRORS
from tournament.refusals import Refusal
from tournament.text import translated


class EventFileError(Refusal, ValueError):
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


class TooManyErrors(Exception):
    """Reading stops: the file has ``MAX_ERRORS`` errors already."""


class Errors:
    """The errors found so far, in the order found; the ``MAX_ERRORS``-th stops the reading."""

    def __init__(self) -> None:
        self.located: list[tuple[str, str]] = []

    def __bool__(self) -> bool:
        return bool(self.located)

    def __len__(self) -> int:
        return len(self.located)

    def add(self, where: str, message: Any) -> None:
        """Record ``message`` at ``where``, in the reader's language: a message of the rules
        (``tournament.game.message.Message``, or an error carrying one) is translated here."""
        message = translated(message).removesuffix(".")
        self.located.append((_printable(where or whole_file()), _printable(message)))
        if len(self.located) >= MAX_ERRORS:
            raise TooManyErrors

    def refusal(self) -> EventFileError:
        return EventFileError.at(self.located)

    def stopped(self) -> EventFileError:
        """The refusal of a file whose reading stopped at ``MAX_ERRORS``."""
        self.located.append(
            (whole_file(), _("reading stopped after %(count)s errors") % {"count": MAX_ERRORS})
        )
        return self.refusal()


# -- places ----------------------------------------------------------------------------------------

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def at(where: str, key: str | int) -> str:
    """The place of ``key`` inside ``where``: ``stages[0]``, ``pips.p4``, ``pips["a b"]``."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    if not _PLAIN_KEY.fullmatch(key):
        return f"{where}[{json.dumps(key, ensure_ascii=False)}]"
    return f"{where}.{key}" if where else key


def place(loc: Iterable[str | int]) -> str:
    """The place of a path of keys and indexes from the top of the file."""
    where = ""
    for key in loc:
        where = at(where, key)
    return where


def whole_file() -> str:
    """The place of an error of the whole file (no key of it)."""
    return pgettext("the place of an error in an event file", "file")


def line_and_column(text: str, offset: int) -> str:
    """The place of character ``offset`` (from 0) of ``text``, as an editor shows it."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind(chr(10), 0, offset) + 1) + 1
    return _("line %(line)s, column %(column)s") % {"line": line, "column": column}


# -- values, as the file writes them ------------------------------------------------------------


class Number:
    """A number JSON allows but no field of the file can hold (too many digits, too large a
    float, NaN or Infinity), kept as its text so that its place can be named."""

    def __init__(self, text: str, why: str) -> None:
        self.text = text if len(text) <= 20 else text[:17] + "..."
        self.why = why

    @classmethod
    def integer(cls, text: str) -> int | Number:
        digits = len(text.lstrip("-"))
        if digits <= MAX_DIGITS:
            return int(text)
        return cls(
            text,
            _("a whole number of %(digits)s digits is more than this file can hold")
            % {"digits": digits},
        )

    @classmethod
    def real(cls, text: str) -> float | Number:
        value = float(text)
        if math.isfinite(value) and abs(value) < 1e15:
            return value
        return cls(text, _("a number too large for this file"))

    @classmethod
    def constant(cls, text: str) -> Number:
        return cls(text, _("%(value)s is not a number this file can hold") % {"value": text})


_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _printable(text: str) -> str:
    """An error message as it can be printed and shown: control characters and lone surrogates
    written as escapes (\\u0000)."""
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def show(value: Any) -> str:
    """A value as the file writes it, shortened."""
    if isinstance(value, Number):
        return value.text
    if isinstance(value, list | dict) and len(value) > 10:
        return kind(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _("true or false")
    if isinstance(value, int | float | Number):
        return _("a number")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, list):
        return _("a list")
    return _("an object")


def quoted(values: Iterable[str]) -> str:
    return ", ".join(json.dumps(v) for v in values)


def grouped(count: int) -> str:
    """A large count as the reader writes it: 100,000 (English), 100 000 (French)."""
    return number_format(count, force_grouping=True)
