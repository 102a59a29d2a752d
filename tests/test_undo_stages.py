"""Issue 22, items 3 and 4: a stage closed too early is reopened, a check-in made by mistake
and a playoff created by mistake are taken back; each through its page, with a reason kept in
the event's history, once however often it is sent."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from scoring.eventfile import export_event
from scoring.models import Round
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, hidden_fields, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, publish_drafts, seat
from tests.test_advancement import names, play_totals, short_event
from tests.test_undo import round_post
from tournament.forms import new_key
from tournament.models import Action, Player, Seat, Stage, StageKind, Table
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db


def reopen_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/reopen/"


def close_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/close/"


def reopen_post(client, stage, reason="closed before table 2's last round was typed"):
    """What the reopen page posts: its hidden fields (the key, what it listed) and a reason."""
    page = client.get(reopen_url(stage))
    return client.post(reopen_url(stage), {**hidden_fields(page), "reason": reason}, follow=True)


def close(client, stage):
    key = form_key(client.get(close_url(stage)))
    closed = client.post(close_url(stage), {"action": "close", "once": key}, follow=True)
    publish_drafts(client, stage.event)  # the next stage, seated as a draft
    return closed


def final_of(event):
    return Stage.objects.get(event=event, kind=StageKind.FINAL)


@pytest.fixture
def closed_too_early(director, director_client):
    """Timed Game 1 (engines 1-1, 0-0): table 1 played both rounds; table 2's round 0-0 was
    played but not typed when time was called, and the director marked table 2 over after
    round 1 and closed Game 1: the Final is seated with table 2's leader after one round."""
    event = make_event(director, engines=[1, 0], game_minutes=60, finals_top_n=1)  # winners
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    a = play_totals(t1, [3, 10, 20, 30])
    b = table_sheet(t2).players
    record_round(t2, {b[0].pk: 0, b[1].pk: 5, b[2].pk: 6, b[3].pk: 7}, None)
    start_clock(game1, director, timezone.now() - timedelta(minutes=30))
    call_time(game1, director)
    key = form_key(director_client.get(close_url(game1)))
    director_client.post(close_url(game1), {"action": "end_games", "over": "2:1", "once": key})
    close(director_client, game1)
    game1.refresh_from_db()
    assert game1.closed
    assert names(s.player for s in final_of(event).seats.all()) == names([a[0], b[0]])
    return game1, t1, t2, a, b


def test_game_1_closed_too_early_is_reopened_and_closed_again_with_the_right_advancers(
    director_client, closed_too_early
):
    game1, t1, t2, a, b = closed_too_early
    event = game1.event
    close_page = director_client.get(close_url(game1)).content.decode()
    assert "Reopen Game 1 (closed too early)" in close_page

    page = director_client.get(reopen_url(game1)).content.decode()
    assert "Reopening removes:" in page and "the seating of Final" in page
    assert "These tables are marked over" in page  # table 2: its game is reopened next
    response = director_client.post(
        reopen_url(game1), {**hidden_fields(director_client.get(reopen_url(game1))), "reason": ""}
    )
    assert "This field is required" in response.content.decode()
    assert Stage.objects.get(pk=game1.pk).closed  # no reason, nothing done

    response = reopen_post(director_client, game1)
    assert "Game 1 is open again: it takes rounds. Seating removed: Final." in (
        response.content.decode()
    )
    assert not Stage.objects.get(pk=game1.pk).closed
    assert not final_of(event).tables.exists() and not final_of(event).seats.exists()
    reopened = Action.objects.get(verb="stage.reopened")
    assert reopened.reason == "closed before table 2's last round was typed"

    # the table's game mark is taken back on its page, the missing round typed
    director_client.post(
        f"/director/e/{event.slug}/1/table/2/reopen/", {"reason": "round 0-0 not typed"}
    )
    response = round_post(director_client, t2, [20, 0, 6, 7])
    assert response.status_code == 302
    assert Round.objects.filter(table=t2).count() == 2

    response = close(director_client, game1)
    assert "Final seated." in response.content.decode()
    assert Stage.objects.get(pk=game1.pk).closed
    assert names(s.player for s in final_of(event).seats.all()) == names([a[0], b[1]])

    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert "Game 1 reopened; seating removed: Final" in history
    assert "closed before table 2&#x27;s last round was typed" in history

    # the event file says what the event is now: Game 1 closed, the Final seated anew
    stages = {s["name"]: s for s in export_event(event)["stages"]}
    assert stages["Game 1"]["closed"] is True
    assert len(stages["Game 1"]["tables"][1]["rounds"]) == 2
    ids = {p["id"]: p["name"] for p in export_event(event)["players"]}
    seated = [ids[i] for i in stages["Final"]["tables"][0]["players"]]
    assert sorted(seated) == names([a[0], b[1]])


def test_the_event_file_shows_the_reopened_stage_and_no_seating_after_it(
    director_client, closed_too_early
):
    game1 = closed_too_early[0]
    reopen_post(director_client, game1)
    stages = {s["name"]: s for s in export_event(game1.event)["stages"]}
    assert stages["Game 1"]["closed"] is False and stages["Final"]["tables"] == []
    assert "Game 1" not in export_event(game1.event)["results"]["advanced"]


def test_once_the_final_has_rounds_the_page_sends_to_the_corrections(
    director_client, closed_too_early
):
    game1 = closed_too_early[0]
    final_table = final_of(game1.event).tables.get()
    players = table_sheet(final_table).players
    record_round(final_table, {players[0].pk: 0, players[1].pk: 4}, None)
    page = director_client.get(reopen_url(game1)).content.decode()
    assert "Final has rounds entered already: Game 1 can no longer be reopened." in page
    assert "Correct Game 1's rounds instead" in page
    assert f"/director/e/{game1.event.slug}/1/table/2/enter/" in page  # its rounds, to correct
    final = final_of(game1.event)  # and the Final's apply-or-keep page (issue 12's flow)
    assert f'href="/director/e/{game1.event.slug}/{final.number}/correction/"' in page
    assert 'id="reopen-form"' not in page
    # a form drawn before the Final's first round was typed is refused, nothing changes
    key = "k" * 20
    response = director_client.post(
        reopen_url(game1), {"once": key, "reason": "late table", "shown": "x"}, follow=True
    )
    assert "Final has rounds entered: correct Game 1&#x27;s rounds instead." in (
        response.content.decode()
    )
    assert Stage.objects.get(pk=game1.pk).closed and final_table.seats.count() == 2
    assert not Action.objects.filter(verb="stage.reopened").exists()


def test_a_page_drawn_before_the_next_stage_was_seated_is_refused(director_client, director):
    event = short_event(director)
    make_players(event, count=8)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    Stage.objects.filter(pk=game1.pk).update(closed=True)  # closed, Final not seated yet
    page = director_client.get(reopen_url(game1))
    assert "Nothing else is removed" in page.content.decode()
    director_client.post(close_url(game1), {"action": "seat_next", "once": "s" * 20})
    assert final_of(event).tables.exists()
    response = director_client.post(
        reopen_url(game1), {**hidden_fields(page), "reason": "too early"}, follow=True
    )
    assert "What reopening removes has changed meanwhile: reload the page." in (
        response.content.decode()
    )
    assert Stage.objects.get(pk=game1.pk).closed and final_of(event).tables.exists()


def test_reopening_removes_a_semifinal_created_by_seating_it(director_client, director):
    event = short_event(director)
    make_players(event, count=24)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    close(director_client, game1)
    assert Stage.objects.get(event=event, kind=StageKind.SEMIFINAL).number == 2
    page = director_client.get(reopen_url(game1)).content.decode()
    assert "the seating of Semifinal" in page and "and the stage itself" in page
    reopen_post(director_client, game1, "a score was wrong")
    assert not Stage.objects.filter(event=event, kind=StageKind.SEMIFINAL).exists()
    close(director_client, game1)  # seated again as before, in play order
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    assert semifinal.seats.count() == 6 and semifinal.number < final_of(event).number


def test_reopening_removes_the_stages_unplayed_playoffs_and_not_played_ones(
    director_client, director
):
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    a = play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    page = director_client.get(reopen_url(game1)).content.decode()
    assert f"{playoff.name} (not played yet)" in page
    reopen_post(director_client, game1, "wrong score at table 1")
    assert not Stage.objects.filter(event=event, kind=StageKind.PLAYOFF).exists()
    assert not Stage.objects.get(pk=game1.pk).closed

    close(director_client, game1)
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    record_round(playoff.tables.get(), {a[0].pk: 9, a[1].pk: 0}, None, engine=1)
    page = director_client.get(reopen_url(game1)).content.decode()
    assert f"{playoff.name} has rounds entered already" in page
    assert f"/director/e/{event.slug}/{playoff.number}/table/1/enter/" in page  # its round
    director_client.post(
        f"/director/e/{event.slug}/{playoff.number}/table/1/round/1/remove/",
        {"reason": "played on a wrong total", "once": new_key()},
    )
    reopen_post(director_client, game1, "wrong score at table 1")
    assert not Stage.objects.get(pk=game1.pk).closed
    assert not Stage.objects.filter(event=event, kind=StageKind.PLAYOFF).exists()


def test_a_closed_final_reopens_and_its_medal_playoff_goes(director_client, director):
    event = short_event(director)
    make_players(event, ["Ann", "Bo", "Cy", "Di", "Ed"])
    final = seat(event, stage_number=2)
    play_totals(final.tables.get(), dict(Ann=5, Bo=5, Cy=20, Di=20, Ed=40))
    close(director_client, final)
    assert Stage.objects.filter(event=event, kind=StageKind.PLAYOFF).count() == 1
    reopen_post(director_client, final, "Ed's last round was wrong")
    assert not Stage.objects.get(pk=final.pk).closed
    assert not Stage.objects.filter(event=event, kind=StageKind.PLAYOFF).exists()
    assert export_event(event)["results"]["medals"] == []


def test_reopening_is_for_the_events_directors(client, closed_too_early):
    game1 = closed_too_early[0]
    other = Client()
    other.force_login(make_director("another"))
    assert other.get(reopen_url(game1)).status_code == 403
    response = other.post(reopen_url(game1), {"reason": "x", "once": "o" * 20, "shown": "-"})
    assert response.status_code == 403
    assert client.post(reopen_url(game1), {"reason": "x"}).status_code == 302  # to log in
    assert Stage.objects.get(pk=game1.pk).closed


def test_the_same_reopen_form_twice_reopens_once(director_client, closed_too_early):
    game1 = closed_too_early[0]
    fields = hidden_fields(director_client.get(reopen_url(game1)))
    for _ in range(2):
        director_client.post(reopen_url(game1), {**fields, "reason": "too early"})
    assert Action.objects.filter(verb="stage.reopened").count() == 1


# -- un-check-in before seating ------------------------------------------------------------------


def uncheck_url(player):
    return f"/director/e/{player.event.slug}/players/{player.pk}/uncheck/"


def test_a_check_in_made_by_mistake_is_undone_before_seating(director_client, event):
    ann, bo = make_players(event, ["Ann", "Bo"])
    players_page = director_client.get(f"/director/e/{event.slug}/players/").content.decode()
    assert uncheck_url(ann) in players_page
    response = director_client.post(
        uncheck_url(ann), {**hidden_fields(director_client.get(uncheck_url(ann))), "reason": ""}
    )
    assert "This field is required" in response.content.decode()
    assert Player.objects.get(pk=ann.pk).checked_in
    fields = hidden_fields(director_client.get(uncheck_url(ann)))
    response = director_client.post(
        uncheck_url(ann), {**fields, "reason": "checked in for her sister"}, follow=True
    )
    assert "Ann is no longer checked in." in response.content.decode()
    assert not Player.objects.get(pk=ann.pk).checked_in
    director_client.post(uncheck_url(ann), {**fields, "reason": "again"})  # the same form again
    action = Action.objects.get(verb="player.unchecked_in")
    assert action.reason == "checked in for her sister" and action.data["player"] == "Ann"
    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert "Ann: check-in undone" in history
    player = next(p for p in export_event(event)["players"] if p["name"] == "Ann")
    assert player["extra"]["checked_in"] is False


def test_a_seated_player_stays_checked_in(director_client, seated):
    player = Seat.objects.filter(stage=seated).first().player
    page = director_client.get(uncheck_url(player)).content.decode()
    assert "is seated in Game 1: the check-in stays." in page
    response = director_client.post(
        uncheck_url(player), {"reason": "oops", "once": "u" * 20}, follow=True
    )
    assert "is seated in Game 1: the check-in stays." in response.content.decode()
    assert Player.objects.get(pk=player.pk).checked_in


# -- a seating removed while no round is entered -------------------------------------------------


def test_removing_a_seating_asks_for_the_reason(director_client, seated):
    url = f"/director/e/{seated.event.slug}/1/seat/"
    page = director_client.get(f"/e/{seated.event.slug}/1/seating/").content.decode()
    assert 'for="clear-reason"' in page
    response = director_client.post(url, {"action": "clear", "reason": " "}, follow=True)
    assert "Give the reason for removing the seating." in response.content.decode()
    assert Table.objects.filter(stage=seated).count() == 2
    director_client.post(url, {"action": "clear", "reason": "drawn before the late arrivals"})
    assert not Table.objects.filter(stage=seated).exists()
    assert Action.objects.get(verb="stage.unseated").reason == "drawn before the late arrivals"
    assert export_event(seated.event)["stages"][0]["tables"] == []


# -- a playoff created by mistake ----------------------------------------------------------------


@pytest.fixture
def playoff(director_client, director):
    """Game 1 closed under the playoff tie rule: table 1's tie owes a playoff."""
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    return Stage.objects.get(event=event, kind=StageKind.PLAYOFF)


def remove_playoff_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/remove-playoff/"


def test_a_playoff_the_tie_rule_no_longer_asks_for_is_removed(director_client, playoff):
    event = playoff.event
    page = director_client.get(remove_playoff_url(playoff)).content.decode()
    assert "The tie rule still asks for this playoff" in page
    response = director_client.post(
        remove_playoff_url(playoff), {"reason": "x", "once": "r" * 20}, follow=True
    )
    assert "The tie rule still asks for this playoff" in response.content.decode()
    assert Stage.objects.filter(pk=playoff.pk).exists()

    event.advancement_tie = "all_advance"  # the tie rule was set wrong for this event
    event.save()
    close_page = director_client.get(close_url(playoff)).content.decode()
    assert "Remove this playoff (created by mistake, no round played)" in close_page
    fields = hidden_fields(director_client.get(remove_playoff_url(playoff)))
    response = director_client.post(
        remove_playoff_url(playoff),
        {**fields, "reason": "the event lets ties advance"},
        follow=True,
    )
    assert f"{playoff.name} removed." in response.content.decode()
    assert not Stage.objects.filter(pk=playoff.pk).exists()
    director_client.post(remove_playoff_url(playoff), {**fields, "reason": "again"})
    action = Action.objects.get(verb="playoff.removed")
    assert action.reason == "the event lets ties advance"
    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert f"{playoff.name} removed (created by mistake)" in history
    assert [s["kind"] for s in export_event(event)["stages"]] == ["qualifying", "final"]


def test_a_played_playoff_is_not_removed(director_client, playoff):
    players = table_sheet(playoff.tables.get()).players
    record_round(playoff.tables.get(), {players[0].pk: 9, players[1].pk: 0}, None, engine=1)
    page = director_client.get(remove_playoff_url(playoff)).content.decode()
    assert "This playoff has its round: remove the round first" in page
    director_client.post(remove_playoff_url(playoff), {"reason": "x", "once": "p" * 20})
    assert Stage.objects.filter(pk=playoff.pk).exists()


# -- each undo sent from two devices at once changes the event once -------------------------------


def twice_at_once(devices, url, fields):
    """The same undo from each device at once, each with the key of its own page."""
    results = at_once([lambda c=c: c.post(url, {**fields, "once": new_key()}) for c in devices])
    no_errors(results)


@pytest.mark.django_db(transaction=True)
def test_each_stage_undo_from_two_devices_at_once_changes_the_event_once(director):
    event = short_event(director, advancement_tie="playoff", slug="twice")
    make_players(event, count=8)
    late = make_players(event, ["Late Lu"])[0]
    game1 = seat(event, players=event.players.exclude(pk=late.pk))
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    devices = [logged_in(director) for _ in range(2)]
    close(devices[0], game1)
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)

    twice_at_once(devices, uncheck_url(late), {"reason": "not here"})
    assert not Player.objects.get(pk=late.pk).checked_in
    assert Action.objects.filter(event=event, verb="player.unchecked_in").count() == 1

    event.advancement_tie = "all_advance"
    event.save()
    twice_at_once(devices, remove_playoff_url(playoff), {"reason": "ties advance"})
    assert not Stage.objects.filter(event=event, kind=StageKind.PLAYOFF).exists()
    assert Action.objects.filter(event=event, verb="playoff.removed").count() == 1

    devices[0].post(close_url(game1), {"action": "seat_next", "once": "n" * 20})
    assert final_of(event).tables.exists()
    shown = hidden_fields(devices[0].get(reopen_url(game1)))["shown"]
    twice_at_once(devices, reopen_url(game1), {"reason": "too early", "shown": shown})
    assert not Stage.objects.get(pk=game1.pk).closed
    assert not final_of(event).tables.exists()
    assert Action.objects.filter(event=event, verb="stage.reopened").count() == 1

    other = make_event(director, slug="drawn")
    make_players(other, count=8)
    drawn = seat(other)
    twice_at_once(devices, "/director/e/drawn/1/seat/", {"action": "clear", "reason": "too early"})
    assert not Table.objects.filter(stage=drawn).exists()
    assert Action.objects.filter(event=other, verb="stage.unseated").count() == 1


def test_the_unseated_final_starts_again_from_nothing(director_client, director, closed_too_early):
    game1 = closed_too_early[0]
    final = final_of(game1.event)
    start_clock(final, director)
    page = director_client.get(reopen_url(game1)).content.decode()
    assert "(its clock, started already, is reset)" in page
    version = final.version
    reopen_post(director_client, game1)
    final.refresh_from_db()
    assert final.clock_started_at is None and not final.clock_events.exists()
    assert final.version > version  # its cached pages are drawn again
    clock = director_client.get(f"/e/{game1.event.slug}/2/clock.json").json()
    assert clock["state"] == "not_started"


@pytest.mark.django_db(transaction=True)
def test_a_reopen_and_a_final_round_sent_at_once_never_both_happen(director):
    event = short_event(director, slug="race")
    make_players(event, count=8)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, [3, 10, 20, 30])
    desk, hall = logged_in(director), logged_in(director)
    close(desk, game1)
    final_table = final_of(event).tables.get()
    entry = f"/director/e/race/2/table/{final_table.number}/enter/"
    round_fields = hidden_fields(hall.get(entry))
    players = table_sheet(final_table).players
    round_fields.update({f"p{p.pk}": v for p, v in zip(players, [0, 7], strict=True)})
    reopen_fields = {**hidden_fields(desk.get(reopen_url(game1))), "reason": "too early"}

    results = at_once(
        [
            lambda: desk.post(reopen_url(game1), reopen_fields),
            lambda: hall.post(entry, round_fields),
        ]
    )
    no_errors(results)
    reopened = not Stage.objects.get(pk=game1.pk).closed
    final_rounds = Round.objects.filter(table__stage__event=event, table__stage__number=2)
    assert reopened != final_rounds.exists()  # one or the other, never both, never neither
    if reopened:
        assert not final_of(event).tables.exists()
