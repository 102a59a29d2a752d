"""Text that people type: what the site refuses to store, and what it removes from names.

One place for both, used by the request filter (tournament/middleware.py), the players CSV
import, the name fields of the models (tournament/fields.py) and whatever else reads text from
outside (event files).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

# A NUL cannot be stored by PostgreSQL; a lone surrogate is not a character at all (no UTF-8
# encodes it); a carriage return not followed by a line feed is an old Mac line ending that
# reads as one endless line.
_BAD = re.compile(r"\x00|[\ud800-\udfff]|\r(?!\n)")

# Bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069): invisible, and
# they reorder what is shown after them (a name ending in U+202E reverses the totals beside it).
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def bad_character(text: str) -> str | None:
    """Why ``text`` cannot be stored as it is, or None: a NUL, a lone surrogate, a bare CR."""
    found = _BAD.search(text)
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        return _("a NUL character (U+0000)")
    if char == "\r":
        return _("a carriage return without a line feed (an old Mac line ending)")
    return _("a lone surrogate (U+%(code)04X), which is not a character") % {"code": ord(char)}


def without_bidi_controls(text: str) -> str:
    """``text`` without the invisible characters that reorder what follows it on a page."""
    return BIDI_CONTROLS.sub("", text)


# Letters that NFKD does not split into a base letter and a mark.
_FOLD = str.maketrans(
    {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i"}
)


def search_key(text: str) -> str:
    """``text`` as searches compare it: lower case, accents dropped, spaces collapsed.

    "José  NÚÑEZ" and "jose nunez" give the same key, "Zoë Ångström" gives "zoe angstrom",
    "Müller" gives "muller". Kept with each player (``Player.search_key``) so that a search is
    a plain ``contains`` on both databases, never a scan in Python.
    """
    folded = unicodedata.normalize("NFKD", text.casefold().translate(_FOLD))
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(bare.translate(_FOLD).split())


# The apostrophes Unicode counts as letters (modifier letters: "Oʼ", the Hawaiian ʻokina).
_APOSTROPHE_LETTERS = frozenset("\u02b9\u02bb\u02bc\u02bd\u02be\u02bf")


def name_key(text: str) -> str:
    """A name as searches and sorts compare it: its ``search_key`` with nothing but letters
    and digits, so apostrophes of every kind, hyphens, periods and spaces do not count.

    "O'Brien", "O’Brien", "o brien" and "obrien" give "obrien"; "Jean-Émile" gives
    "jeanemile". Kept with each player (``Player.search_key``): a search is a plain
    ``contains`` and an A-to-Z list an ``order_by`` on this key, the same on both databases
    (letters and digits only, compared code point by code point).
    """
    return "".join(c for c in search_key(text) if c.isalnum() and c not in _APOSTROPHE_LETTERS)


@lru_cache(maxsize=65536)
def name_sort_key(name: str) -> tuple[str, str]:
    """Where ``name`` goes in an A-to-Z list: by its ``name_key`` ("Émile" among the E's, not
    after "Zoë"), then by the name itself when two keys are equal."""
    return name_key(name), name


def translated(message) -> str:
    """A message of the plain-Python rules (a ``tournament.game.message.Message``, or an error
    carrying one) in the active language, with the messages among its values; any other text
    as it is."""
    if isinstance(message, Exception) and message.args:
        message = message.args[0]
    template = getattr(message, "template", None)
    if template is None:
        return str(message)
    if not message.values:
        return _(template)
    values = {
        name: translated(value) if hasattr(value, "template") else value
        for name, value in message.values.items()
    }
    return _(template) % values


def colon() -> str:
    """ ":" as the reader's language writes it after a label: French puts a no-break space
    before it ("Total : 12")."""
    return pgettext("punctuation after a label", ":")


def semicolon() -> str:
    """ ";" as the reader's language writes it between two items: "a ; b" in French."""
    return pgettext("punctuation between items", ";")


def labelled(label, value) -> str:
    """``label: value`` in the reader's language."""
    return f"{label}{colon()} {value}"


def semicolons(items) -> str:
    """Items one after the other, "a; b" (French "a ; b")."""
    return f"{semicolon()} ".join(str(item) for item in items)
