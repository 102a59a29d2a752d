"""Backups that survive the laptop (issue 20): the event's file written into BACKUP_DIR after
its changes, by the background worker, through the pages a scorekeeper and a director use."""

import errno
import json
import os
import time
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client

from scoring import backups
from scoring.eventfile import dumps, export_event, import_event
from scoring.models import Backup, Round
from scoring.tasks import wait_for_backups, worker
from tests.concurrency import form_key
from tests.factories import make_players, play, seat
from tests.test_concurrency import round_post
from tournament.models import Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def backup_dir(tmp_path, settings):
    folder = tmp_path / "usb-stick"
    folder.mkdir()
    settings.BACKUPS_ON, settings.BACKUP_DIR, settings.BACKUP_SECONDS = True, str(folder), 0
    worker.forget()
    yield folder
    assert wait_for_backups(60)
    worker.forget()


@pytest.fixture
def table(event):
    make_players(event, count=8)
    return Table.objects.filter(stage=seat(event)).order_by("number").first()


def files(folder: Path, slug: str) -> list[Path]:
    return sorted((folder / slug).glob("*.json"))


def read_only_folder(tmp_path: Path) -> Path:
    """A folder this process cannot write into: permissions say so, except to root, for
    whom Linux's /sys is such a folder."""
    if os.geteuid() == 0:
        return Path("/sys")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


def test_a_saved_round_is_backed_up_into_a_file_that_imports_to_the_same_event(
    director_client, event, table, backup_dir
):
    answer = round_post(director_client, table, [0, 5, 9, 12])
    assert answer.status_code == 302
    assert wait_for_backups(60)
    written = files(backup_dir, event.slug)
    assert written, "no backup written after the save"
    text = written[-1].read_text(encoding="utf-8")
    data = json.loads(text)
    assert [r["pips"] for r in data["stages"][0]["tables"][0]["rounds"]] != []
    assert dumps(export_event(import_event(text))) == text  # export, import, export: equal
    assert not list((backup_dir / event.slug).glob(".*.tmp"))  # no half-written file left
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "Last backup written at" in page and str(written[-1]) in page


def test_a_backup_into_a_read_only_folder_keeps_the_save_and_warns_the_director(
    director_client, event, table, tmp_path, settings, backup_dir
):
    settings.BACKUP_DIR = str(read_only_folder(tmp_path))
    answer = round_post(director_client, table, [0, 5, 9, 12])
    assert answer.status_code == 302
    assert Round.objects.filter(table=table).count() == 1  # the save stands
    assert wait_for_backups(60)
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "The last backup failed" in page
    assert "not permitted" in page or "denied" in page
    assert "Scores are still saved" in page


def test_a_backup_folder_taken_away_is_named_in_the_warning(
    director_client, event, table, backup_dir
):
    backup_dir.rmdir()
    assert round_post(director_client, table, [0, 5, 9, 12]).status_code == 302
    assert wait_for_backups(60)
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert f"The backup folder {backup_dir} is not there" in page
    assert not backup_dir.exists()  # never made again on the laptop's own disk


def test_a_full_disk_leaves_no_partial_file_and_the_next_change_writes_again(
    director_client, event, table, backup_dir
):
    full = OSError(errno.ENOSPC, "No space left on device")
    with mock.patch("scoring.backups.os.fsync", side_effect=full):
        assert round_post(director_client, table, [0, 5, 9, 12]).status_code == 302
        assert wait_for_backups(60)
    assert files(backup_dir, event.slug) == []
    assert list((backup_dir / event.slug).iterdir()) == []
    assert "No space left on device" in Backup.objects.get(event=event).failure
    assert round_post(director_client, table, [0, 3, 4, 8]).status_code == 302
    assert wait_for_backups(60)
    assert len(files(backup_dir, event.slug)) == 1
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "The last backup failed" not in page and "Last backup written at" in page


def test_changes_within_the_wait_make_one_more_file_after_it(
    director_client, event, table, settings, backup_dir
):
    settings.BACKUP_SECONDS = 10
    assert round_post(director_client, table, [0, 5, 9, 12]).status_code == 302
    assert wait_for_backups(60)  # the first change is written at once
    assert len(files(backup_dir, event.slug)) == 1
    started = time.monotonic()
    for pips in ([0, 1, 2, 3], [0, 7, 7, 7]):
        assert round_post(director_client, table, pips).status_code == 302
    quick = time.monotonic() - started < settings.BACKUP_SECONDS
    assert wait_for_backups(60)
    written = files(backup_dir, event.slug)
    # The next two changes together, after the wait (on a machine so loaded that the two
    # saves took longer than the wait, the second may make a file of its own).
    assert len(written) == 2 if quick else 2 <= len(written) <= 3
    last = json.loads(written[-1].read_text())
    assert len(last["stages"][0]["tables"][0]["rounds"]) == 3


def test_the_newest_twenty_are_kept_and_every_stage_close(director, event, settings, backup_dir):
    make_players(event, count=4)
    table = Table.objects.get(stage=seat(event))
    play(table, 13, director)
    for _ in range(23):
        backups.back_up(event.pk)
    assert len(files(backup_dir, event.slug)) == settings.BACKUP_KEEP == 20
    client = Client()
    client.force_login(director)
    url = f"/director/e/{event.slug}/1/close/"
    answer = client.post(url, {"action": "close", "once": form_key(client.get(url))})
    assert answer.status_code == 302, answer.content.decode()[:500]
    assert wait_for_backups(60)
    closed = [p for p in files(backup_dir, event.slug) if p.stem.endswith("stage-1-closed")]
    assert len(closed) == 1
    for _ in range(25):
        backups.back_up(event.pk)
    assert closed[0].exists()  # kept for good
    assert len(files(backup_dir, event.slug)) == 21


def test_a_stopping_server_writes_the_changes_still_waiting_for_their_turn(
    director_client, event, table, settings, backup_dir
):
    settings.BACKUP_SECONDS = 30
    assert round_post(director_client, table, [0, 5, 9, 12]).status_code == 302
    assert round_post(director_client, table, [0, 1, 2, 3]).status_code == 302
    assert worker.flush(10)  # what atexit calls when the process ends (not 30 s later)
    written = files(backup_dir, event.slug)
    # One file or two (the worker may have written the first round's before the second was
    # saved): either way the newest holds both rounds.
    assert 1 <= len(written) <= 2
    assert len(json.loads(written[-1].read_text())["stages"][0]["tables"][0]["rounds"]) == 2
