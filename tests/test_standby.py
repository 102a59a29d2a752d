"""Check-in with standbys (issue 49 item 2): a registrant on the waitlist who comes to the hall,
or a walk-on the desk adds as standby, takes a no-show's place when the director draws Game 1,
in order (the waitlist's first, then the walk-ons as added); those left over stay standby and
join later by the late-arrival rule; the desk counts checked in, standby and no-show.

Everything goes through the pages: the desk's forms and the seating page's draw form, posted as
the pages send them."""

import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, logged_in, no_errors, said
from tests.factories import make_director, make_event, make_players, play
from tests.test_signup import open_signup, sign_up
from tournament.models import Action, Event, Player, Seat, Table, Waiting

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def words(response) -> str:
    """The page's words as read, tags taken out ("<a>Wen</a>, <a>Xia</a>": "Wen, Xia")."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    page = re.sub(r"<(p|li|div|h\d|td|th|option|label|span|button|summary)\b", r" <\1", page)
    return html.unescape(" ".join(re.sub(r"<[^>]+>", "", page).split()))


def desk_url(event) -> str:
    return f"/director/e/{event.slug}/desk/"


def check_in(client, player):
    """One tap on the player's Check in button at the desk (the form the page holds)."""
    page = client.get(desk_url(player.event)).content.decode()
    assert f'name="player" value="{player.pk}"' in page
    data = {"player": player.pk, "back": "desk", "q": "", "checked_in": "1"}
    return client.post(f"/director/e/{player.event.slug}/players/check-in/", data)


def add_walk_on(client, event, name, entry="standby", club="", **headers):
    """The desk's "Add a walk-on" form, filled in and sent."""
    page = client.get(desk_url(event), **headers).content.decode()
    form = re.search(r'<form[^>]*id="walk-on-form".*?</form>', page, re.S).group(0)
    key = re.search(r'name="once" value="([^"]+)"', form).group(1)
    assert f'value="{entry}"' in form, "the form offers no such choice"
    data = {"once": key, "name": name, "club": club, "division": "", "entry": entry}
    return client.post(desk_url(event), data, **headers)


def draw_form(client, event) -> dict:
    """The seating page's draw form, as drawn for this director: its key, and ``first`` when
    the page showed no seating yet."""
    page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    form = re.search(
        rf'<form method="post" action="/director/e/{event.slug}/1/seat/" '
        r'class="mb-2">.*?</form>',
        page,
        re.S,
    ).group(0)
    fields = dict(re.findall(r'<input type="hidden" name="(once|first)" value="([^"]*)"', form))
    assert "once" in fields
    return fields


def draw(client, event, **headers):
    """Press the seating page's draw button; the page it leads to."""
    data = draw_form(client, event)
    return client.post(f"/director/e/{event.slug}/1/seat/", data, follow=True, **headers)


def seated_names(event) -> set[str]:
    return set(
        Seat.objects.filter(stage__event=event, stage__number=1).values_list(
            "player__name", flat=True
        )
    )


@pytest.fixture
def full_event(client, event):
    """Capacity 6, filled by sign-ups on the event's page: 6 registered, then Wen and Xia
    on the waitlist, in that order."""
    open_signup(event, signup_capacity=6)
    for name in ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Wen", "Xia"):
        assert sign_up(client, event, name).status_code == 302
    assert [p.name for p in event.players.waitlist()] == ["Wen", "Xia"]
    return event


def test_standbys_fill_the_no_shows_places_in_order_and_the_rest_stay_standby(
    director_client, full_event
):
    event = full_event
    for name in ("Ann", "Bo", "Cy", "Di"):  # Ed and Flo do not come: two no-shows
        check_in(director_client, Player.objects.get(name=name))
    # Xia comes before Wen, but the waitlist's order gives Wen the first place.
    check_in(director_client, Player.objects.get(name="Xia"))
    check_in(director_client, Player.objects.get(name="Wen"))
    add_walk_on(director_client, event, "Yves")  # walk-ons after, in the order added
    add_walk_on(director_client, event, "Zed")
    desk = words(director_client.get(desk_url(event)))
    assert "4 checked in · 4 standbys · 2 no-shows · 6 registered · 0 seated" in desk
    players = words(director_client.get(f"/director/e/{event.slug}/players/"))
    assert "6 players registered, 4 checked in, 2 on the waitlist, 4 standbys at the hall." in (
        players
    )
    assert re.search(r"Xia standby", players)

    seating = director_client.get(f"/e/{event.slug}/1/seating/")
    assert "4 standbys, in the order they take the no-shows' places: Wen, Xia, Yves, Zed." in words(
        seating
    )
    drawn = words(draw(director_client, event))
    assert "2 tables drawn." in drawn
    assert "2 standbys take the no-shows' places: Wen, Xia." in drawn
    assert "2 standbys are left over, not seated: Yves, Zed." in drawn
    assert "2 no-shows (registered, not checked in) are not seated." in drawn
    assert seated_names(event) == {"Ann", "Bo", "Cy", "Di", "Wen", "Xia"}
    assert [p.entry for p in Player.objects.filter(name__in=["Wen", "Xia"])] == ["registered"] * 2
    assert [p.name for p in event.players.standbys()] == ["Yves", "Zed"]
    # The seating page keeps saying who is left over, and the no-shows.
    assert "2 standbys left over, not seated: Yves, Zed." in drawn
    assert "2 no-shows, not seated." in drawn

    desk = director_client.get(desk_url(event)).content.decode()
    assert "6 checked in · 2 standbys · 2 no-shows · 8 registered · 6 seated" in words(
        director_client.get(desk_url(event))
    )
    for name, badge in (("Ed", "no-show"), ("Zed", "standby"), ("Ann", "")):
        row = re.search(rf"<li[^>]*desk-row[^>]*>(?:(?!</li>).)*>{name}</a>.*?</li>", desk, re.S)
        shown = re.search(r'class="badge text-bg-warning desk-entry[^"]*"[^>]*>([^<]*)<', row[0])
        assert shown.group(1) == badge, name
    history = words(director_client.get(f"/director/e/{event.slug}/history/"))
    assert "Wen, standby, takes a no-show's place at the draw" in history
    assert "Zed added at the desk as standby" in history


def test_without_a_capacity_the_places_are_the_registered_players(director_client, event):
    make_players(event, count=7)  # checked in
    make_players(event, ["Gone Gus"], checked_in=False)  # the one no-show
    for name in ("Walk One", "Walk Two", "Walk Three"):
        add_walk_on(director_client, event, name)
    drawn = words(draw(director_client, event))
    assert "1 standby takes a no-show's place: Walk One." in drawn
    assert "2 standbys are left over, not seated: Walk Two, Walk Three." in drawn
    assert "1 no-show (registered, not checked in) is not seated." in drawn
    assert len(seated_names(event)) == 8 and "Gone Gus" not in seated_names(event)
    assert "Walk One" in seated_names(event)


def test_drawing_again_gives_no_place_twice_and_a_freed_place_to_the_next(
    director_client, full_event
):
    event = full_event
    for name in ("Ann", "Bo", "Cy", "Di", "Ed", "Wen", "Xia"):
        check_in(director_client, Player.objects.get(name=name))
    draw(director_client, event)
    assert "Wen" in seated_names(event) and "Xia" not in seated_names(event)
    again = words(draw(director_client, event))  # nothing changed: the same players drawn
    assert "takes a no-show's place" not in again
    assert "1 standby is left over, not seated: Xia." in again
    assert seated_names(event) == {"Ann", "Bo", "Cy", "Di", "Ed", "Wen"}
    # Ed leaves before the first round; drawn again, Xia takes the place he freed.
    ed = Player.objects.get(name="Ed")
    page = director_client.get(f"/director/e/{event.slug}/players/{ed.pk}/").content.decode()
    key = re.search(r'id="withdraw-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
    director_client.post(
        f"/director/e/{event.slug}/players/{ed.pk}/", {"withdraw": "1", "reason": "", "once": key}
    )
    assert "1 standby takes a no-show's place: Xia." in words(draw(director_client, event))
    assert seated_names(event) == {"Ann", "Bo", "Cy", "Di", "Wen", "Xia"}
    assert Action.objects.filter(verb="player.standby_seated").count() == 2


def test_a_double_click_on_the_draw_takes_the_standbys_once(director_client, full_event):
    event = full_event
    for name in ("Ann", "Bo", "Cy", "Di", "Wen", "Xia"):
        check_in(director_client, Player.objects.get(name=name))
    data = draw_form(director_client, event)
    assert data.get("first") == "1"
    url = f"/director/e/{event.slug}/1/seat/"
    first = said(director_client.post(url, data))
    second = said(director_client.post(url, data))[len(first) :]  # after the first's, unread
    assert second == first  # the repeat answers as the first did
    assert "2 standbys take the no-shows' places: Wen, Xia." in second
    assert Action.objects.filter(verb="stage.seated").count() == 1
    assert Action.objects.filter(verb="player.standby_seated").count() == 2
    assert len(seated_names(event)) == 6


def test_a_walk_on_after_the_draw_joins_by_the_late_arrival_rule(director_client, director):
    event = make_event(director, slug="late", engines=[3, 2, 1, 0], game_minutes=None)
    Event.objects.filter(pk=event.pk).update(late_arrivals=True)
    make_players(event, count=8)
    add_walk_on(director_client, event, "Left Over")  # no place free: stays standby
    assert "1 standby is left over, not seated: Left Over." in words(draw(director_client, event))
    table = Table.objects.get(stage__event=event, stage__number=1, number=1)
    play(table, 1)  # round 3-3 played at table 1
    highest = max(table_sheet(table).totals.values())

    # At the desk, the standby left over is offered a table by the late-arrival rule.
    desk = director_client.get(desk_url(event)).content.decode()
    left = Player.objects.get(name="Left Over")
    assert f'href="/director/e/late/players/{left.pk}/#late"' in desk
    response = add_walk_on(director_client, event, "Very Late", entry="play")
    walk_on = Player.objects.get(name="Very Late")
    assert response["Location"] == f"/director/e/late/players/{walk_on.pk}/#late"
    assert (walk_on.checked_in, walk_on.entry) == (True, "registered")
    other = Table.objects.get(stage__event=event, stage__number=1, number=2)
    for player, at, said_table in ((left, table, 1), (walk_on, other, 2)):
        page = director_client.get(f"/director/e/late/players/{player.pk}/").content.decode()
        key = re.search(r'id="late-form">.*?name="once" value="([^"]+)"', page, re.S).group(1)
        seated = director_client.post(
            f"/director/e/late/players/{player.pk}/",
            {"late": "1", "table": at.pk, "once": key},
            follow=True,
        )
        assert f"{player.name} joins table {said_table}." in words(seated)
    left.refresh_from_db()
    assert left.entry == "registered" and not event.players.standbys().exists()
    # At table 1, round 3-3 is played: the standby joins at round 2 (the next), and the round
    # missed scores the table's highest; table 2 has not started: the walk-on plays it all.
    assert Seat.objects.get(player=left).joined_at == 2
    assert Seat.objects.get(player=walk_on).joined_at is None
    assert table_sheet(table).totals[left.pk] == highest
    assert Round.objects.filter(table=table).count() == 1
    desk = words(director_client.get(desk_url(event)))
    assert "10 checked in · 0 standbys · 0 no-shows · 10 registered · 10 seated" in desk


def test_a_walk_on_with_a_bad_name_or_already_listed_is_told_and_nothing_is_added(
    director_client, event
):
    make_players(event, ["José Núñez"], club="Reno")
    response = add_walk_on(director_client, event, "  ")
    assert response.status_code == 200
    assert "This field is required." in words(response)
    assert 'id="walk-on" open' in response.content.decode()  # the form stays open
    response = add_walk_on(director_client, event, "jose nunez", club="RENO")
    assert "jose nunez is already on this event's list: find them with the search." in words(
        response
    )
    data = {"once": "x" * 20, "name": "Al", "club": "", "division": "", "entry": "sit-out"}
    response = director_client.post(desk_url(event), data)
    assert response.status_code == 200 and "Select a valid choice." in words(response)
    assert list(event.players.values_list("name", flat=True)) == ["José Núñez"]


def test_a_repeated_walk_on_form_adds_once(director_client, event):
    page = director_client.get(desk_url(event))
    data = {"once": form_key(page), "name": "Al", "club": "", "division": "", "entry": "standby"}
    director_client.post(desk_url(event), data)
    director_client.post(desk_url(event), data)
    assert list(event.players.values_list("name", "waiting", "checked_in")) == [
        ("Al", Waiting.STANDBY, True)
    ]


def test_the_desk_offers_standby_first_when_every_place_is_taken(director_client, full_event):
    page = director_client.get(desk_url(full_event)).content.decode()
    assert re.search(r'value="standby"[^>]*checked', page)
    Event.objects.filter(pk=full_event.pk).update(signup_capacity=None)
    page = director_client.get(desk_url(full_event)).content.decode()
    assert re.search(r'value="play"[^>]*checked', page)


def test_the_desk_and_the_draw_in_french(director_client, full_event):
    event = full_event
    for name in ("Ann", "Bo", "Cy", "Di", "Ed"):
        check_in(director_client, Player.objects.get(name=name))
    check_in(director_client, Player.objects.get(name="Wen"))
    add_walk_on(director_client, event, "Yves", **FR)
    desk = words(director_client.get(desk_url(event), **FR))
    assert "5 présents · 2 remplaçants · 1 absent · 6 inscrits · 0 placé" in desk
    players = words(director_client.get(f"/director/e/{event.slug}/players/", **FR))
    assert "2 remplaçants sur place" in players
    assert "Ajouter un joueur arrivé sur place" in desk
    drawn = words(draw(director_client, event, **FR))
    assert "1 remplaçant prend la place d'un absent : Wen." in drawn
    assert "1 remplaçant reste en réserve, sans place : Yves." in drawn
    assert "1 absent (inscrit, non pointé) n'a pas de place." in drawn


def test_the_event_file_keeps_the_standbys_and_their_order(director_client, full_event):
    event = full_event
    check_in(director_client, Player.objects.get(name="Xia"))
    for name in ("Zed", "Yves"):  # in the order added, not A to Z
        add_walk_on(director_client, event, name)
    before = [p.name for p in event.players.standbys()]
    assert before == ["Xia", "Zed", "Yves"]
    text_file = director_client.get(f"/director/e/{event.slug}/event.json").content.decode()
    assert '"waiting": "standby"' in text_file
    event.delete()
    key = form_key(director_client.get("/director/import/"))
    upload = SimpleUploadedFile("e.json", text_file.encode())
    response = director_client.post("/director/import/", {"file": upload, "once": key})
    assert response.status_code == 302
    copy = Event.objects.get()
    assert [p.name for p in copy.players.standbys()] == before
    assert copy.players.counts()["standby"] == 3


@pytest.mark.django_db(transaction=True)
def test_two_directors_drawing_at_once_make_one_draw():
    boss = make_director("boss")
    event = make_event(boss, slug="rush")
    make_players(event, count=7)
    make_players(event, ["No Show"], checked_in=False)
    client = logged_in(boss)
    add_walk_on(client, event, "Stan By")
    add_walk_on(client, event, "Spare Two")
    others = [logged_in(make_director()) for _ in range(3)]
    for other in others:
        event.directors.add(other.session["_auth_user_id"])
    directors = [client, *others]
    forms = [draw_form(c, event) for c in directors]  # each page drawn before any draw
    url = f"/director/e/{event.slug}/1/seat/"
    results = at_once(
        [lambda c=c, f=f: c.post(url, f) for c, f in zip(directors, forms, strict=True)]
    )
    no_errors(results)
    assert Action.objects.filter(verb="stage.seated").count() == 1
    assert Action.objects.filter(verb="player.standby_seated").count() == 1
    answers = [said(r) for r in results]
    drawn = [a for a in answers if "2 tables drawn." in a]
    assert len(drawn) == 1
    assert "1 standby takes a no-show's place: Stan By." in drawn[0]
    meanwhile = "Game 1 was drawn meanwhile, by another director: that seating stays."
    assert sum(meanwhile in a for a in answers) == 3
    late = answers.index(next(a for a in answers if meanwhile in a))
    again = said(directors[late].post(url, forms[late]))  # its repeat: the same answer
    assert again[-1] == meanwhile and Action.objects.filter(verb="stage.seated").count() == 1
    seated = list(Seat.objects.filter(stage__event=event).values_list("player__name", flat=True))
    assert len(seated) == len(set(seated)) == 8
    assert "Stan By" in seated and "No Show" not in seated and "Spare Two" not in seated
    assert [p.name for p in event.players.standbys()] == ["Spare Two"]
