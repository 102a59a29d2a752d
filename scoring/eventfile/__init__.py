"""The event file (formats/event-file.md): a whole event as one JSON file, out and back in.

``export_event`` reads an event into the file's shape (``dumps`` writes it the one stable way),
``import_event`` creates a new event from a file, all or nothing: ``validate`` names every
error by its place in the file (``stages[0].tables[2].rounds[3].pips.p4: ...``), then one
transaction writes the rows in bulk (``write_event``).

- ``schema.py``: the file's shape, declared once in pydantic models; the JSON Schema published
  in docs/event-file.schema.json is generated from them (``manage.py event_file_schema``);
- ``reader.py``: the JSON, the shape's errors in the site's words, at their places;
- ``checks.py``: the game's checks, which ask the site's own rules (no rule is written here);
- ``writer.py``: a valid file into the site; ``exporter.py``: an event out to its file.

An event's format and mixed sets (``event.format``, ``event.rules.sets``, ``results.cumulative``)
are written only when they are not a knockout with one set: a file without them is one.

What the site keeps beyond the format goes under ``extra`` keys, as the format allows:

- ``event.extra``: ``paper_size``, ``sheet_language`` (when set), ``seed_by_rating`` (when
  on: Game 1 seeded by rating), ``table_entry`` (when on: players enter their table's rounds),
  ``age_brackets`` and ``age_on`` (when set), ``archived`` (when true); ``event.rules.extra``:
  ``table_size`` (the usual one),
  ``infraction_scope`` (``"event"`` when warnings count for the whole event, not per game),
  ``infraction_penalty`` (``"skip"``: skip the next turn every time, a rule the format's
  ``infraction_penalty`` has no value for: that one then says ``"warn_then_skip"``) and
  ``late_arrivals`` (the house rule, when on);
- ``players[].extra``: ``club`` (when set), ``checked_in``, ``withdrawn`` (when true) and
  ``former_names`` (names changed at the desk, oldest first, when any);
- ``stages[].extra``: ``division`` (a playoff's), ``table`` (the table whose tie an advancement
  playoff settles: ``{"stage": <index in stages>, "table": <number>}``), ``clock`` (started,
  paused, paused total in seconds, time called, ``added_minutes`` a director added),
  ``clock_events`` (the buttons pressed, with the ``minutes`` added and the ``reason`` given),
  ``allowed_size`` (a table size the chart does not list, allowed for the stage) and
  ``kept_seating`` (division -> the advancers the published seating was kept against);
- ``tables[].extra``: ``game_over_after`` (the table's game marked over after that round, once
  time was called: no round follows it);
  ``withdrew`` (player id -> rounds played before withdrawing: later rounds have no pips for
  them) and ``joined`` (a late arrival's id -> the first round played: earlier rounds have no
  pips for them, the site scores them the table's highest); ``added_minutes`` (minutes a
  director gave this table alone: its time is called that long after the stage's);
- ``rounds[].extra``: ``entered_at``, ``changes`` (the score audit trail) and
  ``awaiting_confirmation`` (a phone's round no second player has confirmed yet);
- ``infractions[].extra``: ``logged_at``, and when changed by a director ``original_action``,
  ``reason`` and ``changed_at``.

Who did what (users) is not in the file: users belong to a site, not to an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _

from scoring.eventfile.checks import Plan
from scoring.eventfile.errors import EventFileError
from scoring.eventfile.exporter import dumps, export_event, player_ids
from scoring.eventfile.reader import validate
from scoring.eventfile.schema import (
    FORMAT,
    MAX_BYTES,
    MAX_ERRORS,
    MAX_INFRACTIONS,
    MAX_PLAYERS,
    MAX_STAGES,
    VERSION,
)
from scoring.eventfile.writer import write_event
from scoring.results import ADVANCING_KINDS, compute_results, division_of
from tournament.models import Event

__all__ = [
    "ADVANCING_KINDS",
    "FORMAT",
    "MAX_BYTES",
    "MAX_ERRORS",
    "MAX_INFRACTIONS",
    "MAX_PLAYERS",
    "MAX_STAGES",
    "VERSION",
    "EventFileError",
    "Plan",
    "compute_results",
    "division_of",
    "dumps",
    "export_event",
    "import_event",
    "player_ids",
    "validate",
    "write_event",
]


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
        raise EventFileError.at(
            [("event", _("an event with the short name %(slug)r exists") % {"slug": slug})]
        )
    step("writing")
    return write_event(plan, director=director, slug=slug)
