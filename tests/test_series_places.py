"""A series and the ratings agree with PRODUCT.md §13 (issue 45 item 7), through the pages:
a cumulative event with a Final places all the Final's players by the totals their medals
came from; the per-round average counts only rounds played (a late arrival's filled rounds
are in neither sum, and the page's note says so); a playoff orders the players it was played
among (the two who lost a cut playoff do not share a place); the page and the CSV round an
average the same way; a rating history lists events in the order they were rated."""

from __future__ import annotations

import csv
import io
import re

import pytest

from scoring.services.ratings import compute_ratings
from scoring.sheets import table_sheet
from tests.factories import make_players
from tests.test_formats_flow import close as close_game
from tests.test_formats_flow import create as create_event
from tests.test_formats_flow import names, play_game, seat_game_1
from tests.test_ratings import game_one, register, short_event
from tests.test_ratings_pages import rows_of
from tests.test_score_entry import entry_url
from tests.test_series_pages import add, create, cumulative_event, night, standings
from tournament.models import Player, StageKind, Table

pytestmark = pytest.mark.django_db


def csv_rows(client, series) -> list[list[str]]:
    text = client.get(f"/s/{series.slug}/export/?_export=csv").content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text)))[1:]


def test_the_finals_players_are_placed_by_cumulative_plus_final_when_medals_are(
    director_client, client
):
    event = cumulative_event(
        director_client,
        format_kind="cumulative_final",
        format_final_size=5,
        format_medals_from="cumulative_plus_final",
    )  # cumulative: P1 41, P2 42, P3 43, P4 44, P5 45
    final = event.stages.get(kind=StageKind.FINAL)
    play_game(director_client, final, {"P1": 36, "P2": 9, "P3": 30, "P4": 20, "P5": 34})
    close_game(director_client, final)
    series = create(director_client, points="8, 7, 6, 5, 4, 3, 2, 1", medal_bonus="3, 2, 1")
    add(director_client, series, event)
    (rows,) = standings(client, series)
    # medals from 51, 64, 73; then P1 (41 + 36 = 77) before P5 (45 + 34 = 79), though P5's
    # Final total alone (34) is lower than P1's (36)
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("1", "P2", "11"),
        ("2", "P4", "9"),
        ("3", "P3", "7"),
        ("4", "P1", "5"),
        ("5", "P5", "4"),
        ("6", "P6", "3"),
        ("7", "P7", "2"),
        ("8", "P8", "1"),
    ]


def test_the_two_who_lost_a_cut_playoff_do_not_share_a_place(director_client, client):
    event = create_event(
        director_client,
        format_kind="cumulative_final",
        format_games=1,
        format_final_size=4,
        advancement_tie="playoff",
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    totals = {"P1": 5, "P2": 6, "P3": 7, "P4": 8, "P5": 8, "P6": 8, "P7": 21, "P8": 22}
    play_game(director_client, game1, totals)
    close_game(director_client, game1)
    playoff = event.stages.get(kind=StageKind.PLAYOFF)
    table = Table.objects.get(stage=playoff)
    pips = {"P4": 12, "P5": 0, "P6": 7}  # P5 goes on; P6 did better than P4
    players = table_sheet(table).players
    form = {f"p{p.pk}": pips[p.name] for p in players}
    answer = director_client.post(entry_url(table), {"engine": 12, **form})
    assert answer.status_code == 302
    director_client.post(f"/director/e/{event.slug}/1/close/", {"action": "seat_next"})
    final = event.stages.get(kind=StageKind.FINAL)
    play_game(director_client, final, {"P1": 10, "P2": 20, "P3": 30, "P5": 40})
    close_game(director_client, final)
    series = create(director_client, points="8, 7, 6, 5, 4, 3, 2, 1", medal_bonus="")
    add(director_client, series, event)
    (rows,) = standings(client, series)
    assert [(r[0], r[1]) for r in rows] == [
        ("1", "P1"),
        ("2", "P2"),
        ("3", "P3"),
        ("4", "P5"),
        ("5", "P6"),  # 8, then 7 in the playoff
        ("6", "P4"),  # 8, then 12
        ("7", "P7"),
        ("8", "P8"),
    ]


def test_the_per_round_average_leaves_out_a_late_arrivals_missed_rounds(
    director, director_client, client
):
    from tests.test_people import night as club_night

    event = club_night(director, "Night One", 5, {"Ann": 5, "Bob": 9})  # a night that counts
    late_night = short_event(director, "2026-01-12", engines=[2, 1, 0], late_arrivals=True)
    late_night.name, late_night.slug = "Night Two", "night-two"
    late_night.save()
    ann, bob = (
        Player.objects.create(event=late_night, name=n, club="Rivertown Club", checked_in=True)
        for n in ("Ann", "Bob")
    )
    cy = Player.objects.create(event=late_night, name="Cy", club="Rivertown Club")
    stage = late_night.stages.get(number=1)
    director_client.post(f"/director/e/{late_night.slug}/1/seat/", {})
    table = Table.objects.get(stage=stage)
    director_client.post(entry_url(table), {f"p{ann.pk}": 0, f"p{bob.pk}": 30})
    page = director_client.get(f"/director/e/{late_night.slug}/players/{cy.pk}/").content.decode()
    key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    director_client.post(
        f"/director/e/{late_night.slug}/players/{cy.pk}/",
        {"late": "1", "table": table.pk, "once": key},
    )
    for pips in ({ann.pk: 0, bob.pk: 4, cy.pk: 6}, {ann.pk: 3, bob.pk: 0, cy.pk: 2}):
        answer = director_client.post(entry_url(table), {f"p{k}": v for k, v in pips.items()})
        assert answer.status_code == 302
    assert table_sheet(table).totals[cy.pk] == 30 + 6 + 2  # the game total fills round 1
    director_client.post(f"/director/e/{late_night.slug}/1/close/", {"action": "close"})
    series = create(director_client, scoring="per_round", tie_break="best_event")
    add(director_client, series, event)
    add(director_client, series, late_night)
    rows = {r[2]: r for r in csv_rows(client, series)}
    assert rows["Cy"][3:] == ["", "4.00", "4.00", "2", "8", "0"]  # 8 pips over 2 rounds played
    page = client.get(f"/s/{series.slug}/").content.decode()
    note = page[page.index('id="series-note"') :]
    assert "The rounds a late arrival missed, scored at the table's highest, are not" in note


def test_the_page_and_the_csv_round_an_average_alike(director, director_client, client):
    # Ann: 9 pips over 8 rounds, 1.125: 1.13 rounded half up (a float's round() gave 1.12)
    event = night(director, "Long Night", 5, {"Ann": 9, "Bob": 20}, rounds=8)
    series = create(director_client, scoring="per_round", tie_break="best_event")
    add(director_client, series, event)
    ann = next(r for r in csv_rows(client, series) if r[2] == "Ann")
    assert ann[3:5] == ["1.13", "1.13"]
    (rows,) = standings(client, series)
    assert rows[0][1:4] == ["Ann", "1.13", "1.13"]


def test_a_rating_history_lists_events_in_the_order_they_were_rated(director, director_client):
    # Two nights on one date, the second made first: rated by short name (a-night, b-night)
    late = short_event(director, "2026-03-01", slug="b-night", name="Evening")
    early = short_event(director, "2026-03-01", slug="a-night", name="Afternoon")
    for event in (early, late):
        register(event, ["Ann", "Bo", "Cy", "Di"])
        game_one(director_client, event, [[5, 10, 20, 30]])
    compute_ratings()
    ann = late.players.get(name="Ann")
    page = director_client.get(f"/e/b-night/player/{ann.pk}/").content.decode()
    history = rows_of(page, "rating-history")
    assert [(row[2], row[4]) for row in history] == [("Afternoon", "1"), ("Evening", "2")]
