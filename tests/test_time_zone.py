"""Each event's own time zone (issue 20): a director in California sees California's clock
times on the event's pages, sheets and messages, whatever zone the site runs in."""

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader

from scoring.eventfile import dumps, export_event, import_event
from tests.factories import make_event, make_players, seat
from tournament.models import Event
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db

CALLED = datetime(2026, 12, 5, 19, 39, tzinfo=UTC)  # Pacific Standard Time: UTC-8


def shown(html: str) -> str:
    """What a page shows: its data for scripts (moments in UTC, ISO 8601) left out."""
    return re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.S)


@pytest.fixture
def california(director):
    event = make_event(director, slug="la", time_zone="America/Los_Angeles", date=CALLED.date())
    make_players(event, count=8)
    stage = seat(event)
    start_clock(stage, director, now=CALLED - timedelta(minutes=50))
    call_time(stage, director, now=CALLED)
    return event


def test_a_time_called_at_19_39_utc_shows_as_11_39_on_the_events_pages(
    california, director_client, settings
):
    assert settings.TIME_ZONE == "UTC"
    for page in ("/e/la/1/", "/director/e/la/1/table/1/enter/"):
        html = shown(director_client.get(page).content.decode())
        assert "11:39" in html, page
        assert "19:39" not in html, page
    log = director_client.get("/e/la/1/").content.decode()
    assert "10:49:00" in log and "11:39:00" in log  # the clock log: started, time called


def test_the_printed_sheet_shows_the_events_clock_times(california, director_client):
    pdf = director_client.get("/e/la/1/table/1/sheet.pdf")
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "11:39" in text and "10:49" in text
    assert "19:39" not in text


def test_the_site_zone_is_back_on_the_next_request(california, director_client, director):
    other = make_event(director, slug="utc", time_zone="")
    make_players(other, count=4)
    stage = seat(other)
    start_clock(stage, director, now=CALLED - timedelta(minutes=5))
    call_time(stage, director, now=CALLED)
    assert "11:39" in director_client.get("/e/la/1/").content.decode()
    html = shown(director_client.get("/e/utc/1/").content.decode())
    assert "19:39" in html and "11:39" not in html


def test_the_zone_is_chosen_on_the_events_form_and_a_bad_one_is_refused(
    california, director_client
):
    page = director_client.get("/director/e/la/edit/").content.decode()
    assert '<option value="America/Los_Angeles" selected>' in page
    assert "The site&#x27;s zone (UTC)" in page or "The site's zone (UTC)" in page
    form = director_client.get("/director/e/la/edit/")
    data = {
        k: "" if v is None else v
        for k, v in form.context["form"].initial.items()
        if not isinstance(v, (list, dict))
    }
    data.update(
        name="Spring in LA",
        date="2026-12-05",
        set_size=12,
        engines="",
        tiles_drawn="2:15, 3:15, 4:15, 5:15",
        table_size=4,
        game_minutes=60,
        round_in_progress="finish",
        double_blank_points=0,
        advancement_tie="all_advance",
        medal_tie="nvso",
        infraction_penalty="warn_then_draw",
        infraction_scope="game",
        paper_size="letter",
        time_zone="Mars/Olympus_Mons",
    )
    answer = director_client.post("/director/e/la/edit/", data)
    assert answer.status_code == 200
    assert "Mars/Olympus_Mons is not a time zone" in answer.content.decode()
    assert Event.objects.get(slug="la").time_zone == "America/Los_Angeles"
    data["time_zone"] = "Europe/Paris"
    assert director_client.post("/director/e/la/edit/", data).status_code == 302
    assert Event.objects.get(slug="la").time_zone == "Europe/Paris"


def test_the_event_file_carries_the_zone_and_a_file_without_one_takes_the_sites(california):
    data = export_event(california)
    assert data["event"]["extra"]["time_zone"] == "America/Los_Angeles"
    text = dumps(data)
    copy = import_event(text)
    assert copy.time_zone == "America/Los_Angeles"
    assert dumps(export_event(copy)) == text
    del data["event"]["extra"]["time_zone"]
    assert import_event(dumps(data)).time_zone == ""


def test_a_file_with_an_unknown_zone_is_refused_with_its_place(california):
    from scoring.eventfile import EventFileError

    data = export_event(california)
    data["event"]["extra"]["time_zone"] = "Moon/Base"
    with pytest.raises(EventFileError) as refused:
        import_event(dumps(data))
    assert 'event.extra.time_zone: "Moon/Base" is not a time zone' in str(refused.value.errors)
