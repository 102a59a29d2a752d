"""Event files that once held a worker or answered 500 (issue 11): each is refused with a clear
message at its place, through the director's upload page and the import command, writing
nothing; the slow ones are refused (or read) without computing anything per playoff or per
engine. Times are measured by ``tests/bench.py --event-files``, never asserted here.
"""

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from scoring import eventfile
from scoring.eventfile import EventFileError, checks, import_event
from tests import eventfile_samples
from tests.test_eventfile_errors import BASE, row_counts

pytestmark = pytest.mark.django_db


def upload(client, content: bytes) -> str:
    response = client.post("/director/import/", {"file": SimpleUploadedFile("e.json", content)})
    assert response.status_code == 200
    return response.content.decode()


def command(tmp_path, content: bytes, capsys) -> list[str]:
    path = tmp_path / "event.json"
    path.write_bytes(content)
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_event", str(path))
    return capsys.readouterr().err.splitlines()


def text_of(change) -> bytes:
    data = copy.deepcopy(BASE)
    change(data)
    return json.dumps(data).encode()


def clock(data):
    return data["stages"][0]["extra"]["clock"]


HUGE = "9" * 5000

# (file text, the error as the command prints it)
HOSTILE = {
    "integer-over-4300-digits": (
        json.dumps(BASE).replace('"set": 12', f'"set": {HUGE}').encode(),
        "event.rules.set: a whole number of 5000 digits is more than this file can hold",
    ),
    "huge-pips": (
        json.dumps(BASE).replace('"p1": 0', f'"p1": -{HUGE}', 1).encode(),
        "stages[0].tables[0].rounds[0].pips.p1: -9999999999999999... is not a whole number of pips",
    ),
    "paused-total-1e300": (
        json.dumps(BASE).replace('"paused_total": 0.0', '"paused_total": 1e300', 1).encode(),
        "stages[0].extra.clock.paused_total: 1e300 is not a number of seconds",
    ),
    "paused-total-infinity": (
        json.dumps(BASE).replace('"paused_total": 0.0', '"paused_total": Infinity', 1).encode(),
        "stages[0].extra.clock.paused_total: Infinity is not a number of seconds",
    ),
    "paused-total-400-days": (
        text_of(lambda d: clock(d).update(paused_total=400 * 86400)),
        "stages[0].extra.clock.paused_total: 34560000 seconds is more than 366 days",
    ),
    "nan-pips": (
        json.dumps(BASE).replace('"p1": 0', '"p1": NaN', 1).encode(),
        "stages[0].tables[0].rounds[0].pips.p1: NaN is not a whole number of pips",
    ),
    "nul-in-a-name": (
        text_of(lambda d: d["players"][0].update(name="Ann\x00Lee")),
        "players[0].name: holds a NUL character (U+0000)",
    ),
    "lone-surrogate-in-a-note": (
        json.dumps(BASE)
        .replace('"note": "played a 4-6 on the 11 train"', '"note": "4-6 \\ud800"', 1)
        .encode(),
        "stages[0].tables[0].infractions[0].note: holds a lone surrogate (U+D800), which is "
        "not a character",
    ),
    "lone-surrogate-in-a-key": (
        json.dumps(BASE).replace('"p1": 0', '"p1": 0, "\\udfff": 3', 1).encode(),
        'stages[0].tables[0].rounds[0].pips["\\udfff"]: "\\udfff" is not the id of a player '
        "in players",
    ),
    "clock-in-year-9999": (
        text_of(lambda d: clock(d).update(started_at="9999-12-31T23:59:59+00:00")),
        'stages[0].extra.clock.started_at: "9999-12-31T23:59:59+00:00" is not between '
        "1900-01-01 and 2199-12-31",
    ),
    "clock-event-in-year-1": (
        text_of(
            lambda d: d["stages"][0]["extra"]["clock_events"][0].update(
                at="0001-01-01T00:00:00-05:00"
            )
        ),
        'stages[0].extra.clock_events[0].at: "0001-01-01T00:00:00-05:00" is not between '
        "1900-01-01 and 2199-12-31",
    ),
    "event-in-year-9999": (
        text_of(lambda d: d["event"].update(date="9999-09-19")),
        'event.date: "9999-09-19" is not a date from 1900 to 2199',
    ),
    "huge-table-size-key": (
        text_of(lambda d: d["event"]["rules"]["tiles_drawn"].update({HUGE: 1})),
        f'event.rules.tiles_drawn.{HUGE}: "{HUGE}" is not a table size such as "4"',
    ),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_file_is_refused_at_its_place_on_the_upload_page(director_client, case):
    content, error = HOSTILE[case]
    before = row_counts()
    page = upload(director_client, content)
    where, message = error.split(": ", 1)
    assert "Nothing was imported." in page
    assert f"<code>{where.replace('"', '&quot;')}</code>" in page
    assert message.replace('"', "&quot;") in page
    assert row_counts() == before


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_file_is_refused_at_its_place_by_the_import_command(tmp_path, capsys, case):
    content, error = HOSTILE[case]
    before = row_counts()
    assert error in command(tmp_path, content, capsys)
    assert row_counts() == before


def test_a_thousand_playoffs_nobody_owes_are_refused_each_at_its_place(director_client):
    """1,000 playoff stages seated and not played (~290 KB): the results are computed once,
    not once per playoff, and reading stops at 1,000 errors."""
    text = eventfile_samples.empty_playoffs_file(1_000)
    with pytest.raises(EventFileError) as caught:
        import_event(text)
    errors = caught.value.errors
    assert errors[0] == "stages[3]: no bronze playoff is owed: the results call for none"
    assert errors[998] == "stages[1001]: no bronze playoff is owed: the results call for none"
    assert errors[-1] == "file: reading stopped after 1000 errors"
    page = upload(director_client, text.encode())
    assert "The file has 1001 errors" in page and "and 801 more errors" in page
    assert row_counts() == {name: 0 for name in row_counts()}


def test_playoffs_are_checked_in_one_computation_of_the_results(monkeypatch):
    calls = []
    compute = checks.compute_results
    monkeypatch.setattr(
        checks, "compute_results", lambda *a, **k: calls.append(1) or compute(*a, **k)
    )
    with pytest.raises(EventFileError):
        import_event(eventfile_samples.empty_playoffs_file(50))
    assert calls == [1]


def test_a_long_engine_list_is_refused_before_any_rule_set_is_built(tmp_path, capsys):
    """~98 KB of engines: once a rule set per prefix (2.35 GB), now one message."""
    content = eventfile_samples.long_engines_file(98_000).encode()
    assert command(tmp_path, content, capsys) == [
        "event.rules.engines: 32,666 items: an event file holds at most 19 here"
    ]


def test_an_engine_listed_twice_is_named_at_its_place():
    data = copy.deepcopy(BASE)
    data["event"]["rules"]["engines"] = [12, 11, 10, 11, 9, 40]
    with pytest.raises(EventFileError) as caught:
        import_event(data)
    assert caught.value.errors == [
        "event.rules.engines[5]: Engine 40 is not a double of the double-12 set (0 to 12)",
        "event.rules.engines[3]: An engine is listed twice",
    ]


@pytest.mark.parametrize(
    ("path", "cap", "message"),
    [
        (
            "players",
            eventfile.MAX_PLAYERS,
            "players: 100,001 items: an event file holds at most 100,000 here",
        ),
        (
            "stages",
            eventfile.MAX_STAGES,
            "stages: 10,001 items: an event file holds at most 10,000 here",
        ),
        (
            "stages[0].tables[0].infractions",
            eventfile.MAX_INFRACTIONS,
            "stages[0].tables[0].infractions: 1,001 items: an event file holds at most 1,000 here",
        ),
    ],
)
def test_counts_beyond_the_caps_are_refused_with_the_cap(path, cap, message):
    data = copy.deepcopy(BASE)
    target, key = data, path
    if "." in path:
        target = data["stages"][0]["tables"][0]
        key = "infractions"
    target[key] = [None] * (cap + 1)
    with pytest.raises(EventFileError) as caught:
        import_event(data)
    assert message in caught.value.errors


def test_a_file_larger_than_20_mb_is_refused_unread():
    with pytest.raises(EventFileError) as caught:
        import_event(b" " * (eventfile.MAX_BYTES + 1))
    assert caught.value.errors == ["file: larger than 20 MB: an event file is at most that"]


def test_a_large_valid_file_imports():
    """A valid event of 400 players (the bench reads 100,000): nothing is refused for size."""
    event = import_event(eventfile_samples.large_event_file(400))
    assert event.players.count() == 400
    assert event.stages.get().tables.count() == 100


def test_a_file_nested_too_deeply_is_located_where_it_is_deepest():
    text = '{"format": "[[[",\n "players": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(EventFileError) as caught:
        import_event(text)
    assert caught.value.errors == ["line 2, column 100012: nested too deeply to be an event file"]
