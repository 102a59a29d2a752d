"""Backups that survive the laptop (issue 20): the event's file written into BACKUP_DIR after
its changes, by the background worker, through the pages a scorekeeper and a director use."""

import errno
import json
import os
import shutil
import time
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client

from scoring.eventfile import dumps, export_event, import_event
from scoring.models import Backup, Round
from scoring.services import backups
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
    with mock.patch("scoring.services.backups.os.fsync", side_effect=full):
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


# Issue 27, item 5: the first change not in a file waits BACKUP_SECONDS at the most, however
# long the changes keep coming and whichever process took the last turn.


def test_a_change_is_written_at_once_after_a_quiet_wait_and_never_later_than_the_wait():
    seconds = 30
    assert backups.due_at(100.0, None, seconds) == 100.0  # never backed up: at once
    assert backups.due_at(100.0, 50.0, seconds) == 100.0  # the last file is old: at once
    assert backups.due_at(100.0, 90.0, seconds) == 120.0  # within the wait: when it is over
    for last in (0.0, 70.0, 85.5, 99.9, 100.0):
        assert backups.due_at(100.0, last, seconds) <= 100.0 + seconds
    # A file that took 4 s to write is begun 4 s earlier, so that it is written in time.
    assert backups.spacing(seconds, 4.0) == 26.0
    assert backups.spacing(seconds, 0.0) == 30.0
    assert backups.spacing(seconds, 100.0) == 15.0  # never more often than half the wait


class FakeClock:
    """Seconds that pass only when the test says so; the wall clock the turn is kept in."""

    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def wall(self):
        from datetime import UTC, datetime

        return datetime.fromtimestamp(self.now, UTC)


def test_changes_that_keep_coming_on_two_processes_are_each_in_a_file_within_the_wait(
    event, table, settings, backup_dir, monkeypatch
):
    """Two server processes (two workers sharing the database, driven by one fake clock):
    process A writes the event's file, then every change comes to B, or to either, for 15 s,
    each file taking half a second to write (a change may come meanwhile). Every change is in
    a file written (to its end) at most BACKUP_SECONDS after it, and files are not begun more
    often than the wait less what one takes to write."""
    from types import SimpleNamespace

    from django.db.models import F

    from scoring.tasks import BackupWorker
    from tournament.models import Event

    settings.BACKUPS_ON, settings.BACKUP_SECONDS = False, 2  # only the two workers below
    clock = FakeClock()
    monkeypatch.setattr(backups, "timezone", SimpleNamespace(now=clock.wall))
    real_back_up = backups.back_up
    written: list[tuple[float, float, int]] = []  # (begun, written, version)

    real_write = backups.write_atomically

    def slow_write(path, text):
        clock.now += 0.25  # the file takes half a second to write, and a round is saved
        if len(written) < 6:  # meanwhile (not in the file)
            change(b)
        clock.now += 0.25
        real_write(path, text)

    def back_up(event_id, closed_stage_id=None):
        begun = clock.now
        path = real_back_up(event_id, closed_stage_id)
        written.append((begun, clock.now, Backup.objects.get(event_id=event_id).version))
        return path

    monkeypatch.setattr(backups, "write_atomically", slow_write)
    monkeypatch.setattr(backups, "back_up", back_up)
    a, b = BackupWorker(clock, threaded=False), BackupWorker(clock, threaded=False)
    changes: list[tuple[float, int]] = []

    def change(process):
        Event.objects.filter(pk=event.pk).update(version=F("version") + 1)
        changes.append((clock.now, Event.objects.get(pk=event.pk).version))
        process.ask(event.pk)

    change(a)
    a.run_due()
    assert len(written) == 1  # the first change: at once
    for step in range(1, 81):  # 20 s: changes for 15 s, then their last turns
        clock.now += 0.25
        if step % 2 == 0 and step <= 60:
            change(b if step < 30 or step % 4 else a)
        a.run_due()
        b.run_due()
    assert written[-1][2] == changes[-1][1]
    for at, version in changes:
        done = min(end for _, end, v in written if v >= version)
        assert done <= at + settings.BACKUP_SECONDS, (at, version, written)
    begun = [start for start, _, _ in written]
    assert all(later - earlier >= 1 for earlier, later in zip(begun, begun[1:], strict=False))
    assert len(written) < len(changes) / 2  # still one file per wait, not one per change


def test_a_saved_round_asks_for_its_file_within_the_wait_while_saves_keep_coming(
    director_client, event, table, settings, backup_dir, monkeypatch
):
    """The real path: rounds posted one after another while the worker writes; each change
    the worker is told of is planned within BACKUP_SECONDS of it."""
    settings.BACKUP_SECONDS = 2
    planned: list[tuple[float, float]] = []
    real_ask = worker.ask

    def ask(event_id, closed_stage_id=None, after=0.0):
        now = worker.clock()
        real_ask(event_id, closed_stage_id, after)
        with worker._lock:
            due = worker._due.get(event_id)
            if due is not None and not after:
                planned.append((now, due.at))

    monkeypatch.setattr(worker, "ask", ask)
    for n in range(8):
        assert round_post(director_client, table, [0, n, 9, 12]).status_code == 302
    assert wait_for_backups(60)
    assert planned
    for asked, due in planned:
        assert due <= asked + settings.BACKUP_SECONDS
    last = json.loads(files(backup_dir, event.slug)[-1].read_text())
    assert len(last["stages"][0]["tables"][0]["rounds"]) == 8


def test_catching_up_writes_every_event_changed_since_its_last_file(
    director, event, table, settings, backup_dir
):
    from tests.factories import make_event

    settings.BACKUPS_ON = False  # changes made with nothing listening (a process killed)
    other = make_event(director, name="Autumn Games", slug="autumn")
    play(table, 2, director)
    make_players(other, count=4)
    seat(other)
    assert not files(backup_dir, event.slug)
    settings.BACKUPS_ON = True
    written = backups.catch_up()
    assert {p.parent.name for p in written} == {event.slug, other.slug}
    event.refresh_from_db()
    assert Backup.objects.get(event=event).version == event.version
    assert f"-v{event.version}" in files(backup_dir, event.slug)[-1].name
    assert backups.catch_up() == []  # nothing newer than its file: nothing written


# Issue 27, item 8: a USB stick pulled out leaves its folder on the laptop's own disk.


def test_the_backup_folder_is_on_the_disk_mounted_at_its_mount_point(tmp_path):
    assert backups.mount_point(Path("/")) == Path("/")
    inside = backups.mount_point(tmp_path)
    assert tmp_path.resolve().is_relative_to(inside)
    assert os.stat(inside).st_dev == os.stat(tmp_path).st_dev
    assert inside == Path("/") or os.stat(inside.parent).st_dev != os.stat(inside).st_dev


@pytest.fixture
def usb_stick(tmp_path, settings, backup_dir):
    """BACKUP_DIR on a disk of its own (a tmpfs mounted there, as root; else the mount
    simulated), and ``pull()``: the stick taken out, its empty folder left on the laptop."""
    folder = tmp_path / "media-usb"
    folder.mkdir()
    settings.BACKUP_DIR = str(folder)
    mounted = os.geteuid() == 0 and not os.system(  # noqa: S605
        f"mount -t tmpfs -o size=8m mt-test-stick {folder} 2>/dev/null"
    )
    if mounted:
        yield lambda: os.system(f"umount {folder}")  # noqa: S605
        os.system(f"umount {folder} 2>/dev/null")  # noqa: S605
        return
    pulled = []
    real = backups.mount_point

    def pull():
        pulled.append(True)
        shutil.rmtree(folder)
        folder.mkdir()

    with mock.patch.object(
        backups, "mount_point", lambda f: real(f) if pulled else Path(folder).resolve()
    ):
        yield pull


def test_a_pulled_usb_stick_is_a_failed_backup_warned_on_the_event_page(
    director_client, event, table, settings, usb_stick
):
    folder = Path(settings.BACKUP_DIR)
    assert round_post(director_client, table, [0, 5, 9, 12]).status_code == 302
    assert wait_for_backups(60)
    assert Backup.objects.get(event=event).mount == str(folder.resolve())
    usb_stick()  # pulled out: the folder is still there, on the laptop's own disk
    assert folder.is_dir() and not list(folder.iterdir())
    settings.BACKUP_SECONDS = 0
    assert round_post(director_client, table, [0, 3, 4, 8]).status_code == 302
    assert Round.objects.filter(table=table).count() == 2  # the save stands
    assert wait_for_backups(60)
    assert not list(folder.iterdir())  # nothing written onto the laptop's disk
    page = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "The last backup failed" in page
    assert f"The backup folder {folder.resolve()} is no longer the USB stick it was" in page
    assert "plug it back in" in page
