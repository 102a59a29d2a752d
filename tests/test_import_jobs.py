"""A large event file is imported in the background (issue 11): the upload answers at once with
the job's page, which shows each step, then the new event or every error located in the file.

Tasks run at once in the tests (Django's ImmediateBackend), when the upload's transaction
commits: ``send`` runs the commit callbacks a request leaves, as a committed request would.
``IMPORT_IN_REQUEST_BYTES`` is set low, so that a file of a few kilobytes counts as large.
"""

import json
import logging
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from scoring import eventfile, tasks
from scoring.eventfile import dumps, export_event
from scoring.models import ImportJob
from scoring.services import imports
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.eventfile_samples import base, large_event_file
from tests.factories import make_director
from tests.test_translations import assert_no_english, visible_text
from tournament.models import Event, Player

pytestmark = pytest.mark.django_db

URL = "/director/import/"
DEMO = Path(__file__).parent / "data" / "demo-event.json"
ERRORS = re.compile(
    r'<div class="alert alert-danger" role="alert" id="import-errors">.*?</div>', re.S
)


@pytest.fixture(autouse=True)
def large_is_small(settings):
    settings.IMPORT_IN_REQUEST_BYTES = 1_000


def send(client, content: bytes, key: str | None = None, commit=None):
    """Post the upload form as the page sends it (its key, unless given); with ``commit``
    (django_capture_on_commit_callbacks), the commit's callbacks run: the job's task."""
    data = {"file": SimpleUploadedFile("event.json", content), "once": key or fresh_key(client)}
    if commit is None:
        return client.post(URL, data)
    with commit(execute=True):
        return client.post(URL, data)


def fresh_key(client) -> str:
    return form_key(client.get(URL))


def job_url(job) -> str:
    return f"/director/import/{job.pk}/"


def with_errors() -> bytes:
    data = base()
    data["stages"][0]["tables"][2]["rounds"][0]["pips"]["p10"] = 2000
    data["players"][3]["id"] = "p1"
    return json.dumps(data).encode()


def test_a_large_file_is_imported_in_the_background_as_the_same_event_an_upload_makes(
    director_client, director, settings, django_capture_on_commit_callbacks
):
    text = DEMO.read_text(encoding="utf-8")  # rounds, infractions, a clock: exported as is
    answer = send(director_client, text.encode(), commit=django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    assert answer.status_code == 302 and answer["Location"] == job_url(job)
    page = director_client.get(answer["Location"]).content.decode()
    event = Event.objects.get()
    assert f"{event.name} imported as a new event." in page
    assert f'href="/e/{event.slug}/"' in page and 'http-equiv="refresh"' not in page
    assert event.is_director(director)
    assert (job.status, job.event, job.data) == ("done", event, None)  # the file is not kept
    assert job.finished_at is not None

    settings.IMPORT_IN_REQUEST_BYTES = len(text.encode())  # the same file, within the request
    direct = send(director_client, text.encode())
    other = Event.objects.exclude(pk=event.pk).get()
    assert direct["Location"] == f"/e/{other.slug}/"
    assert ImportJob.objects.count() == 1
    assert dumps(export_event(event)) == dumps(export_event(other)) == text


def test_a_large_file_with_errors_fails_its_job_listing_them_as_an_upload_does(
    director_client, settings, django_capture_on_commit_callbacks
):
    key = fresh_key(director_client)
    answer = send(director_client, with_errors(), key, commit=django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    page = director_client.get(answer["Location"]).content.decode()
    assert (job.status, job.error_count, job.data) == ("failed", 6, None)
    assert "Nothing was imported." in page and "The file has 6 errors" in page
    assert "<code>players[3].id</code>: &quot;p1&quot; is the id of players[0] too" in page
    assert not Event.objects.exists() and not Player.objects.exists()
    # The form to send the file again, with a key of its own.
    assert 'action="/director/import/"' in page and 'type="file"' in page
    assert form_key(director_client.get(answer["Location"])) != key

    settings.IMPORT_IN_REQUEST_BYTES = 20_000_000
    direct = send(director_client, with_errors()).content.decode()
    assert ERRORS.search(page).group() == ERRORS.search(direct).group()


def test_a_file_with_many_errors_lists_as_many_and_counts_the_rest_as_an_upload_does(
    director_client, settings, django_capture_on_commit_callbacks
):
    data = base()
    data["players"] += [dict(data["players"][0], name=f"Copy {n}") for n in range(250)]
    text = json.dumps(data).encode()
    page = send(director_client, text, commit=django_capture_on_commit_callbacks)
    job = ImportJob.objects.get()
    assert len(job.errors) == imports.SHOWN_ERRORS < job.error_count
    shown = ERRORS.search(director_client.get(page["Location"]).content.decode()).group()
    assert f"and {job.error_count - imports.SHOWN_ERRORS} more errors" in shown

    settings.IMPORT_IN_REQUEST_BYTES = 20_000_000
    assert shown == ERRORS.search(send(director_client, text).content.decode()).group()


def test_each_step_of_the_import_shows_on_its_page(
    director_client, director, monkeypatch, django_capture_on_commit_callbacks
):
    watcher = logged_in(director)
    seen = []

    def step_shown() -> str:
        job = ImportJob.objects.get()
        page = watcher.get(job_url(job)).content.decode()
        assert 'http-equiv="refresh"' in page  # it asks again until the import is over
        label = re.search(r'<label for="import-progress">(.*?)</label>', page).group(1)
        value = re.search(r'<progress [^>]*id="import-progress" max="4" value="(\d)"', page)
        return f"{label} ({value.group(1)})"

    # Sent, not yet taken by a worker (its task is queued when the upload commits).
    send(director_client, large_event_file(players=40).encode())
    seen.append(step_shown())

    real = imports.import_event

    def watched(data, *, director, progress):
        seen.append(step_shown())

        def step(name):
            progress(name)
            seen.append(step_shown())

        return real(data, director=director, progress=step)

    monkeypatch.setattr(imports, "import_event", watched)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.run_import.enqueue(ImportJob.objects.get().pk)
    assert seen == [
        "Step 1 of 4: waiting for a worker. (1)",
        "Step 2 of 4: reading the file. (2)",
        "Step 3 of 4: checking the file. (3)",
        "Step 4 of 4: writing the event. (4)",
    ]
    assert ImportJob.objects.get().status == "done"


def test_the_job_page_is_only_for_the_director_who_sent_the_file(
    director_client, django_capture_on_commit_callbacks
):
    send(
        director_client,
        large_event_file(players=8).encode(),
        commit=django_capture_on_commit_callbacks,
    )
    url = job_url(ImportJob.objects.get())
    assert director_client.get(url).status_code == 200
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert logged_in(make_director("another")).get(url).status_code == 404
    admin = make_director("admin")
    admin.is_superuser = True
    admin.save()
    assert logged_in(admin).get(url).status_code == 200
    assert director_client.get("/director/import/999999/").status_code == 404


def test_the_same_form_sent_twice_makes_one_job_and_one_event(
    director_client, settings, django_capture_on_commit_callbacks
):
    text = large_event_file(players=8).encode()
    key = fresh_key(director_client)
    first = send(director_client, text, key, commit=django_capture_on_commit_callbacks)
    again = send(director_client, text, key, commit=django_capture_on_commit_callbacks)
    assert first["Location"] == again["Location"] == job_url(ImportJob.objects.get())
    assert Event.objects.count() == 1

    # A small file, imported within the request, once too.
    settings.IMPORT_IN_REQUEST_BYTES = len(text)
    key = fresh_key(director_client)
    first, again = send(director_client, text, key), send(director_client, text, key)
    second = Event.objects.order_by("pk").last()
    assert first["Location"] == again["Location"] == f"/e/{second.slug}/"
    assert Event.objects.count() == 2 and ImportJob.objects.count() == 1


def test_a_task_run_twice_imports_once(director_client, django_capture_on_commit_callbacks):
    send(
        director_client,
        large_event_file(players=8).encode(),
        commit=django_capture_on_commit_callbacks,
    )
    tasks.run_import.call(ImportJob.objects.get().pk)
    assert Event.objects.count() == 1 and ImportJob.objects.get().status == "done"


def test_a_crash_in_the_import_fails_its_job_with_a_clear_message_and_logs_why(
    director_client, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def crash(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(eventfile, "write_event", crash)
    with caplog.at_level(logging.ERROR, logger="scoring.services.imports"):
        answer = send(
            director_client,
            large_event_file(players=8).encode(),
            commit=django_capture_on_commit_callbacks,
        )
    job = ImportJob.objects.get()
    assert (job.status, job.errors, job.data) == ("failed", [], None)
    assert f"Import job {job.pk} failed" in caplog.text and "the disk is full" in caplog.text
    page = director_client.get(answer["Location"])
    assert page.status_code == 200
    text = page.content.decode()
    assert "the import stopped on an error of the site (it is logged)" in text
    assert "the disk is full" not in text and 'type="file"' in text
    assert not Event.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_directors_double_clicking_a_large_upload_at_once_make_one_job_and_one_event(director):
    clients = [logged_in(director) for _ in range(3)]
    text = large_event_file(players=8).encode()
    key = fresh_key(clients[0])
    results = at_once([lambda c=c: send(c, text, key) for c in clients])
    no_errors(results)
    job = ImportJob.objects.get()
    assert {r["Location"] for r in results} == {job_url(job)}
    assert Event.objects.count() == 1 and job.status == "done"


def test_a_french_director_follows_the_import_in_french(
    director_client, django_capture_on_commit_callbacks
):
    # The requests leave French on in this thread: the tests after this one get theirs back.
    with translation.override(translation.get_language()):
        french = {"HTTP_ACCEPT_LANGUAGE": "fr"}
        key = form_key(director_client.get(URL, **french))
        data = {"file": SimpleUploadedFile("e.json", DEMO.read_bytes()), "once": key}
        director_client.post(URL, data, **french)  # its task not yet run: waiting for a worker
        job = ImportJob.objects.get()
        assert job.language == "fr"
        pages = [director_client.get(job_url(job), **french)]
        with django_capture_on_commit_callbacks(execute=True):
            tasks.run_import.enqueue(job.pk)
        pages.append(director_client.get(job_url(job), **french))
        texts = [visible_text(page.content.decode()) for page in pages]
        assert "Étape 1 sur 4 : en attente d'un processus de travail." in texts[0]
        assert "Demo Senior Games Mexican Train importé comme nouveau tournoi." in texts[1]
        for text in texts:
            assert_no_english(text.replace("Demo Senior Games Mexican Train", ""))


def test_a_large_file_sent_in_french_lists_its_errors_in_french(
    director_client, django_capture_on_commit_callbacks
):
    """The task runs in the language of the director who sent the file, not the worker's."""
    with translation.override(translation.get_language()):
        french = {"HTTP_ACCEPT_LANGUAGE": "fr"}
        key = form_key(director_client.get(URL, **french))
        data = {"file": SimpleUploadedFile("e.json", with_errors()), "once": key}
        with django_capture_on_commit_callbacks(execute=True):
            answer = director_client.post(URL, data, **french)
        page = director_client.get(answer["Location"], **french).content.decode()
    errors = ERRORS.search(page).group()
    assert "Rien n'a été importé." in errors
    assert "<code>players[3].id</code>: &quot;p1&quot; est aussi l&#x27;id de players[0]" in errors
    assert "is the id of" not in errors
