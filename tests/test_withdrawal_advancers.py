"""A withdrawn player never advances or medals (issue 45 item 5): whatever the state (a
playoff pending, the next stage seated, a cumulative cut), a withdrawal made on the player's
page removes the player from every later stage and from the results; a 2-player Final left
with one finalist offers the director what the rules allow (the next advancer called up, or
the other finalist's result stands), never a 500."""

import pytest

from scoring.models import Round
from scoring.results import load_results
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.factories import make_players, seat
from tests.test_advancement import advance_url, play_totals, short_event
from tests.test_correction_after_seating import conflict_url
from tests.test_desk import withdraw
from tournament.models import Stage, StageKind, Table

pytestmark = pytest.mark.django_db


def seated(stage):
    stage.refresh_from_db()
    return {s.player for s in stage.seats.all()}


def medals(event):
    return {
        (award.medal, pk)
        for division in load_results(event).medals
        for award in division.result.medals
        for pk in award.players
    }


def test_an_advancer_who_withdraws_while_a_playoff_is_pending_is_not_seated(
    director_client, director
):
    """The issue's night: a tie at table 1's top owes a playoff, so the Final waits; table 2's
    winner withdraws; after the playoff the Final seats table 2's next player instead."""
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [5, 5, 20, 30])
    b = play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    response = withdraw(director_client, b[1], "went home")  # table 2's winner (12)
    assert response.status_code == 302
    record_round(playoff.tables.get(), {a[0].pk: 9, a[1].pk: 0}, None, engine=1)
    director_client.post(advance_url(game1), {"action": "seat_next"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert seated(final) == {a[1], b[2]}  # table 2's next player (20) is called up
    director_client.get(f"/e/{event.slug}/")  # the withdrawal's message is read there
    page = director_client.get(f"/e/{event.slug}/bracket/").content.decode()
    assert page.count(b[1].name) == 1  # at Game 1's table only
    final_table = final.tables.get()
    play_totals(final_table, {a[1].name: 10, b[2].name: 30})
    director_client.post(advance_url(final), {"action": "close"})
    assert b[1].pk not in {pk for _m, pk in medals(event)}


def test_an_advancer_who_withdraws_after_the_semifinal_is_seated_leaves_every_stage(
    director_client, director
):
    """24 players: the Semifinal is seated from Game 1's six winners; one withdraws before its
    first round. They are in no later stage and in no result; their table's next player is
    offered to the director (the called-up player plays, or the seating is kept)."""
    event = short_event(director, finals_top_n=None)
    make_players(event, count=24)
    game1 = seat(event)
    tables = list(Table.objects.filter(stage=game1))
    for t in tables:
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    leaver = table_sheet(tables[0]).players[0]
    called = table_sheet(tables[0]).players[1]
    assert leaver in seated(semifinal)
    response = withdraw(director_client, leaver, "unwell")
    assert response.status_code == 302
    assert leaver not in seated(semifinal)
    home = director_client.get(f"/e/{event.slug}/").content.decode()
    assert f"Advance now: {called.name}" in home
    director_client.post(conflict_url(semifinal), {"action": "apply"})
    assert called in seated(semifinal) and leaver not in seated(semifinal)
    assert sorted(t.seats.count() for t in semifinal.tables.all()) == [3, 3]
    for t in semifinal.tables.all():
        play_totals(t, [3, 10, 20])
    director_client.post(advance_url(semifinal), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert leaver not in seated(final)
    final_table = final.tables.get()
    play_totals(final_table, [3, 10, 20, 30][: final_table.seats.count()])
    director_client.post(advance_url(final), {"action": "close"})
    assert medals(event) and leaver.pk not in {pk for _m, pk in medals(event)}


@pytest.fixture
def final_of_two(director_client, director):
    """8 players, each table's winner to a Final of 2, seated and not played."""
    event = short_event(director)
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1)
    a = play_totals(t1, [3, 10, 20, 30])
    b = play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    assert seated(final) == {a[0], b[1]}
    return event, final, a, b


def test_a_finalist_who_withdraws_from_a_final_of_two_is_no_500(director_client, final_of_two):
    event, final, a, b = final_of_two
    response = withdraw(director_client, b[1], "unwell")
    assert response.status_code == 302
    page = director_client.get(response.url).content.decode()
    assert "Final" in page and "called up" in page
    assert b[1] not in seated(final)
    home = director_client.get(f"/e/{event.slug}/").content.decode()
    assert f"Advance now: {b[2].name}" in home  # table 2's next player


def test_the_next_advancer_is_called_up_to_the_final(director_client, final_of_two):
    event, final, a, b = final_of_two
    withdraw(director_client, b[1], "unwell")
    director_client.post(conflict_url(final), {"action": "apply"})
    assert seated(final) == {a[0], b[2]}
    play_totals(final.tables.get(), {a[0].name: 30, b[2].name: 10})
    director_client.post(advance_url(final), {"action": "close"})
    assert medals(event) == {("gold", b[2].pk), ("silver", a[0].pk)}


def test_or_the_other_finalists_result_stands(director_client, final_of_two):
    event, final, a, b = final_of_two
    withdraw(director_client, b[1], "unwell")
    response = director_client.post(
        conflict_url(final), {"action": "keep", "reason": "Nobody else stayed"}
    )
    assert response.status_code == 302
    page = director_client.get(advance_url(final)).content.decode()
    assert "walkover" in page.lower()
    response = director_client.post(advance_url(final), {"action": "close"})
    assert response.status_code == 302
    final.refresh_from_db()
    assert final.closed and not Round.objects.filter(table__stage=final).exists()
    assert medals(event) == {("gold", a[0].pk)}


# -- back from the site's own file (docs/event-file.md) ------------------------------------------


def test_a_call_up_and_a_walkover_come_back_from_the_event_file(director_client, final_of_two):
    """The call-up is the site's rule (the withdrawn player out of contention at Game 1, so
    table 2's next player advances) and the walkover a kept seating and a closed Final with
    one player: the file brings both back, results and medals included."""
    from tests.test_eventfile_roundtrip import comes_back

    event, final, a, b = final_of_two
    withdraw(director_client, b[1], "unwell")
    director_client.post(conflict_url(final), {"action": "keep", "reason": "Nobody else stayed"})
    director_client.post(advance_url(final), {"action": "close"})
    copy = comes_back(director_client, event)
    assert {pk for _m, pk in medals(copy)} == {copy.players.get(name=a[0].name).pk}


def test_a_called_up_final_comes_back_from_the_event_file(director_client, final_of_two):
    from tests.test_eventfile_roundtrip import comes_back

    event, final, a, b = final_of_two
    withdraw(director_client, b[1], "unwell")
    director_client.post(conflict_url(final), {"action": "apply"})
    play_totals(final.tables.get(), {a[0].name: 30, b[2].name: 10})
    director_client.post(advance_url(final), {"action": "close"})
    copy = comes_back(director_client, event)
    gold = copy.players.get(name=b[2].name)
    assert ("gold", gold.pk) in medals(copy)


def test_a_finalist_of_a_cumulative_cut_who_withdraws_gives_the_place_to_the_next(
    director_client,
):
    """Cumulative, then a Final of the four lowest: P2 withdraws once the Final is seated,
    before its first round; P5, next at the cut, is called up, and P2 is in no result."""
    from tests.test_formats_flow import close, create, names, play_game, seat_game_1

    event = create(
        director_client,
        format_kind="cumulative_final",
        format_games=2,
        format_reseat="fewest_repeats",
        format_final_size=4,
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    play_game(director_client, game1, {f"P{i}": 10 + i for i in range(1, 9)})
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    play_game(director_client, game2, {f"P{i}": 30 for i in range(1, 9)})
    close(director_client, game2)
    final = event.stages.get(kind=StageKind.FINAL)
    leaving = event.players.get(name="P2")
    assert leaving in seated(final)
    response = withdraw(director_client, leaving, "went home")
    assert response.status_code == 302
    assert "called up" in director_client.get(response.url).content.decode()
    home = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "Advance now: P5" in home
    director_client.post(conflict_url(final), {"action": "apply"})
    assert sorted(p.name for p in seated(final)) == ["P1", "P3", "P4", "P5"]
    play_game(director_client, final, {"P1": 40, "P3": 9, "P4": 30, "P5": 20})
    close(director_client, final)
    assert leaving.pk not in {pk for _m, pk in medals(event)}
    gold = event.players.get(name="P3").pk
    assert ("gold", gold) in medals(event)
