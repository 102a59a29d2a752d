"""The registration desk on the day: fix a name, withdraw, a no-show, a late arrival, check-in
at 200 players, searches that forgive accents (issue 13)."""

import json
import re

import pytest

from scoring.models import Round
from scoring.sheets import stage_standings, table_sheet
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_event, make_players, play, seat
from tests.test_advancement import advance_url, play_totals, short_event
from tournament.models import Action, Player, Seat, Table

pytestmark = pytest.mark.django_db


def player_url(player):
    return f"/director/e/{player.event.slug}/players/{player.pk}/"


def edit(client, player, **values):
    page = client.get(player_url(player))
    data = {"name": player.name, "ref": player.ref, "club": player.club}
    data.update(division=player.division, once=form_key(page), save="1", **values)
    return client.post(player_url(player), data), data


def withdraw(client, player, reason=""):
    page = client.get(player_url(player)).content.decode()
    key = re.search(r'id="withdraw-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    return client.post(player_url(player), {"withdraw": "1", "reason": reason, "once": key})


# -- fixing a player -----------------------------------------------------------------------------


def test_a_misspelled_name_is_fixed_and_shows_everywhere_with_its_history(
    director_client, client, seated
):
    player = Player.objects.get(name="Player 03")
    response, _ = edit(director_client, player, name="Zoë Ångström", club="Reno")
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.name, player.club) == ("Zoë Ångström", "Reno")
    table = player.seats.get().table
    for url in (
        table.get_absolute_url(),
        f"/e/{seated.event.slug}/1/",
        f"/e/{seated.event.slug}/1/seating/",
    ):
        page = client.get(url).content.decode()
        assert "Zoë Ångström" in page and "Player 03" not in page, url
    history = director_client.get(f"/director/e/{seated.event.slug}/history/").content.decode()
    assert "Player Player 03 changed: name: Player 03 → Zoë Ångström; club: – → Reno" in history


def test_a_resent_edit_form_changes_once(director_client, seated):
    player = Player.objects.get(name="Player 01")
    response, data = edit(director_client, player, name="Ann Lee")
    director_client.post(player_url(player), {**data, "name": "Ann Lee"})
    assert Action.objects.filter(verb="player.edited").count() == 1


def test_an_edit_to_an_id_another_player_has_is_refused(director_client, event):
    ann, bo = make_players(event, ["Ann", "Bo"])
    Player.objects.filter(pk=ann.pk).update(ref="A1")
    response, _ = edit(director_client, bo, ref="A1")
    assert "Another player of this event has id A1." in response.content.decode()
    bo.refresh_from_db()
    assert bo.ref == ""


def test_an_empty_name_is_refused_and_nothing_changes(director_client, event):
    (ann,) = make_players(event, ["Ann"])
    response, _ = edit(director_client, ann, name="  ")
    assert "This field is required" in response.content.decode()
    ann.refresh_from_db()
    assert ann.name == "Ann"


# -- withdrawals ----------------------------------------------------------------------------------


def test_a_player_withdrawn_before_the_draw_is_left_out_of_it(director_client, event):
    players = make_players(event, count=9)
    withdraw(director_client, players[0], "ill")
    page = director_client.get(f"/director/e/{event.slug}/1/seating/".replace("/director", ""))
    assert "from the 8 checked-in players" in page.content.decode()
    director_client.post(f"/director/e/{event.slug}/1/seat/", {"once": form_key(page)})
    assert Seat.objects.count() == 8
    assert not Seat.objects.filter(player=players[0]).exists()
    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert "Player 01 withdrew" in history and "ill" in history


def test_a_no_show_is_removed_and_the_tables_rebalanced_keeping_the_rest(director_client, event):
    make_players(event, count=10)
    stage = seat(event)  # tables of 4, 3, 3
    before = {s.player_id: s.table_id for s in Seat.objects.filter(stage=stage)}
    sizes = {t.pk: t.seats.count() for t in Table.objects.filter(stage=stage)}
    small = next(pk for pk, n in sizes.items() if n == 3)
    no_show = Seat.objects.filter(table_id=small).first().player
    response = withdraw(director_client, no_show)
    assert response.status_code == 302
    after = {s.player_id: s.table_id for s in Seat.objects.filter(stage=stage)}
    assert no_show.pk not in after
    assert (
        sorted(Seat.objects.filter(stage=stage).values_list("table", flat=True)).count(small) == 3
    )
    assert sorted(t.seats.count() for t in Table.objects.filter(stage=stage)) == [3, 3, 3]
    moved = [pk for pk, table in after.items() if before[pk] != table]
    assert len(moved) == 1  # one player of the table of 4 fills the gap


def test_a_no_show_that_leaves_too_few_merges_a_table(director_client, event):
    make_players(event, count=8)
    stage = seat(event)  # 4 and 4
    withdraw(director_client, Seat.objects.filter(stage=stage).first().player)
    assert sorted(t.seats.count() for t in Table.objects.filter(stage=stage)) == [3, 4]
    withdraw(director_client, Seat.objects.filter(stage=stage).first().player)
    assert sorted(t.seats.count() for t in Table.objects.filter(stage=stage)) == [3, 3]


def test_a_withdrawal_during_the_game_keeps_the_rounds_and_the_table_plays_on(
    director_client, director
):
    event = make_event(director, engines=[3, 2, 1, 0], game_minutes=None)
    make_players(event, count=8)
    stage = seat(event)
    table = Table.objects.filter(stage=stage).first()
    play(table, 2)
    leaving = table_sheet(table).players[0]
    withdraw(director_client, leaving, "went home")
    sheet = table_sheet(table)
    assert sheet.withdrew_after(leaving) == 2
    assert leaving not in sheet.next_players and len(sheet.next_players) == 3
    # The entry page asks for the three who play on; their round saves.
    page = director_client.get(
        f"/director/e/{event.slug}/1/table/{table.number}/enter/"
    ).content.decode()
    assert f'name="p{leaving.pk}"' not in page
    data = {f"p{p.pk}": v for p, v in zip(sheet.next_players, [0, 5, 7], strict=True)}
    data.update(once=form_key_from(page), number="3", shown_engine="1")
    response = director_client.post(f"/director/e/{event.slug}/1/table/{table.number}/enter/", data)
    assert response.status_code == 302
    assert Round.objects.filter(table=table).count() == 3
    public = logged_in_anonymous().get(table.get_absolute_url()).content.decode()
    assert f"{leaving.name} withdrew after round 2." in public
    rows = {r.player.pk: r for r in stage_standings(stage)}
    assert rows[leaving.pk].place is None and rows[leaving.pk].rounds == 2
    standings = logged_in_anonymous().get(f"/e/{event.slug}/1/").content.decode()
    assert "withdrew after round 2" in standings


def form_key_from(html):
    return re.search(r'name="once" value="([^"]+)"', html).group(1)


def logged_in_anonymous():
    from django.test import Client

    return Client()


def test_a_withdrawn_player_with_the_lowest_total_does_not_advance(director_client, director):
    event = short_event(director)
    make_players(event, count=8)
    stage = seat(event)
    table, other = Table.objects.filter(stage=stage)
    players = play_totals(table, [1, 9, 12, 15])
    play_totals(other, [2, 9, 12, 15])
    withdraw(director_client, players[0])
    page = director_client.get(advance_url(stage))
    director_client.post(advance_url(stage), {"action": "close", "once": form_key(page)})
    final = event.stages.get(number=2)
    finalists = set(Seat.objects.filter(stage=final).values_list("player__name", flat=True))
    assert players[0].name not in finalists
    assert players[1].name in finalists


def test_a_withdrawal_round_trips_through_the_event_file(director_client, director):
    from scoring.eventfile import dumps, export_event, import_event

    event = make_event(director, engines=[3, 2, 1, 0], game_minutes=None)
    make_players(event, count=8)
    make_players(event, ["Late Comer"], checked_in=False)
    stage = seat(event)
    table = Table.objects.filter(stage=stage).first()
    play(table, 1)
    leaving = table_sheet(table).players[0]
    withdraw(director_client, leaving)
    event.late_arrivals = True
    event.save()
    late = Player.objects.get(name="Late Comer")
    page = director_client.get(player_url(late)).content.decode()
    key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    other = Table.objects.filter(stage=stage).exclude(pk=table.pk).first()
    play(other, 1)
    director_client.post(player_url(late), {"late": "1", "table": other.pk, "once": key})
    edit(director_client, Player.objects.get(name="Player 05"), name="Player Five")
    text = dumps(export_event(event))
    event.delete()
    copy = import_event(text, director=director)
    copied = copy.players.get(name=leaving.name)
    assert copied.withdrawn
    seat_ = Seat.objects.get(player=copied)
    assert seat_.left_after == 1
    assert Seat.objects.get(player__event=copy, player__name="Late Comer").joined_at == 2
    assert copy.late_arrivals
    # Everything comes back as it was: the same file again, the rename in the history.
    assert dumps(export_event(copy)) == text
    assert json.loads(text)["players"][4]["extra"]["former_names"] == ["Player 05"]
    assert copy.actions.filter(verb="player.edited", data__renamed_from="Player 05").exists()


# -- late arrivals ---------------------------------------------------------------------------------


def test_a_late_arrival_joins_at_the_next_round_and_missed_rounds_score_the_highest(
    director_client, director
):
    event = make_event(director, engines=[3, 2, 1, 0], game_minutes=None, late_arrivals=True)
    make_players(event, count=8)
    (late,) = make_players(event, ["Late Comer"], checked_in=False)
    stage = seat(event)
    table = Table.objects.filter(stage=stage).first()
    players = table_sheet(table).players
    from scoring.services.rounds import record_round

    record_round(table, dict(zip([p.pk for p in players], [0, 5, 9, 3], strict=True)), None)
    record_round(table, dict(zip([p.pk for p in players], [4, 0, 2, 8], strict=True)), None)
    page = director_client.get(player_url(late)).content.decode()
    key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    response = director_client.post(player_url(late), {"late": "1", "table": table.pk, "once": key})
    assert response.status_code == 302
    sheet = table_sheet(table)
    assert sheet.totals[late.pk] == 9 + 8
    assert [r.filled for r in sheet.rounds] == [{late.pk}, {late.pk}]
    assert late in sheet.next_players
    public = logged_in_anonymous().get(table.get_absolute_url()).content.decode()
    assert "Late Comer arrived late and joined at round 3" in public


def test_without_the_house_rule_a_started_table_takes_no_late_arrival(director_client, director):
    event = make_event(director, engines=[3, 2, 1, 0], game_minutes=None)
    make_players(event, count=8)
    (late,) = make_players(event, ["Late Comer"], checked_in=False)
    stage = seat(event)
    table = Table.objects.filter(stage=stage).first()
    play(table, 1)
    page = director_client.get(player_url(late)).content.decode()
    key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    response = director_client.post(player_url(late), {"late": "1", "table": table.pk, "once": key})
    assert "does not let late arrivals join" in response.content.decode()
    assert not Seat.objects.filter(player=late).exists()


# -- search that forgives ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("jose nunez", "José Núñez"),
        ("JOSÉ", "José Núñez"),
        ("zoe", "Zoë Ångström"),
        ("ZOË", "Zoë Ångström"),
        ("angstrom", "Zoë Ångström"),
        ("muller", "Jürgen Müller"),
        ("  jurgen   MÜLLER ", "Jürgen Müller"),
    ],
)
def test_find_my_table_forgives_case_and_accents(client, event, typed, found):
    make_players(event, ["José Núñez", "Zoë Ångström", "Jürgen Müller", "Ann Lee"])
    page = client.get(f"/e/{event.slug}/find/", {"q": typed}).content.decode()
    names = re.findall(r"<strong>([^<]+)</strong>", page)
    assert names == [found]


def test_a_name_change_changes_the_search(director_client, event):
    (player,) = make_players(event, ["Jose Nunez"])
    edit(director_client, player, name="Chloé Dubois")
    page = director_client.get(f"/e/{event.slug}/find/", {"q": "chloe"}).content.decode()
    assert "Chloé Dubois" in page


# -- the check-in desk --------------------------------------------------------------------------


def desk_url(event):
    return f"/director/e/{event.slug}/desk/"


def test_the_desk_lists_200_players_in_a_fixed_number_of_queries(
    director_client, event, django_assert_max_num_queries
):
    make_players(event, count=200, checked_in=False)
    with django_assert_max_num_queries(12):
        page = director_client.get(desk_url(event)).content.decode()
    assert page.count('class="desk-tap"') == 200
    assert '<strong data-count="checked_in">0</strong>' in page
    assert '<strong data-count="registered">200</strong>' in page


def test_the_desk_search_without_script_filters_on_the_server(director_client, event):
    make_players(event, ["José Núñez", "Ann Lee"], checked_in=False)
    page = director_client.get(desk_url(event), {"q": "nunez"}).content.decode()
    assert "José Núñez" in page and "Ann Lee" not in page


def test_one_tap_checks_in_and_a_double_tap_checks_in_once(director_client, event):
    ann, bo = make_players(event, ["Ann", "Bo"], checked_in=False)
    url = f"/director/e/{event.slug}/players/check-in/"
    post = {"player": ann.pk, "checked_in": "1", "back": "desk"}
    first = director_client.post(url, post, HTTP_ACCEPT="application/json").json()
    second = director_client.post(url, post, HTTP_ACCEPT="application/json").json()
    assert first == {
        "changed": 1,
        "state": True,
        "registered": 2,
        "withdrew": 0,
        "checked_in": 1,
        "seated": 0,
        "waitlisted": 0,  # signed up on the event's page (issue 49)
        "pending": 0,
        "standby": 0,  # checked in to play if a place is free (issue 49 item 2)
        "no_show": 1,  # registered, not checked in
        # each count's whole phrase, for the script to put in place (issue 45 item 10)
        "phrases": {
            "checked_in": ["", "1", " checked in"],
            "standby": ["", "0", " standbys"],
            "no_show": ["", "1", " no-show"],
            "registered": ["", "2", " registered"],
            "seated": ["", "0", " seated"],
        },
    }
    assert second["changed"] == 0 and second["checked_in"] == 1
    assert Action.objects.filter(verb="players.checked_in").count() == 1
    page = director_client.get(desk_url(event)).content.decode()
    assert '<strong data-count="checked_in">1</strong>' in page


@pytest.mark.django_db(transaction=True)
def test_two_desks_tapping_the_same_player_at_once_check_in_once(director):
    event = make_event(director, slug="desks")
    (ann,) = make_players(event, ["Ann"], checked_in=False)
    desks = [logged_in(director) for _ in range(4)]
    url = f"/director/e/{event.slug}/players/check-in/"
    results = at_once(
        [lambda c=c: c.post(url, {"player": ann.pk, "checked_in": "1"}) for c in desks]
    )
    no_errors(results)
    assert Player.objects.get(pk=ann.pk).checked_in
    assert Action.objects.filter(verb="players.checked_in").count() == 1


def test_the_sign_in_sheet_is_a_pdf_for_directors_only(director_client, client, event):
    make_players(event, ["Ann", "Bo"], checked_in=False)
    response = director_client.get(f"/director/e/{event.slug}/sign-in.pdf")
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    assert client.get(f"/director/e/{event.slug}/sign-in.pdf").status_code == 302


# -- events: rename, archive, delete --------------------------------------------------------------


def test_an_archived_event_leaves_the_home_list_but_stays_public(director_client, client, event):
    director_client.post(f"/director/e/{event.slug}/archive/", {"archived": "1"})
    assert "Spring Games" not in client.get("/").content.decode()
    assert "Spring Games" in client.get(f"/e/{event.slug}/").content.decode()
    director_client.post(f"/director/e/{event.slug}/archive/", {"archived": "0"})
    assert "Spring Games" in client.get("/").content.decode()
    verbs = list(event.actions.values_list("verb", flat=True))
    assert "event.archived" in verbs and "event.unarchived" in verbs


def test_same_named_events_are_told_apart_on_the_home_page(client, director):
    import datetime

    make_event(director, name="Club Night", date=datetime.date(2026, 3, 1), venue="Hall A")
    make_event(director, name="Club Night", date=datetime.date(2026, 4, 5), venue="Hall B")
    page = client.get("/").content.decode()
    assert "Hall A" in page and "Hall B" in page
    assert "March 1, 2026" in page and "April 5, 2026" in page


def test_delete_offers_the_event_file_first_and_needs_the_short_name(director_client, seated):
    event = seated.event
    url = f"/director/e/{event.slug}/delete/"
    page = director_client.get(url)
    assert f'href="/director/e/{event.slug}/event.json"' in page.content.decode()
    key = form_key(page)
    wrong = director_client.post(url, {"slug": "nope", "once": key})
    assert "nothing was deleted" in wrong.content.decode()
    assert type(event).objects.filter(pk=event.pk).exists()
    response = director_client.post(url, {"slug": event.slug, "once": key})
    assert response.status_code == 302
    assert not type(event).objects.filter(pk=event.pk).exists()
    again = director_client.post(url, {"slug": event.slug, "once": key})
    assert again.status_code == 404


def test_an_event_is_renamed_from_its_rules_page(director_client, event):
    from tournament.forms import EventForm

    form = EventForm(instance=event)
    data = {
        name: (form[name].value() if form[name].value() is not None else "") for name in form.fields
    }
    data.update(
        name="Spring Games 2026 (indoor)",
        once=form_key(director_client.get(f"/director/e/{event.slug}/edit/")),
    )
    data["date"] = "2026-09-19"
    response = director_client.post(f"/director/e/{event.slug}/edit/", data)
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.name == "Spring Games 2026 (indoor)"


def test_a_keep_apart_group_given_on_the_players_page_is_kept(director_client, event):
    (ann,) = make_players(event, ["Ann Smith"])
    response, _ = edit(director_client, ann, keep_apart="Smith household")
    assert response.status_code == 302
    ann.refresh_from_db()
    assert ann.keep_apart == "Smith household"
    history = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    assert "keep apart group: – → Smith household" in history
