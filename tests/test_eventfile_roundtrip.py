"""Every event the site makes comes back from its own file (issue 45 item 1).

Events of every kind are made and played by the site itself (tests/roundtrip.py: its services
as a director uses them, its simulator for the rounds), exported, imported into an empty site
and exported again: the same file, the same standings, results and medals, the same rows. The
same for a series file holding several of them. Then each way the site's own files were once
refused, one by one, through the pages a director uses (the download, the import page).

The figure of the closing note: ``ROUNDTRIP_EVENTS=100 .venv/bin/python -m pytest -n0 -q
tests/test_eventfile_roundtrip.py -k random -s`` (seeds from ``ROUNDTRIP_FIRST``, 1000 by
default) prints how many of 100 random events came back.
"""

import io
import json
import os
import random
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from scoring.eventfile import EventFileError, dumps, export_event, import_event
from scoring.models import Round, Series
from scoring.results import AdvanceError, load_results, seating_conflicts
from scoring.services import backups
from scoring.services.rounds import correct_round, record_round
from scoring.services.series import add_event, create_series
from scoring.services.simulation import simulate_stage, simulate_table
from scoring.services.stages import close_and_seat, close_stage, keep_seating, seat_next_stage
from scoring.sheets import table_sheet
from tests import roundtrip
from tests.concurrency import form_key
from tests.factories import make_event, make_players, seat
from tournament.models import Event, Player, Seat, StageKind, Table
from tournament.services.players import edit_player
from tournament.services.seating import seat_late_arrival, withdraw_player

pytestmark = pytest.mark.django_db

# The seeds of the normal run: between them they make every kind below (about 45 s on
# SQLite); any other seed makes an event of some kind (``test_random_events_...``).
SEEDS = (0, 3, 4, 6, 12, 14, 15, 17, 22, 36)
EVERY_KIND = {
    "format:knockout",
    "format:cumulative",
    "format:cumulative_final",
    "sets:1",
    "sets:2",
    "two double-9 sets, tables of 6 to 8",
    "medal_tie:nvso",
    "medal_tie:shared",
    "medal_tie:playoff",
    "advancement_tie:all_advance",
    "advancement_tie:playoff",
    "divisions",
    "timed",
    "untimed",
    "table playoff",
    "cut playoff",
    "medal playoff",
    "playoff of 2",
    "playoff of 3",
    "playoff at a size the chart does not list",
    "withdrawal before the draw",
    "no-show withdrawn before any round",
    "no-show withdrawn after the draw",
    "table left at a size the chart does not list",
    "withdrawal mid-game",
    "late arrival",
    "division changed after the draw",
    "infraction",
    "correction after a close",
    "seating kept after a correction",
    "table entry",
    "phone's round",
    "phone's round awaiting confirmation",
    "table size allowed for a stage",
    "typed in long after its date",
    "stopped part-way",
    "played to its medals",
}
SIX_TO_EIGHT = {
    "set_size": 9,
    "sets": 2,
    "engines": [9, 8],
    "tiles_drawn": {"6": 15, "7": 13, "8": 12},
    "table_size": 7,
    "game_minutes": None,
}


def download(client, event) -> str:
    answer = client.get(f"/director/e/{event.slug}/event.json")
    assert answer.status_code == 200
    return answer.content.decode()


def upload(client, text: str) -> Event:
    """The import page's form, as it is drawn, with ``text`` as the file: the new event."""
    key = form_key(client.get("/director/import/"))
    answer = client.post(
        "/director/import/", {"file": SimpleUploadedFile("e.json", text.encode()), "once": key}
    )
    assert answer.status_code == 302, answer.content.decode()[:3000]
    return Event.objects.get()


def page_upload(client):
    return lambda text, slug: upload(client, text)


def command_upload(folder):
    """``manage.py import_event`` reads the file: the new event."""

    def through_commands(text: str, slug: str) -> Event:
        path = folder / f"{slug}.json"
        path.write_text(text, encoding="utf-8")
        out = io.StringIO()
        call_command("import_event", str(path), stdout=out)
        return Event.objects.get(slug=out.getvalue().strip())

    return through_commands


def comes_back(client, event) -> Event:
    """The event downloaded from its page, the site emptied, the file uploaded through the
    import page: the copy, whose file is the same and whose results are the same."""
    text = download(client, event)
    results = roundtrip.results_of(event)
    roundtrip.empty_the_site()
    copy = upload(client, text)
    assert download(client, copy) == text
    assert roundtrip.results_of(copy) == results
    return copy


# -- events of every kind, made and played by the site -------------------------------------------


def test_events_of_every_kind_come_back_from_their_own_file(director, director_client, tmp_path):
    """Each seed's event: exported, imported into an empty site, exported again; by the
    service, through the import page, or by the commands, in turn."""
    kinds, failed = set(), []
    ways = [None, page_upload(director_client), command_upload(tmp_path)]
    for n, seed in enumerate(SEEDS):
        upload_ = ways[n % 3]
        made, trip = roundtrip.one(seed, director, upload_)
        kinds |= made.kinds
        if not trip.ok:
            failed.append(f"seed {seed}: {trip.refused or trip.differences}")
    assert not failed, "\n".join(failed)
    assert EVERY_KIND - kinds == set()


def test_random_events_come_back_from_their_own_file(director):
    """``ROUNDTRIP_EVENTS`` more events (3 in the normal run), from ``ROUNDTRIP_FIRST``."""
    first = int(os.environ.get("ROUNDTRIP_FIRST", "1000"))
    count = int(os.environ.get("ROUNDTRIP_EVENTS", "3"))
    failed = []
    for seed in range(first, first + count):
        made, trip = roundtrip.one(seed, director)
        if not trip.ok:
            failed.append(f"seed {seed} ({', '.join(sorted(made.kinds))}): {trip.refused[:500]}")
            failed[-1] += "; ".join(trip.differences[:3])
    print(f"\n{count - len(failed)} of {count} random events came back from their own file")
    assert not failed, "\n".join(failed)


def test_a_series_of_generated_events_comes_back_from_its_file(director, director_client):
    """A season of four generated nights (a knockout, the cumulative kinds, the night of two
    double-9 sets): the series file downloaded, the site emptied, the file uploaded through
    the series import page, downloaded again; each event and the standings the same."""
    series = create_series(
        Series(
            name="Club season",
            slug="club-season",
            scoring="points",
            points=[10, 8, 6, 5, 4, 3, 2, 1],
            medal_bonus=[3, 2, 1],
            best_of=None,
            tie_break="wins",
        ),
        director,
    )
    for seed in (4, 5, 6, 11):
        add_event(series, roundtrip.make(seed, director).event, director)
    client = director_client
    text = client.get("/director/s/club-season/series.json").content.decode()
    events = {e.name: roundtrip.site_state(e) for e in Event.objects.all()}
    results = {e.name: roundtrip.results_of(e) for e in Event.objects.all()}
    visitor = Client()
    standings = visitor.get("/s/club-season/export/?_export=csv").content.decode()
    page = roundtrip._visible(visitor.get("/s/club-season/").content.decode())
    roundtrip.empty_the_site()
    key = form_key(client.get("/director/import/series/"))
    answer = client.post(
        "/director/import/series/",
        {"file": SimpleUploadedFile("season.series.json", text.encode()), "once": key},
    )
    assert answer.status_code == 302, answer.content.decode()[:3000]
    copy = Series.objects.get()
    assert client.get(f"/director/s/{copy.slug}/series.json").content.decode() == text
    assert {e.name: roundtrip.site_state(e) for e in Event.objects.all()} == events
    assert {e.name: roundtrip.results_of(e) for e in Event.objects.all()} == results
    assert visitor.get(f"/s/{copy.slug}/export/?_export=csv").content.decode() == standings
    assert roundtrip._visible(visitor.get(f"/s/{copy.slug}/").content.decode()) == page


# -- each way the site's own files were refused -------------------------------------------------


def enter(table, totals: dict, user=None) -> None:
    """One round that leaves each player of ``table`` with the total given (a paper sheet
    typed in)."""
    record_round(table, {p.pk: totals[p.name] for p in table_sheet(table).players}, user)


def test_the_night_of_the_issue_a_three_way_tie_at_the_cut_comes_back(
    director, director_client, settings, tmp_path
):
    """Two mixed double-9 sets, tables of 6 to 8, a three-way tie at the Final's cut: the site
    seats a playoff of 3, the simulator plays it (dealt as a table of 6: 15 tiles each), and
    its event file, its backup and the series file holding it come back."""
    event = make_event(
        director,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=6,
        advancement_tie="playoff",
        **{**SIX_TO_EIGHT, "engines": [9]},
    )
    make_players(event, [f"P{n:02d}" for n in range(1, 13)])
    game1 = seat(event)
    totals = dict(
        zip(
            [f"P{n:02d}" for n in range(1, 13)],
            [1, 2, 3, 4, 5, 10, 10, 10, 20, 21, 22, 23],
            strict=True,
        )
    )
    for table in Table.objects.filter(stage=game1):
        enter(table, totals, director)
    closed = close_and_seat(game1, director)
    [playoff] = closed.playoffs
    assert sorted(s.player.name for s in Seat.objects.filter(stage=playoff)) == [
        "P06",
        "P07",
        "P08",
    ]
    for _replay in range(10):  # a tied playoff is played again
        open_ = event.stages.filter(kind=StageKind.PLAYOFF, closed=False).first()
        if open_ is None:
            break
        simulate_stage(open_, seed=7)
    final = seat_next_stage(event, rng=random.Random(2))
    assert Seat.objects.filter(stage=final).count() == 6

    text = download(director_client, event)
    data = json.loads(text)
    assert [len(t["players"]) for t in data["stages"][1]["tables"]] == [3]
    assert data["event"]["rules"]["tiles_drawn"] == {"6": 15, "7": 13, "8": 12}
    settings.BACKUP_DIR = str(tmp_path)
    backup = backups.back_up(event.pk).read_text(encoding="utf-8")
    series = create_series(
        Series(name="Night", slug="night", scoring="points", points=[3, 2, 1]), director
    )
    add_event(series, event, director)
    season = director_client.get("/director/s/night/series.json").content.decode()

    copy = comes_back(director_client, event)
    assert copy.stages.get(kind=StageKind.PLAYOFF, number=2).tables.get().seats.count() == 3
    roundtrip.empty_the_site()
    assert dumps(export_event(import_event(backup))) == backup
    roundtrip.empty_the_site()
    key = form_key(director_client.get("/director/import/series/"))
    answer = director_client.post(
        "/director/import/series/",
        {"file": SimpleUploadedFile("night.series.json", season.encode()), "once": key},
    )
    assert answer.status_code == 302
    assert director_client.get("/director/s/night/series.json").content.decode() == season


def test_a_table_a_withdrawn_no_show_left_at_five_comes_back(director, director_client):
    """Tables of 6 to 8, two tables of 6: one starts, then a no-show at the other is withdrawn,
    which plays at 5 (dealt as at 6); the simulator plays it and the file brings it back."""
    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=12)
    game1 = seat(event)
    started, waiting = Table.objects.filter(stage=game1).order_by("number")
    simulate_table(started, seed=1, rounds=1)
    withdraw_player(waiting.seats.first().player, director, "Did not come")
    simulate_stage(game1, seed=1)
    assert waiting.seats.count() == 5 and Round.objects.filter(table=waiting).count() == 2
    copy = comes_back(director_client, event)
    sizes = [t.seats.count() for t in copy.stages.get(number=1).tables.order_by("number")]
    assert sizes == [6, 5]


def test_an_event_typed_in_from_paper_long_after_its_date_comes_back(director, director_client):
    """A 2024 event whose rounds, clock and corrections are typed in today."""
    event = make_event(director, date=timezone.localdate().replace(year=2024), game_minutes=60)
    make_players(event, count=8)
    game1 = seat(event)
    simulate_stage(game1, seed=2)
    first = Round.objects.filter(table__stage=game1).first()
    correct_round(first, {s.player_id: s.pips + 1 for s in first.scores.all()}, director, "Typo")
    copy = comes_back(director_client, event)
    assert copy.date.year == 2024
    assert Round.objects.filter(table__stage__event=copy).first().entered_at.year > 2025


def test_a_division_changed_after_the_draw_comes_back_at_the_table_it_was_drawn_at(
    director, director_client
):
    """A wrong age bracket found at the table: the player's division is corrected after the
    draw; their table keeps them, and so does the file."""
    event = make_event(director, engines=[3, 2], game_minutes=None)
    make_players(event, count=8, division="55-64")
    make_players(event, [f"Senior {n}" for n in range(8)], division="65+")
    game1 = seat(event)
    moved = Seat.objects.filter(stage=game1, player__division="55-64").first().player
    edit_player(moved, {"division": "65+"}, director)
    simulate_stage(game1, seed=4)
    close_and_seat(game1, director)
    copy = comes_back(director_client, event)
    player = copy.players.get(name=moved.name)
    assert player.division == "65+"
    table = Seat.objects.get(player=player, stage__number=1).table
    assert {s.player.division for s in table.seats.all()} == {"55-64", "65+"}


def test_the_cut_playoff_check_scores_a_late_arrivals_missed_rounds(director, director_client):
    """A late arrival's missed round scores the table's highest (10): with it, Late ties at the
    Final's cut and the site owes a playoff of 3. The import's check once left that round out
    (Late at 2, clear of the cut: no playoff owed) and refused the site's own playoff."""
    event = make_event(
        director,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=3,
        advancement_tie="playoff",
        late_arrivals=True,
        engines=[2, 1],
        game_minutes=None,
    )
    make_players(event, [f"P{n}" for n in range(1, 8)])
    late = make_players(event, ["Late"], checked_in=False)[0]
    game1 = seat(event)  # tables of 4 and 3
    table1, table2 = Table.objects.filter(stage=game1).order_by("number")
    a = table_sheet(table1).players
    record_round(table1, dict(zip([p.pk for p in a], [10, 2, 3, 4], strict=True)), director)
    seat_late_arrival(game1, late, table1, director)  # round 1 missed: 10, the highest
    record_round(
        table1, {a[0].pk: 20, a[1].pk: 1, a[2].pk: 1, a[3].pk: 20, late.pk: 2}, director
    )  # 30, 3, 4, 24 and Late 12
    b = [p.pk for p in table_sheet(table2).players]
    for pips in ([5, 6, 20], [7, 6, 20]):  # 12, 12, 40
        record_round(table2, dict(zip(b, pips, strict=True)), director)
    closed = close_and_seat(game1, director)
    [playoff] = closed.playoffs
    assert {s.player_id for s in Seat.objects.filter(stage=playoff)} == {late.pk, b[0], b[1]}
    copy = comes_back(director_client, event)
    assert copy.stages.filter(kind=StageKind.PLAYOFF).count() == 1


def test_a_player_who_withdrew_mid_game_is_not_in_contention_in_the_import_check(director):
    """The check reads the file as the site does: a player who withdrew during the game is out
    of contention, so the playoff the site owes for the others' tie is the one the file holds
    (once the check counted the withdrawn player tied too, and refused it)."""
    event = make_event(
        director, advancement_tie="playoff", engines=[2, 1], game_minutes=None, finals_top_n=1
    )
    make_players(event, count=8)
    game1 = seat(event)
    table1, table2 = Table.objects.filter(stage=game1).order_by("number")
    p = table_sheet(table1).players
    record_round(table1, {p[0].pk: 1, p[1].pk: 3, p[2].pk: 5, p[3].pk: 9}, director)
    withdraw_player(p[0], director, "Went home")  # 1 after round 1: out, though lowest
    record_round(
        table1, {p[1].pk: 2, p[2].pk: 0, p[3].pk: 9}, director
    )  # 5, 5, 18: tied at the top
    q = table_sheet(table2).players
    for pips in ([0, 5, 6, 7], [1, 5, 6, 7]):
        record_round(table2, dict(zip([x.pk for x in q], pips, strict=True)), director)
    [playoff] = close_stage(game1, director)
    assert {s.player_id for s in Seat.objects.filter(stage=playoff)} == {p[1].pk, p[2].pk}
    text = dumps(export_event(event))
    roundtrip.empty_the_site()
    assert dumps(export_event(import_event(text))) == text


def test_a_phones_round_awaiting_confirmation_comes_back_awaiting(director, director_client):
    """Once it came back confirmed: the copy's close went through without the second
    player's word."""
    event = make_event(director, table_entry=True, engines=[3], game_minutes=None)
    make_players(event, count=8)
    game1 = seat(event)
    phone, paper = Table.objects.filter(stage=game1).order_by("number")
    pips = {p.pk: n for n, p in enumerate(table_sheet(phone).players)}
    record_round(phone, pips, None, device="0123456789ab")
    record_round(paper, {p.pk: n for n, p in enumerate(table_sheet(paper).players)}, director)
    copy = comes_back(director_client, event)
    waiting = Round.objects.get(table__stage__event=copy, table__number=phone.number)
    assert waiting.awaiting_confirmation and waiting.table.rounds_awaiting == 1
    with pytest.raises(AdvanceError, match="1 round entered from a player's phone"):
        close_and_seat(copy.stages.get(number=1), director)


def test_players_entering_their_tables_rounds_comes_back_switched_on(director, director_client):
    event = make_event(director, table_entry=True)
    make_players(event, count=4)
    copy = comes_back(director_client, event)
    assert copy.table_entry
    assert '"table_entry": true' in download(director_client, copy)


def test_keep_the_published_seating_comes_back_and_the_conflict_stays_settled(
    director, director_client
):
    """A correction after the Final was seated changes who advances; the director keeps the
    published seating. Once a file's import lost it: the settled conflict came back."""
    event = make_event(director, engines=[2, 1], game_minutes=None, finals_top_n=1)
    make_players(event, count=8)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        players = table_sheet(table).players
        for pips in ([0, 5, 6, 7], [1, 5, 6, 7]):
            record_round(table, dict(zip([x.pk for x in players], pips, strict=True)), director)
    close_stage(game1, director)
    final = seat_next_stage(event, rng=random.Random(1))
    first = Round.objects.filter(table__stage=game1, table__number=1, number=1).get()
    winner = first.scores.get(pips=0).player_id
    correct_round(
        first,
        {s.player_id: 70 if s.player_id == winner else s.pips for s in first.scores.all()},
        director,
        "70 typed for 7",
    )
    [conflict] = seating_conflicts(load_results(event))
    keep_seating(final, conflict.division, "Already playing", director)
    assert not seating_conflicts(load_results(event))
    copy = comes_back(director_client, event)
    assert not seating_conflicts(load_results(copy))


def test_a_file_without_the_new_extras_imports_as_before():
    """Files written before: no awaiting round, no kept seating, table entry off."""
    from pathlib import Path

    for path in sorted((Path(__file__).parent / "data").glob("*.json")):
        event = import_event(path.read_text(encoding="utf-8"))
        assert not event.table_entry and not event.archived and not event.age_brackets
        assert not Round.objects.filter(table__stage__event=event, awaiting_confirmation=True)
        assert not event.stages.exclude(kept_advancers={}).exists()
        assert not event.stages.filter(allowed_size__isnull=False).exists()
        Event.objects.all().delete()


def test_a_kept_seating_naming_an_unknown_player_is_refused_at_its_place():
    from tests.test_eventfile_errors import BASE, changed

    def kept(d):
        d["stages"][1].setdefault("extra", {})["kept_seating"] = {"": ["p1", "nobody"]}

    assert BASE["stages"][1]["kind"] == "final"
    with pytest.raises(EventFileError) as caught:
        import_event(changed(kept))
    assert caught.value.errors == [
        'stages[1].extra.kept_seating[""][1]: "nobody" is not the id of a player in players'
    ]
    assert not Player.objects.exists()


def test_the_generator_makes_the_same_event_from_the_same_seed(director):
    """Seeded and deterministic: the same seed, the same event (its ids and times aside)."""

    def shape(made) -> str:
        text = dumps(export_event(made.event))
        text = re.sub(r'"\d{4}-\d\d-\d\dT[^"]*"', '"T"', text)
        ids: dict[str, str] = {}
        return re.sub(r'"p\d+"', lambda m: ids.setdefault(m.group(), f"#{len(ids)}"), text)

    first = roundtrip.make(5, director)
    was = shape(first)
    roundtrip.empty_the_site()
    again = roundtrip.make(5, director)
    assert again.kinds == first.kinds and shape(again) == was
