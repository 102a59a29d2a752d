"""The event file (formats/event-file.md): export, import into an empty site, export again."""

import io
import json
import os
import random
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.eventfile import dumps, export_event, import_event, player_ids
from scoring.management.commands.load_demo import DEMO_FILE
from scoring.models import Infraction, Round, ScoreChange
from scoring.results import AdvanceError
from scoring.services.infractions import change_infraction, log_infraction
from scoring.services.rounds import correct_round, end_game, record_round
from scoring.services.stages import close_stage, seat_next_stage
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, seat
from tournament.game.rules import set_tiles
from tournament.models import ClockEvent, Event, Player, StageKind, Table
from tournament.services.clock import add_minutes, call_time, pause_clock, resume_clock, start_clock

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data"
EXAMPLES = sorted(DATA.glob("*.json"))
EVERY_FILE = [*EXAMPLES, DEMO_FILE]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def round_trip(event) -> tuple[str, str]:
    """The event's file, and the file of a copy imported from it."""
    text = dumps(export_event(event))
    return text, dumps(export_event(import_event(text)))


# -- round trips ---------------------------------------------------------------------------------


def test_there_is_an_example_for_each_medal_tie_rule():
    rules = {json.loads(read(path))["event"]["rules"]["medal_tie"] for path in EXAMPLES}
    assert rules == {"nvso", "shared", "playoff"}


@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: p.stem)
def test_every_example_imports_into_an_empty_site_and_exports_the_same_file(path):
    assert not Event.objects.exists()
    text = read(path)
    event = import_event(text)
    assert dumps(export_event(event)) == text


def test_an_event_run_on_the_site_exports_the_same_file_after_import_into_an_empty_site(
    director,
):
    """Everything a director does on the site: clock, rounds, a correction, infractions
    (one changed), closing, a playoff, the final."""
    event = make_event(
        director,
        date=timezone.localdate(),  # the clock runs on the event's day (within days of it)
        engines=[2, 1, 0],
        advancement_tie="playoff",
        paper_size="a4",
        finals_top_n=1,
    )
    players = make_players(event, count=7, club="Reno")
    Player.objects.filter(pk=players[0].pk).update(ref="R-01", club="")
    Player.objects.filter(pk=players[6].pk).update(checked_in=False)
    game1 = seat(event)
    t0 = timezone.now() - timedelta(minutes=50)
    start_clock(game1, director, now=t0)
    pause_clock(game1, director, now=t0 + timedelta(minutes=5))
    resume_clock(game1, director, now=t0 + timedelta(minutes=7))
    t1, t2 = game1.tables.all()
    a, b = table_sheet(t1).players, table_sheet(t2).players
    for table, players, rounds in [
        (t1, a, [(0, 5, 9), (5, 0, 9), (5, 5, 0)]),  # 10, 10, 18: a tie at the top
        (t2, b, [(0, 5, 6), (5, 0, 6), (4, 5, 0)]),  # 9, 10, 12
    ]:
        for pips in rounds:
            record_round(table, {p.pk: n for p, n in zip(players, pips, strict=True)}, director)
    first = t1.rounds.get(engine=2)
    correct_round(first, {s.player_id: s.pips + 1 for s in first.scores.all()}, director, "Typo")
    correct_round(first, {s.player_id: s.pips - 1 for s in first.scores.all()}, director, "Back")
    warned = log_infraction(t1, a[2], 1, "wrong_tile", "4-6 on the 1 train", director)
    log_infraction(t1, a[2], 0, "out_of_turn", "", director)
    change_infraction(warned, "void", "It was the right tile", director)
    call_time(game1, director)
    close_stage(game1, director)
    playoff = event.stages.get(kind=StageKind.PLAYOFF)
    record_round(playoff.tables.get(), {a[0].pk: 3, a[1].pk: 0}, director)
    final = seat_next_stage(event, rng=random.Random(3))
    finalists = table_sheet(final.tables.get()).players
    for pips in [(0, 4), (5, 0), (0, 6)]:
        record_round(
            final.tables.get(), {p.pk: n for p, n in zip(finalists, pips, strict=True)}, director
        )
    close_stage(final, director)

    text = dumps(export_event(event))
    data = json.loads(text)
    ids = player_ids(event.players.all())
    assert data["results"]["advanced"] == {"Game 1": [ids[a[1].pk], ids[b[0].pk]]}
    # The playoff is played before the stage it seats (issue 12 item 5): Game 1, it, Final.
    assert [st["kind"] for st in data["stages"]] == ["qualifying", "playoff", "final"]
    assert data["stages"][1]["extra"]["table"] == {"stage": 0, "table": 1}
    assert [
        c["reason"] for c in data["stages"][0]["tables"][0]["rounds"][0]["extra"]["changes"]
    ] == ["Typo", "Typo", "Typo", "Back", "Back", "Back"]
    Event.objects.all().delete()  # an empty site (but for the users)
    assert not Player.objects.exists() and not Round.objects.exists()
    assert dumps(export_event(import_event(text))) == text


def test_the_rules_of_issue_19_travel_in_the_file_and_back(director, director_client):
    """Warnings per event, "skip the next turn every time", minutes added to the clock and a
    table's game marked over after time was called: exported under extra, imported through
    the director's upload page, exported again the same."""
    event = make_event(
        director,
        date=timezone.localdate(),
        engines=[2, 1, 0],
        infraction_penalty="skip",
        infraction_scope="event",
    )
    make_players(event, count=8)
    game1 = seat(event)
    start_clock(game1, director, now=timezone.now() - timedelta(minutes=50))
    add_minutes(game1, director, 15, "The hall's fire drill")
    t1, t2 = game1.tables.all()
    record_round(t1, {p.pk: n for n, p in enumerate(table_sheet(t1).players)}, director)
    log_infraction(t1, table_sheet(t1).players[1], 2, "out_of_turn", "", director)
    call_time(game1, director)
    end_game(t1, 1, director)

    text = dumps(export_event(event))
    data = json.loads(text)
    rules = data["event"]["rules"]
    assert rules["infraction_penalty"] == "warn_then_skip"  # the format's nearest value
    assert rules["extra"] == {
        "table_size": 4,
        "infraction_penalty": "skip",
        "infraction_scope": "event",
    }
    stage = data["stages"][0]
    assert stage["extra"]["clock"]["added_minutes"] == 15
    assert {"action": "add_minutes", "minutes": 15, "reason": "The hall's fire drill"}.items() <= (
        stage["extra"]["clock_events"][1].items()
    )
    assert stage["tables"][0]["extra"] == {"game_over_after": 1}
    assert "extra" not in stage["tables"][1]
    assert stage["tables"][0]["infractions"][0]["action"] == "skip_turn"

    Event.objects.all().delete()
    response = director_client.post(
        "/director/import/", {"file": SimpleUploadedFile("e.json", text.encode())}
    )
    copy = Event.objects.get()
    assert response.status_code == 302
    assert (copy.infraction_penalty, copy.infraction_scope) == ("skip", "event")
    stage = copy.stages.get(number=1)
    assert stage.clock_added == timedelta(minutes=15)
    assert stage.clock_events.get(action="add_minutes").minutes == 15
    assert [t.game_over_after for t in stage.tables.order_by("number")] == [1, None]
    assert dumps(export_event(copy)) == text


def test_a_file_written_before_the_rules_of_issue_19_imports_as_it_did():
    """ "skip" where the format's other penalties are, and no extras: the defaults."""
    data = json.loads(read(DATA / "shared-medals.json"))
    data["event"]["rules"]["infraction_penalty"] = "skip"
    event = import_event(data)
    assert (event.infraction_penalty, event.infraction_scope) == ("skip", "game")
    assert not event.stages.filter(clock_added__isnull=False).exists()
    assert not Table.objects.filter(game_over_after__isnull=False).exists()


def test_the_importer_ignores_results_and_recomputes_them():
    data = json.loads(read(DATA / "shared-medals.json"))
    expected = data["results"]
    data["results"] = {"advanced": {"Game 1": ["p10"]}, "medals": "whatever"}
    assert export_event(import_event(data))["results"] == expected


# -- results, checked by hand against PRODUCT.md §6 and §7 ----------------------------------------


def results_of(name):
    return export_event(import_event(read(DATA / name)))["results"]


def test_nvso_a_tie_for_gold_gives_no_silver_and_a_bronze_playoff_between_the_next_two():
    # Final totals: p1 40, p5 40, p9 55, p13 70. Two tied for the lowest: both gold, no silver;
    # the next two (p9, p13) play one round for bronze, pending until it is scored.
    assert results_of("nvso-tie-for-gold-bronze-pending.json") == {
        "advanced": {"Game 1": ["p1", "p5", "p9", "p13"]},
        "medals": [
            {"medal": "gold", "players": ["p1", "p5"]},
            {"medal": "silver", "players": [], "none": True},
            {"medal": "bronze", "players": [], "pending": "playoff", "between": ["p9", "p13"]},
        ],
    }


def test_nvso_the_bronze_playoff_winner_gets_bronze():
    # The playoff: p9 dominoes (0), p13 holds 31.
    assert results_of("nvso-tie-for-gold-bronze-played.json")["medals"][2] == {
        "medal": "bronze",
        "players": ["p9"],
    }


def test_shared_medals_share_silver_and_skip_bronze():
    # Final totals 30, 45, 45, 60: the 1, 2, 2, 4 ranking gives no third place.
    assert results_of("shared-medals.json") == {
        "advanced": {"Game 1": ["p1", "p2", "p6", "p7"]},  # ties at both tables' tops
        "medals": [
            {"medal": "gold", "players": ["p1"]},
            {"medal": "silver", "players": ["p2", "p6"]},
            {"medal": "bronze", "players": [], "none": True},
        ],
    }


def test_the_playoff_rule_plays_off_every_tie_and_replays_a_tied_playoff():
    # Final totals p1 30, p5 30, p9 50, p13 50. Gold and silver playoff: 7-7, replayed 0-19;
    # bronze playoff: p9 14, p13 0.
    assert results_of("playoff-medals-with-replay.json")["medals"] == [
        {"medal": "gold", "players": ["p1"]},
        {"medal": "silver", "players": ["p5"]},
        {"medal": "bronze", "players": ["p13"]},
    ]


def test_each_division_has_its_final_table_and_its_medals():
    # 55-59 final: p1 20, p2 35, p5 50. 60-64 final: p9 25, p13 25, p14 40: a tie for gold,
    # no silver, and a single player left gets bronze outright.
    assert results_of("divisions.json") == {
        "advanced": {"Game 1": ["p1", "p2", "p5", "p9", "p13", "p14"]},
        "medals": [
            {"division": "55-59", "medal": "gold", "players": ["p1"]},
            {"division": "55-59", "medal": "silver", "players": ["p2"]},
            {"division": "55-59", "medal": "bronze", "players": ["p5"]},
            {"division": "60-64", "medal": "gold", "players": ["p9", "p13"]},
            {"division": "60-64", "medal": "silver", "players": [], "none": True},
            {"division": "60-64", "medal": "bronze", "players": ["p14"]},
        ],
    }


def test_a_tie_at_a_tables_top_is_settled_by_its_playoff():
    # Table 1: p1 and p2 tie at 30; p2 wins the playoff. Final of two: nobody left for bronze.
    assert results_of("advancement-playoff.json") == {
        "advanced": {"Game 1": ["p2", "p6"]},
        "medals": [
            {"medal": "gold", "players": ["p2"]},
            {"medal": "silver", "players": ["p6"]},
            {"medal": "bronze", "players": [], "none": True},
        ],
    }


def test_no_medals_until_the_final_is_closed():
    assert results_of("untimed-double-9.json") == {
        "advanced": {"Game 1": ["p1", "p7"]},
        "medals": [],
    }


# -- what the site keeps beyond the format ---------------------------------------------------------


def test_the_rules_and_the_extras_are_restored():
    event = import_event(read(DATA / "untimed-double-9.json"))
    assert (event.set_size, event.engines, event.tiles_drawn) == (
        9,
        list(range(9, -1, -1)),
        {"2": 15, "3": 13, "4": 10},
    )
    assert (event.game_minutes, event.round_in_progress, event.double_blank_points) == (
        None,
        "void",
        50,
    )
    assert (event.infraction_penalty, event.paper_size, event.table_size) == (
        "warn_then_skip",
        "a4",
        4,
    )
    ann = event.players.get(ref="p1")
    assert (ann.name, ann.club, ann.checked_in, ann.division) == (
        "Ann Lee",
        "Maple Grove",
        True,
        "",
    )
    change = ScoreChange.objects.get(round__table__stage__event=event)
    assert (change.player.ref, change.old_pips, change.new_pips, change.reason) == (
        "p3",
        13,
        31,
        "misread the sheet",
    )
    assert change.changed_at.isoformat() == "2025-02-22T13:20:00+00:00"
    voided = Infraction.objects.get(table__stage__event=event, action="void")
    assert (voided.original_action, voided.change_reason, voided.kind) == (
        "warning",
        "the tile did not match after all",
        "drew_with_playable",
    )
    assert voided.logged_at.isoformat() == "2025-02-22T13:45:00+00:00"
    first = Round.objects.get(
        table__stage__event=event, table__number=1, number=1, table__stage__number=1
    )
    assert first.entered_at.isoformat() == "2025-02-22T13:06:00+00:00"


def test_the_clock_and_its_buttons_are_restored():
    event = import_event(read(DATA / "nvso-tie-for-gold-bronze-pending.json"))
    game1 = event.stages.get(number=1)
    assert game1.clock_started_at.isoformat() == "2019-09-19T13:00:00+00:00"
    assert game1.time_called_at.isoformat() == "2019-09-19T14:00:00+00:00"
    assert game1.clock_paused_total == timedelta(0) and game1.clock_paused_at is None
    assert list(ClockEvent.objects.filter(stage=game1).values_list("action", flat=True)) == [
        "start",
        "call_time",
    ]


def test_stages_are_numbered_in_file_order_and_a_playoff_knows_its_table():
    event = import_event(read(DATA / "advancement-playoff.json"))
    assert [(s.number, s.name, s.kind) for s in event.stages.all()] == [
        (1, "Game 1", "qualifying"),
        (2, "Final", "final"),
        (3, "Playoff: Game 1, table 1", "playoff"),
    ]
    playoff = event.stages.get(number=3)
    assert (playoff.medal, playoff.playoff_table.stage.number, playoff.playoff_table.number) == (
        "advance",
        1,
        1,
    )


def test_an_imported_event_goes_on_where_the_file_left_it():
    event = import_event(read(DATA / "nvso-tie-for-gold-bronze-pending.json"))
    playoff = event.stages.get(kind=StageKind.PLAYOFF).tables.get()
    p9, p13 = (event.players.get(ref=ref) for ref in ("p9", "p13"))
    record_round(playoff, {p9.pk: 31, p13.pk: 0}, None)
    assert export_event(event)["results"]["medals"][2] == {"medal": "bronze", "players": ["p13"]}


def test_each_import_is_a_new_event_with_a_slug_from_name_and_year(director):
    text = read(DATA / "shared-medals.json")
    first, second = import_event(text, director=director), import_event(text)
    assert first.slug == "reno-senior-games-mexican-train-2024"
    assert second.slug == "reno-senior-games-mexican-train-2024-2"
    assert first.is_director(director) and not second.directors.exists()


# -- player ids ------------------------------------------------------------------------------------


def test_a_players_id_is_their_ref_else_p_and_their_number_never_taken_twice():
    players = [Player(pk=2), Player(pk=5, ref="p2"), Player(pk=7, ref="A-7")]
    assert player_ids(players) == {2: "p2-2", 5: "p2", 7: "A-7"}


def test_generated_ids_survive_the_round_trip(seated):
    event = seated.event
    assert not event.players.exclude(ref="").exists()
    text, again = round_trip(event)
    assert again == text
    ids = [p["id"] for p in json.loads(text)["players"]]
    assert ids == [f"p{p.pk}" for p in event.players.order_by("pk")]


# -- the demo --------------------------------------------------------------------------------------


def test_the_demo_is_loaded_from_its_event_file_as_an_event_in_progress():
    call_command("load_demo", stdout=io.StringIO())
    demo = Event.objects.get(slug="demo")
    assert demo.players.count() == 18
    game1 = demo.stages.get(number=1)
    sheets = [table_sheet(t) for t in game1.tables.all()]
    assert [len(s.players) for s in sheets] == [4, 4, 4, 3, 3]
    assert all(0 < len(s.rounds) < 13 for s in sheets) and not game1.closed
    assert dumps(export_event(demo)) == read(DEMO_FILE)


# -- the pages -------------------------------------------------------------------------------------


def test_a_director_downloads_the_event_file(director_client, seated):
    event = seated.event
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert f'href="/director/e/{event.slug}/event.json"' in page
    response = director_client.get(f"/director/e/{event.slug}/event.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{event.slug}.json"'
    assert response.content.decode() == dumps(export_event(event))


def test_only_the_events_directors_download_it(client, seated):
    url = f"/director/e/{seated.event.slug}/event.json"
    assert client.get(url).status_code == 302  # to the login page
    assert "event.json" not in client.get(f"/e/{seated.event.slug}/").content.decode()
    client.force_login(make_director("another"))
    assert client.get(url).status_code == 403


def upload(client, content: bytes):
    return client.post("/director/import/", {"file": SimpleUploadedFile("event.json", content)})


def test_a_director_uploads_an_event_file_as_a_new_event(director_client, director):
    home = director_client.get("/").content.decode()
    assert 'href="/director/import/"' in home
    assert director_client.get("/director/import/").status_code == 200
    response = upload(director_client, (DATA / "divisions.json").read_bytes())
    event = Event.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/e/{event.slug}/"
    assert event.is_director(director) and event.players.count() == 16


def test_an_upload_with_errors_lists_them_with_their_places_and_saves_nothing(director_client):
    data = json.loads(read(DATA / "nvso-tie-for-gold-bronze-pending.json"))
    data["stages"][0]["tables"][2]["rounds"][0]["pips"]["p10"] = 2000
    data["players"][3]["id"] = "p1"
    page = upload(director_client, json.dumps(data).encode()).content.decode()
    assert "Nothing was imported." in page and "The file has 6 errors" in page
    assert (
        "<code>stages[0].tables[2].rounds[0].pips.p10</code>: 2000 is more than the 731 pips "
        "that can be left"
    ) in page
    assert "<code>players[3].id</code>: &quot;p1&quot; is the id of players[0] too" in page
    assert not Event.objects.exists() and not Player.objects.exists()


def test_an_upload_that_is_not_json_says_where_it_breaks(director_client):
    page = upload(director_client, b'{"format": \n  mexican}').content.decode()
    assert "<code>line 2, column 3</code>: not valid JSON: Expecting value" in page


def test_uploading_needs_the_permission_to_create_events(client):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("keeper", password="x")
    client.force_login(user)
    assert client.get("/director/import/").status_code == 403
    assert "/director/import/" not in client.get("/").content.decode()
    user.user_permissions.add(Permission.objects.get(codename="add_event"))
    assert client.get("/director/import/").status_code == 200


# -- the commands ----------------------------------------------------------------------------------


def test_export_command_writes_the_file_to_the_screen_or_to_a_file(seated, tmp_path):
    out = io.StringIO()
    call_command("export_event", seated.event.slug, stdout=out)
    assert out.getvalue() == dumps(export_event(seated.event))
    path = tmp_path / "spring.json"
    call_command("export_event", seated.event.slug, "-o", str(path), stderr=io.StringIO())
    assert read(path) == out.getvalue()
    with pytest.raises(CommandError, match="No event has the short name 'nope'."):
        call_command("export_event", "nope")


def test_import_command_prints_the_new_slug(director):
    out = io.StringIO()
    call_command(
        "import_event",
        str(DATA / "shared-medals.json"),
        "--director",
        director.username,
        stdout=out,
    )
    assert out.getvalue() == "reno-senior-games-mexican-train-2024\n"
    assert Event.objects.get().is_director(director)
    with pytest.raises(CommandError, match="No user is called 'nobody'."):
        call_command("import_event", str(DATA / "shared-medals.json"), "--director", "nobody")


def test_import_command_exits_non_zero_on_errors(tmp_path):
    data = json.loads(read(DATA / "shared-medals.json"))
    data["event"]["rules"]["set"] = 7
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", "import_event", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": "sqlite:///:memory:"},
        cwd=Path(__file__).parent.parent,
        check=False,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        "event.rules.set: The set must be double-6, double-9, double-12, double-15, double-18"
    )
    assert "Nothing was imported: 1 error in" in result.stderr


# -- the property: whatever the site can record, the file carries back -----------------------------


def some_pips(players, rng):
    """Small counts, so that ties (and so playoffs) are frequent; one player dominoes or none."""
    pips = {p.pk: rng.randint(1, 3) for p in players}
    if rng.random() < 0.8:
        pips[rng.choice(players).pk] = 0
    return pips


def play_out(table, rng, director, rounds=None):
    for _ in range(99 if rounds is None else rounds):
        sheet = table_sheet(table)
        if sheet.next_engine is None:
            return
        record_round(table, some_pips(sheet.players, rng), director)


def play_owed_playoffs(event, rng, director):
    for _ in range(20):  # a tied playoff is played again: a few rounds settle it
        waiting = [
            t
            for t in Table.objects.filter(stage__event=event, stage__kind=StageKind.PLAYOFF)
            if not t.rounds.exists()
        ]
        if not waiting:
            return
        for table in waiting:
            play_out(table, rng, director)


def run_event(event, director, rng, steps):
    """Seat Game 1 (or, when every division fits at one table, the final) and run the event
    for up to ``steps`` steps, as a director would."""
    per_division = Counter(event.players.values_list("division", flat=True))
    fits = max(per_division.values()) <= event.rules.largest_table
    first = 2 if fits and rng.random() < 0.5 else 1
    stage = seat(event, stage_number=first, seed=rng.randint(0, 999))
    if rng.random() < 0.5:
        start_clock(stage, director, now=timezone.now() - timedelta(minutes=5))
    for step in range(steps):
        tables = list(stage.tables.all())
        if step == steps - 1:  # the last step plays part of the stage
            for table in tables:
                play_out(table, rng, director, rounds=rng.randint(0, 2))
            return
        for table in tables:
            play_out(table, rng, director)
            sheet = table_sheet(table)
            if rng.random() < 0.3 and sheet.players:
                log_infraction(
                    table, rng.choice(sheet.players), sheet.rounds[-1].engine, "other", "", director
                )
        close_stage(stage, director)
        play_owed_playoffs(event, rng, director)
        if stage.kind == StageKind.FINAL:
            return
        try:
            stage = seat_next_stage(event, rng=rng)
        except AdvanceError:
            return


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    players=st.integers(min_value=2, max_value=11),
    divisions=st.booleans(),
    steps=st.integers(min_value=0, max_value=4),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_any_event_the_site_can_record_round_trips(director, data, players, divisions, steps, seed):
    the_set = data.draw(st.sampled_from([6, 9, 12]))
    engines = data.draw(st.lists(st.integers(0, the_set), min_size=1, max_size=3, unique=True))
    drawn = (set_tiles(the_set) - 2) // 8  # every table size from 2 to 8 can be dealt
    rules = {
        "set_size": the_set,
        "engines": engines,
        "tiles_drawn": {str(n): drawn for n in range(2, 9)},
        "game_minutes": data.draw(st.sampled_from([None, 60])),
        "round_in_progress": data.draw(st.sampled_from(["finish", "void"])),
        "double_blank_points": data.draw(st.sampled_from([0, 50])),
        "advancement_tie": data.draw(st.sampled_from(["all_advance", "playoff"])),
        "medal_tie": data.draw(st.sampled_from(["nvso", "shared", "playoff"])),
        "infraction_penalty": data.draw(
            st.sampled_from(["warn_then_draw", "draw", "warn_then_skip", "skip"])
        ),
    }
    rng = random.Random(seed)
    with transaction.atomic():
        event = make_event(director, date=timezone.localdate(), **rules)
        groups = ["55-59", "60-64"] if divisions and players >= 4 else [""]
        for n in range(players):
            make_players(
                event,
                [f"Player {n}"],
                division=groups[n % len(groups)],
                club=rng.choice(["", "Reno"]),
            )
        if rng.random() < 0.5:
            event.players.filter(pk=event.players.first().pk).update(ref="R1")
        run_event(event, director, rng, steps)
        text, again = round_trip(event)
        assert again == text
        transaction.set_rollback(True)


def test_the_finals_options_travel_in_the_file_and_old_files_mean_the_winners(director):
    event = make_event(
        director,
        finals_fill_to=5,
        finals_big_final=True,
        tiles_drawn={"2": 15, "3": 15, "4": 15, "5": 15, "6": 12},
    )
    data = export_event(event)
    assert data["event"]["extra"]["finals"] == {"top_n": None, "fill_to": 5, "big_final": True}
    again = import_event(dumps(data))
    assert again.finals_options == event.finals_options
    del data["event"]["extra"]["finals"]
    old = import_event(dumps(data))
    assert (old.finals_top_n, old.finals_fill_to, old.finals_big_final) == (1, None, False)
    assert "finals" not in export_event(old)["event"]["extra"]
