"""All score sheets of a stage in one click (issue 14 item 4): a print job renders blocks as
background tasks (run at once in the tests: Django's ImmediateBackend) and joins them; the
PDF is the direct renderer's, page for page; it is kept until the sheets change."""

import io
import re

import pytest
from django.test import Client
from pypdf import PdfReader

from scoring.models import PrintJob
from scoring.services import printing
from tests.factories import make_director, make_players, play, seat
from tournament.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def stage(event):
    make_players(event, count=20)  # 5 tables of 4
    return seat(event)


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(printing, "BLOCK", 2)  # 5 tables: 3 blocks, 3 tasks


@pytest.fixture(autouse=True)
def committed(django_capture_on_commit_callbacks, monkeypatch):
    """The blocks are queued once the job is committed (each test runs inside one
    transaction): every request here runs its commit callbacks before it answers."""
    post = Client.post

    def post_and_commit(self, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            response = post(self, *args, **{**kwargs, "follow": False})
        if kwargs.get("follow") and response.status_code in (301, 302):
            return self.get(response["Location"])
        return response

    monkeypatch.setattr(Client, "post", post_and_commit)


def texts(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def start(client, blank=False):
    data = {"blank": "1"} if blank else {}
    return client.post("/director/e/spring/1/print/", data, follow=True)


def test_one_click_gives_every_sheet_in_one_pdf_as_the_direct_renderer_makes_it(
    director_client, stage
):
    play(stage.tables.get(number=3), 2)
    page = start(director_client)
    job = PrintJob.objects.get()
    assert (job.blocks, job.done) == (3, 3) and job.finished
    assert "Open the PDF" in page.content.decode()
    joined = director_client.get(f"/director/e/spring/1/print/{job.pk}/sheets.pdf")
    assert joined["Content-Type"] == "application/pdf"
    direct = director_client.get("/e/spring/1/sheets.pdf")
    assert texts(joined.content) == texts(direct.content)
    assert len(texts(joined.content)) == 5
    assert all(f"Table {n}" in text for n, text in enumerate(texts(joined.content), 1))


def test_a_second_click_reuses_the_job_until_the_sheets_change(director_client, stage):
    start(director_client)
    start(director_client)
    assert PrintJob.objects.count() == 1
    play(stage.tables.get(number=1), 1)  # filled sheets change with a round...
    start(director_client)
    assert PrintJob.objects.filter(blank=False).count() == 2
    start(director_client, blank=True)
    play(stage.tables.get(number=2), 1)  # ...blank ones do not
    start(director_client, blank=True)
    assert PrintJob.objects.filter(blank=True).count() == 1


def test_seating_prepares_the_blank_sheets(director_client, event, settings):
    settings.PRINT_BLANK_ON_SEATING = True
    make_players(event, count=8)
    page = director_client.get("/e/spring/1/seating/")
    key = re.search(r'name="once" value="([^"]+)"', page.content.decode()).group(1)
    director_client.post("/director/e/spring/1/seat/", {"once": key})
    job = PrintJob.objects.get()
    assert job.blank and job.finished
    assert len(texts(bytes(job.pdf))) == 2


def test_the_progress_page_says_how_far_and_updates_itself(director_client, stage):
    job = PrintJob.objects.create(stage=stage, key="k", site="http://x", blocks=4, done=1)
    page = director_client.get(f"/director/e/spring/1/print/{job.pk}/").content.decode()
    assert "1 of 4 blocks done" in page and 'http-equiv="refresh"' in page
    assert 'value="22"' in page  # 90% of the way is the blocks; joining them is the rest
    # Its PDF is not there yet: back to the progress page.
    pdf = director_client.get(f"/director/e/spring/1/print/{job.pk}/sheets.pdf")
    assert pdf.status_code == 302


def test_only_the_events_directors_print(stage):
    assert Client().post("/director/e/spring/1/print/").status_code == 302  # log in first
    stranger = Client()
    stranger.force_login(make_director("stranger"))
    assert stranger.post("/director/e/spring/1/print/").status_code == 403
    assert not PrintJob.objects.exists()


def test_the_sheets_are_printed_in_the_events_language(director_client, stage):
    Event.objects.filter(pk=stage.event.pk).update(sheet_language="fr")
    start(director_client)
    job = PrintJob.objects.get()
    assert job.language == "fr"
    first = texts(bytes(job.pdf))[0]
    assert "Marqueur (nom et signature)" in first and "Scorekeeper" not in first
