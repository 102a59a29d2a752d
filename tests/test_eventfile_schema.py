"""The event file's published JSON Schema (docs/event-file.schema.json), for other tools: the
models' own, current, and it agrees with the site on the example files and the hostile ones.

The schema says the file's shape; the game's rules (totals, engines in order, seats, playoffs)
and what depends on other fields (a clock within days of the event's date) are the site's
checks, which no schema states. The hostile files here are the shape's.
"""

import copy
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from jsonschema import Draft202012Validator

from scoring.eventfile import EventFileError, validate
from scoring.eventfile.schema import SCHEMA_FILE, schema_text
from tests.test_eventfile_limits import HOSTILE

DATA = Path(__file__).parent / "data"
EXAMPLES = sorted(DATA.glob("*.json"))
BASE = json.loads((DATA / "nvso-tie-for-gold-bronze-pending.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def schema() -> Draft202012Validator:
    published = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(published)
    return Draft202012Validator(published, format_checker=Draft202012Validator.FORMAT_CHECKER)


def parsed(text: str | bytes):
    """A file's JSON as another tool reads it: a number too long for Python's int is a number
    all the same (infinite, so no integer of any bound)."""
    return json.loads(text, parse_int=lambda s: int(s) if len(s) < 4000 else float("inf"))


def test_the_published_schema_is_what_the_models_give():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text()
    out = io.StringIO()
    call_command("event_file_schema", "--check", stdout=out)
    assert out.getvalue() == "event-file.schema.json is what the models give.\n"


def test_the_check_fails_when_the_published_schema_is_not_the_models(tmp_path, monkeypatch):
    stale = tmp_path / "event-file.schema.json"
    stale.write_text(schema_text().replace('"maxItems": 100000', '"maxItems": 99'))
    monkeypatch.setattr("scoring.management.commands.event_file_schema.SCHEMA_FILE", stale)
    with pytest.raises(CommandError, match="is not what the models give"):
        call_command("event_file_schema", "--check")
    call_command("event_file_schema", stdout=io.StringIO())
    assert stale.read_text() == schema_text()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_the_site_imports_is_valid_by_the_schema(schema, path):
    text = path.read_text(encoding="utf-8")
    validate(text)  # the site reads it
    assert list(schema.iter_errors(parsed(text))) == []


def changed(change) -> str:
    data = copy.deepcopy(BASE)
    change(data)
    return json.dumps(data)


def rules(data):
    return data["event"]["rules"]


def game1(data, table=0):
    return data["stages"][0]["tables"][table]


# Files with the wrong shape, from the event file's error tests (test_eventfile_errors.py).
WRONG_SHAPE = {
    "unknown-top-key": lambda d: d.update(colour="red"),
    "another-format": lambda d: d.update(format="mexican-train-results"),
    "another-version": lambda d: d.update(version=2),
    "missing-key": lambda d: rules(d).pop("medal_tie"),
    "unknown-key": lambda d: d["stages"][0].update(tabels=[]),
    "set-true": lambda d: rules(d).update(set=True),
    "set-string": lambda d: rules(d).update(set="12"),
    "closed-1": lambda d: d["stages"][0].update(closed=1),
    "pips-true": lambda d: game1(d)["rounds"][0]["pips"].update(p2=True),
    "pips-string": lambda d: game1(d)["rounds"][0]["pips"].update(p2="29"),
    "pips-half": lambda d: game1(d)["rounds"][0]["pips"].update(p2=29.5),
    "pips-null": lambda d: game1(d)["rounds"][0]["pips"].update(p2=None),
    "stages-object": lambda d: d.update(stages={}),
    "rules-list": lambda d: d["event"].update(rules=[]),
    "engine-string": lambda d: rules(d).update(engines=[12, "11"]),
    "checked-in-yes": lambda d: d["players"][0]["extra"].update(checked_in="yes"),
    "date-not-iso": lambda d: d["event"].update(date="19/09/2019"),
    "moment-not-iso": lambda d: game1(d)["rounds"][0]["extra"].update(entered_at="19 Sep"),
    "moment-no-zone": lambda d: game1(d)["rounds"][0]["extra"].update(
        entered_at="2019-09-19T13:20:00"
    ),
    "blank-name": lambda d: d["event"].update(name=" "),
    "long-id": lambda d: d["players"][0].update(id="x" * 61),
    "seat-not-a-string": lambda d: game1(d)["players"].__setitem__(0, 1),
    "unknown-medal-tie": lambda d: rules(d).update(medal_tie="coin_toss"),
    "unknown-kind": lambda d: d["stages"][0].update(kind="heat"),
    "unknown-infraction": lambda d: game1(d)["infractions"][0].update(kind="cheating"),
    "unknown-paper": lambda d: d["event"]["extra"].update(paper_size="legal"),
    "table-size-04": lambda d: rules(d)["tiles_drawn"].update({"04": 15}),
    "no-tiles-drawn": lambda d: rules(d).pop("tiles_drawn"),
    "empty-division": lambda d: d["players"][3].update(division=""),
    "clock-minutes-0": lambda d: d["stages"][0]["extra"]["clock_events"][0].update(minutes=0),
    "unknown-zone-scope": lambda d: rules(d)["extra"].update(infraction_scope="stage"),
    "too-many-infractions": lambda d: game1(d).update(infractions=[None] * 1001),
}
HOSTILE_SHAPES = [
    "integer-over-4300-digits",
    "huge-pips",
    "paused-total-1e300",
    "paused-total-infinity",
    "paused-total-400-days",
    "nan-pips",
    "nul-in-a-name",
    "lone-surrogate-in-a-note",
    "lone-surrogate-in-a-key",
    "event-in-year-9999",
    "huge-table-size-key",
]


def test_the_base_file_of_the_hostile_ones_is_valid(schema):
    validate(json.dumps(BASE))
    assert list(schema.iter_errors(BASE)) == []


@pytest.mark.parametrize("case", WRONG_SHAPE)
def test_a_file_of_the_wrong_shape_is_refused_by_the_site_and_the_schema(schema, case):
    text = changed(WRONG_SHAPE[case])
    with pytest.raises(EventFileError):
        validate(text)
    assert not schema.is_valid(parsed(text))


# A clock moment is checked against the event's date, another field: the site's check only.
HOSTILE_CHECKS = ["clock-in-year-9999", "clock-event-in-year-1"]


def test_every_hostile_file_is_one_of_the_shape_or_of_the_checks():
    assert sorted(HOSTILE) == sorted(HOSTILE_SHAPES + HOSTILE_CHECKS)


@pytest.mark.parametrize("case", HOSTILE_SHAPES)
def test_a_hostile_file_is_refused_by_the_site_and_the_schema(schema, case):
    content, _error = HOSTILE[case]
    with pytest.raises(EventFileError):
        validate(content)
    assert not schema.is_valid(parsed(content))
