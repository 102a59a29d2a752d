"""Published when the director says (issue 49 items 4, 5 and 6): a seating drawn on its page is
a draft the directors alone see until one presses Publish (or starts the clock); standings and
results may be held back until released; the public pages, the phones, the hall screen and the
API say "not published yet" meanwhile; registrants are e-mailed their table once published.
Through the pages as they are posted, the e-mails read back from a real SMTP server."""

import html
import json
import re

import pytest
from django.test import Client
from django_tasks_db.models import DBTaskResult

from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, play
from tests.test_deployment import work_as_the_worker
from tests.test_event_setup import NVSO_FORM
from tests.test_signup import mail_server, open_signup, sign_up  # noqa: F401 (a fixture)
from tournament.models import Action, Event, Stage, Table

NAMES = ["Ann Lee", "Bo Diaz", "Cy Wu", "Di Ray", "Ed Fox", "Flo Kim", "Gus Hart", "Hal Moe"]
DRAFT = "Seating not published yet"
HELD = "Standings and results not published yet"


def text(response) -> str:
    if response["Content-Type"] == "application/pdf":
        return "a PDF"
    body = response.content.decode()
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def seating_url(event, number=1) -> str:
    return f"/e/{event.slug}/{number}/seating/"


def seat_url(event, number=1) -> str:
    return f"/director/e/{event.slug}/{number}/seat/"


def draw(director_client, event, number=1):
    """The seating page's draw, posted as its form sends it (its once key)."""
    key = form_key(director_client.get(seating_url(event, number)))
    return director_client.post(seat_url(event, number), {"once": key}, follow=True)


def publish(director_client, event, number=1, key=None):
    """The Publish button of the seating page, as its form sends it."""
    page = director_client.get(seating_url(event, number)).content.decode()
    form = page.split('id="publish-seating-form"', 1)[1].split("</form>", 1)[0]
    found = re.search(r'name="once" value="([^"]+)"', form)
    data = {"action": "publish", "once": key or found.group(1)}
    assert 'name="action" value="publish"' in form and 'name="csrfmiddlewaretoken"' in form
    return director_client.post(seat_url(event, number), data, follow=True)


@pytest.fixture
def night(director):
    event = make_event(director, name="Spring Games", slug="spring", engines=[1, 0])
    make_players(event, NAMES)
    return event


def public_pages(event) -> dict[str, str]:
    """What a player's phone reads of the stage on every public page that shows a seating."""
    client = Client()
    ann = event.players.get(name="Ann Lee")
    pages = {
        "seating": seating_url(event),
        "standings": f"/e/{event.slug}/1/",
        "table": f"/e/{event.slug}/1/table/1/",
        "find": f"/e/{event.slug}/find/?q=ann",
        "player": f"/e/{event.slug}/player/{ann.pk}/",
        "screen": f"/e/{event.slug}/1/screen/",
        "bracket": f"/e/{event.slug}/bracket/",
        "seating_pdf": f"/e/{event.slug}/1/seating.pdf",
        "sheets_pdf": f"/e/{event.slug}/1/blank-sheets.pdf",
        "home": f"/e/{event.slug}/",
    }
    return {name: text(client.get(url)) for name, url in pages.items()}


def table_of(event, name: str) -> int:
    return Table.objects.get(stage__event=event, stage__number=1, seats__player__name=name).number


# -- the draft and the Publish button -----------------------------------------------------------


def test_a_drawn_seating_is_a_draft_the_public_does_not_see_until_published(night, director_client):
    drawn = text(draw(director_client, night))
    assert "2 tables drawn." in drawn
    assert "The seating is a draft: players do not see it until you press Publish" in drawn
    assert "Draft: players do not see it yet." in drawn and "Ann Lee" in drawn  # the director's
    assert Stage.objects.get(event=night, number=1).seating_draft

    before = public_pages(night)
    for name in ("seating", "table", "seating_pdf", "sheets_pdf"):
        assert f"{DRAFT}: the directors publish it before play starts." in before[name], name
    assert "seating not published yet" in before["home"]
    for name, page in before.items():
        assert "Bo Diaz" not in page, name  # nobody's table is told
    assert f"{DRAFT}." in before["screen"]
    assert "Table 1" not in before["find"] and "Table 1" not in before["player"]

    published = text(publish(director_client, night))
    assert "The seating of Game 1 is published: players see it now." in published
    assert "Draft: players do not see it yet." not in published
    after = public_pages(night)
    assert all(DRAFT not in page for page in after.values())
    assert after["seating_pdf"] == after["sheets_pdf"] == "a PDF"
    assert "Bo Diaz" in after["seating"] and "Bo Diaz" in after["standings"]
    assert "Ann Lee" in after["table"] or "Ann Lee" in text(
        Client().get(f"/e/{night.slug}/1/table/2/")
    )
    assert f"Table {table_of(night, 'Ann Lee')}" in after["find"]
    entry = Action.objects.get(event=night, verb="stage.published")
    assert entry.data == {"stage": "Game 1", "tables": 2, "then": ""}


def test_clearing_and_drawing_again_makes_a_draft_again(night, director_client, client):
    draw(director_client, night)
    publish(director_client, night)
    key = form_key(director_client.get(seating_url(night)))
    page = director_client.get(seating_url(night)).content.decode()
    clear_key = re.search(
        r'id="clear-seating-form">.*?name="once" value="([^"]+)"', page, re.S
    ).group(1)
    director_client.post(
        seat_url(night), {"action": "clear", "reason": "late bus", "once": clear_key}
    )
    assert not Stage.objects.get(event=night, number=1).seating_draft  # nothing left to hide
    director_client.post(seat_url(night), {"once": key})
    assert DRAFT in text(client.get(seating_url(night)))


def test_starting_the_clock_publishes_a_draft(night, director_client, client):
    draw(director_client, night)
    director_client.post(f"/director/e/{night.slug}/1/clock/", {"action": "start"})
    assert not Stage.objects.get(event=night, number=1).seating_draft
    assert "Bo Diaz" in text(client.get(seating_url(night)))
    assert Action.objects.get(event=night, verb="stage.published").data["then"] == "clock"


def test_a_round_entered_at_a_draft_publishes_it(night, director_client, client):
    draw(director_client, night)
    stage = Stage.objects.get(event=night, number=1)
    play(stage.tables.get(number=1), 1)
    assert "Bo Diaz" in text(client.get(seating_url(night)))


def test_a_phone_cannot_open_a_draft_tables_code(night, director_client, client):
    night.table_entry = True
    night.save()
    draw(director_client, night)
    code = Table.objects.get(stage__event=night, number=1).code
    refused = client.get(f"/t/{code}/")
    assert refused.status_code == 403
    assert "Seating not published yet: try again once the directors publish it." in text(refused)
    publish(director_client, night)
    assert client.get(f"/t/{code}/").status_code == 200


def test_publishing_with_nothing_drawn_says_so_and_a_visitor_cannot_publish(night, director_client):
    refused = director_client.post(seat_url(night), {"action": "publish"}, follow=True)
    assert "Game 1 has no seating to publish: draw it first." in text(refused)
    draw(director_client, night)
    assert Client().post(seat_url(night), {"action": "publish"}).status_code == 302  # to login
    assert Stage.objects.get(event=night, number=1).seating_draft


def test_a_repeated_publish_says_it_was_already_published(night, director_client):
    draw(director_client, night)
    publish(director_client, night)
    again = director_client.post(seat_url(night), {"action": "publish"}, follow=True)
    assert "This seating was already published." in text(again)
    assert Action.objects.filter(verb="stage.published").count() == 1


def test_a_stage_seated_from_the_close_page_is_a_draft_until_published(director, director_client):
    event = make_event(director, name="Short", slug="short", engines=[0], table_size=4)
    make_players(event, NAMES)
    draw(director_client, event)
    publish(director_client, event)
    for table in Stage.objects.get(event=event, number=1).tables.all():
        play(table, 1)
    closed = text(
        director_client.post("/director/e/short/1/close/", {"action": "close"}, follow=True)
    )
    assert "Final seated." in closed and "The seating is a draft" in closed
    final = Stage.objects.get(event=event, number=2)
    assert final.seating_draft
    assert DRAFT in text(Client().get("/e/short/2/seating/"))
    publish(director_client, event, 2)
    assert DRAFT not in text(Client().get("/e/short/2/seating/"))


def test_the_public_pages_in_french(night, director_client):
    draw(director_client, night)
    french = Client(headers={"accept-language": "fr"})
    page = french.get(seating_url(night)).content.decode()
    assert "Placement pas encore publié\u00a0: les directeurs le publient" in page


# -- the API -------------------------------------------------------------------------------------


def test_the_api_gives_no_standings_of_a_draft_and_says_it(night, director_client, client):
    draw(director_client, night)
    stage = json.loads(client.get(f"/api/events/{night.slug}/stages/1/").content)
    assert stage["published"] is False and stage["standings"] == []
    listed = json.loads(client.get(f"/api/events/{night.slug}/").content)["stages"][0]
    assert listed["published"] is False
    publish(director_client, night)
    stage = json.loads(client.get(f"/api/events/{night.slug}/stages/1/").content)
    assert stage["published"] is True and len(stage["standings"]) == 8


# -- the hall screen -----------------------------------------------------------------------------


def seating_region(response) -> str:
    return response.content.decode().split('id="live-screen-seating"', 1)[1].split("</table>")[0]


def test_the_hall_screen_never_shows_a_draft_even_to_a_logged_in_director(night, director_client):
    draw(director_client, night)
    for reader in (Client(), director_client):
        region = seating_region(reader.get(f"/e/{night.slug}/1/screen/?show=seating"))
        assert f"{DRAFT}." in region and "Ann Lee" not in region
    publish(director_client, night)
    region = seating_region(Client().get(f"/e/{night.slug}/1/screen/?show=seating"))
    names = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">(\d+)</td>", region)
    assert [n for n, _t in names] == sorted(NAMES)
    assert dict(names)["Ann Lee"] == str(table_of(night, "Ann Lee"))


def test_the_hall_screens_live_check_follows_the_publishing(night, director_client):
    """A screen open on the draft brings its seating region up to date once published, from
    its own check (static/js/live.js), not a reload."""
    draw(director_client, night)
    screen = Client()
    page = screen.get(f"/e/{night.slug}/1/screen/?show=seating").content.decode()
    version = re.search(r'data-version="(\d+)"', page).group(1)
    state = re.search(r'id="live-screen-seating"[^>]*data-live="([^"]+)"', page).group(1)
    publish(director_client, night)
    answer = json.loads(
        screen.get(
            f"/e/{night.slug}/1/screen/?show=seating",
            headers={"X-Live-Version": version, "X-Live-States": f"live-screen-seating={state}"},
        ).content
    )
    assert "Ann Lee" in json.dumps(answer["regions"]["live-screen-seating"])


# -- results held back until released ------------------------------------------------------------


def hold(director_client, event):
    """The event's settings form, saved with "Hold standings and results" ticked."""
    form = {**NVSO_FORM, "name": event.name, "date": "2026-09-19", "engines": "1, 0"}
    response = director_client.post(
        f"/director/e/{event.slug}/edit/", form | {"results_held": "on"}
    )
    assert response.status_code == 302


def release_form(director_client, path) -> str:
    page = director_client.get(path).content.decode()
    return page.split('id="release-results"', 1)[1].split("</form>", 1)[0]


def test_results_held_until_the_director_releases_them(night, director_client, client):
    draw(director_client, night)
    publish(director_client, night)
    for table in Stage.objects.get(event=night, number=1).tables.all():
        play(table, 2)
    hold(director_client, night)
    assert Event.objects.get(pk=night.pk).results_held
    public = {
        "standings": f"/e/{night.slug}/1/",
        "results": f"/e/{night.slug}/results/",
        "bracket": f"/e/{night.slug}/bracket/",
        "results_pdf": f"/e/{night.slug}/results.pdf",
        "export": f"/e/{night.slug}/1/standings/export/?_export=csv",
        "round_scores": f"/e/{night.slug}/round-scores/?_export=csv",
    }
    for name, url in public.items():
        page = client.get(url)
        assert page["Content-Type"].startswith("text/html"), name
        assert HELD in text(page), name
    assert "Bo Diaz" in text(client.get(seating_url(night)))  # the seating stays public
    api = json.loads(client.get(f"/api/events/{night.slug}/results/").content)
    assert api == {"slug": "spring", "published": False, "medals": []}
    stage = json.loads(client.get(f"/api/events/{night.slug}/stages/1/").content)
    assert stage["results_published"] is False and stage["standings"] == []
    assert HELD not in text(director_client.get(f"/e/{night.slug}/results/"))  # the director's

    form = release_form(director_client, f"/e/{night.slug}/results/")
    assert 'value="release"' in form and "Release results" in form
    released = director_client.post(
        f"/director/e/{night.slug}/results/release/",
        {"action": "release", "next": f"/e/{night.slug}/results/"},
        follow=True,
    )
    assert "Standings and results are released: everyone sees them now." in text(released)
    for name, url in public.items():
        assert HELD not in text(client.get(url)), name
    assert client.get(public["export"])["Content-Type"].startswith("text/csv")
    assert json.loads(client.get(f"/api/events/{night.slug}/results/").content)["published"]

    # Held again (the medals are for the ceremony after all): hidden again.
    assert 'value="hold"' in release_form(director_client, f"/e/{night.slug}/results/")
    director_client.post(f"/director/e/{night.slug}/results/release/", {"action": "hold"})
    assert HELD in text(client.get(public["results"]))
    verbs = list(
        Action.objects.filter(verb__startswith="event.results").order_by("pk").values_list("verb")
    )
    assert verbs == [("event.results_released",), ("event.results_held",)]


def test_a_release_goes_back_only_to_a_page_of_this_site(night, director_client):
    hold(director_client, night)
    response = director_client.post(
        f"/director/e/{night.slug}/results/release/",
        {"action": "release", "next": "https://evil.example.org/"},
    )
    assert response["Location"] == f"/e/{night.slug}/results/"


# -- both databases: Publish pressed twice and by two directors at once --------------------------


@pytest.mark.django_db(transaction=True)
def test_publish_pressed_twice_and_by_two_directors_at_once_publishes_once(mail_server):  # noqa: F811
    boss, other = make_director("boss"), make_director("other")
    event = open_signup(make_event(boss, name="Race", slug="race", engines=[1, 0]))
    event.directors.add(other)
    signer = Client()
    for name in NAMES[:4]:
        sign_up(signer, event, name, email=f"{name.split()[0].lower()}@example.org")
    make_players(event, NAMES[4:])
    event.players.update(checked_in=True)
    first, second = logged_in(boss), logged_in(other)
    draw(first, event)
    assert DBTaskResult.objects.filter(task_path="tournament.tasks.send_seat_mail").count() == 0
    page = first.get(seating_url(event)).content.decode()
    key = re.search(r'id="publish-seating-form">.*?name="once" value="([^"]+)"', page, re.S).group(
        1
    )
    other_key = form_key(second.get(seating_url(event)))
    data = {"action": "publish"}
    results = at_once(
        [
            lambda: first.post(seat_url(event), data | {"once": key}),
            lambda: first.post(seat_url(event), data | {"once": key}),  # the double click
            lambda: second.post(seat_url(event), data | {"once": other_key}),
        ]
    )
    no_errors(results)
    assert Action.objects.filter(verb="stage.published").count() == 1
    assert not Stage.objects.get(event=event, number=1).seating_draft
    # Each of the four registrants with an e-mail is told once.
    assert DBTaskResult.objects.filter(task_path="tournament.tasks.send_seat_mail").count() == 4


# -- the e-mails ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_registrants_are_e_mailed_their_table_once_published_and_when_they_advance(
    mail_server,  # noqa: F811
):
    boss = make_director("boss")
    event = open_signup(make_event(boss, name="Mail Games", slug="mailgames", engines=[0]))
    signer = Client()
    links = {}
    for name in NAMES[:3]:
        headers = {"headers": {"accept-language": "fr"}} if name == "Cy Wu" else {}
        mail = f"{name.split()[0].lower()}@example.org"
        links[name] = sign_up(signer, event, name, email=mail, **headers)["Location"]
    sign_up(signer, event, "Di Ray")  # no address: no e-mail
    make_players(event, NAMES[4:])
    event.players.update(checked_in=True)
    director = logged_in(boss)
    work_as_the_worker()  # the sign-up e-mails
    signed = len(mail_server.messages)

    draw(director, event)
    work_as_the_worker()
    assert len(mail_server.messages) == signed  # a draft tells nobody
    private = signer.get(links["Ann Lee"]).content.decode()
    assert (
        'id="seats"' not in private
        and "Your table shows here once the players are seated." in private
    )
    publish(director, event)
    assert (
        f"Table {table_of(event, 'Ann Lee')}</a>" in signer.get(links["Ann Lee"]).content.decode()
    )
    work_as_the_worker()
    seated = {m["To"]: m for m in mail_server.messages[signed:]}
    assert sorted(seated) == ["ann@example.org", "bo@example.org", "cy@example.org"]
    ann, table = seated["ann@example.org"], table_of(event, "Ann Lee")
    assert ann["Subject"] == f"Mail Games: Game 1, you play at table {table}"
    body = " ".join(ann.get_content().split())
    assert (
        f"The seating of Game 1 of Mail Games is published: you are seated at table {table}."
        in body
    )
    assert f"http://testserver/e/mailgames/1/table/{table}/" in body
    assert f"http://testserver{links['Ann Lee']}" in body
    cy = seated["cy@example.org"]
    assert (
        cy["Subject"] == f"Mail Games : Partie 1, vous jouez à la table {table_of(event, 'Cy Wu')}"
    )

    # Game 1 played and closed: the Final, seated as a draft, tells its players once published.
    stage = Stage.objects.get(event=event, number=1)
    for t in stage.tables.all():
        play(t, 1)
    director.post("/director/e/mailgames/1/close/", {"action": "close"})
    work_as_the_worker()
    told = len(mail_server.messages)
    assert told == signed + 3
    publish(director, event, 2)
    work_as_the_worker()
    final = Stage.objects.get(event=event, number=2)
    advancing = set(final.seats.values_list("player__name", flat=True))
    sent = mail_server.messages[told:]
    expected = sorted(f"{n.split()[0].lower()}@example.org" for n in advancing if n in NAMES[:3])
    assert sorted(m["To"] for m in sent) == expected
    for message in sent:
        if message["To"] != "cy@example.org":
            assert message["Subject"] == "Mail Games: you advance to Final, table 1"
            assert "You advance to Final of Mail Games. You are seated at table 1." in " ".join(
                message.get_content().split()
            )
            assert "http://testserver/e/mailgames/2/table/1/" in message.get_content()


# -- the event file ------------------------------------------------------------------------------


def test_a_draft_and_results_held_travel_in_the_event_file(night, director_client):
    from scoring.eventfile import import_event
    from scoring.eventfile.exporter import export_event

    draw(director_client, night)
    night.results_held = True
    night.save()
    document = export_event(Event.objects.get(pk=night.pk))
    assert document["stages"][0]["extra"]["draft"] is True
    assert document["event"]["extra"]["results_held"] is True
    document["event"]["name"] = "Copy"
    copy = import_event(json.dumps(document))
    assert copy.results_held and copy.stages.get(number=1).seating_draft
    # A file written before: no "draft", no "results_held": published, public.
    del document["stages"][0]["extra"]["draft"]
    del document["event"]["extra"]["results_held"]
    older = import_event(json.dumps(document))
    assert not older.results_held and not older.stages.get(number=1).seating_draft


def test_held_results_reach_no_series_home_page_or_records_until_released(director, client):
    from pathlib import Path

    from scoring.eventfile import import_event
    from scoring.models import Series
    from scoring.services.series import add_event, create_series

    data = Path(__file__).resolve().parent / "data" / "playoff-medals-with-replay.json"
    games = import_event(data.read_bytes(), director=director, slug="granite")
    season = create_series(Series(name="Season", slug="season"), director)
    add_event(season, games, director)

    def shown() -> dict[str, bool]:
        """Where the event's medallists or places are public."""
        home = client.get("/").content.decode()
        past = home.split('id="past-events"', 1)[1] if 'id="past-events"' in home else ""
        series = text(client.get("/s/season/"))
        return {
            "home": "granite/results/" in past,
            "series": "not counted yet" not in series,
            "records": "Granite State Games" in text(client.get("/records/")),
        }

    assert shown() == {"home": True, "series": True, "records": True}
    director_client = logged_in(director)
    release = f"/director/e/{games.slug}/results/release/"
    director_client.post(release, {"action": "hold", "next": "/"})  # "Hold them back again"
    assert Event.objects.get(pk=games.pk).results_held
    assert shown() == {"home": False, "series": False, "records": False}
    director_client.post(release, {"action": "release", "next": "/"})
    assert shown() == {"home": True, "series": True, "records": True}
