"""Backups under `make hall` (issue 27, item 5): a server killed before its backups' turn
writes them when it is started again, and a stopped one (Ctrl+C) writes every event changed
since its last file, whichever process (or command) changed it."""

import json
import re
import signal
import time
from pathlib import Path

from tests.hall import Hall, Phone

ENTRY = "/director/e/demo/1/table/1/enter/"
VERSION = "from tournament.models import Event; print(Event.objects.get(slug='demo').version)"
CHANGE = """
from django.db import transaction
from tournament import history
from tournament.models import Event
with transaction.atomic():
    history.changed(Event.objects.get(slug="demo"))
"""


def newest_version(folder: Path) -> int:
    written = sorted(folder.glob("*.json"))
    return int(re.search(r"-v(\d+)", written[-1].name).group(1)) if written else 0


def written_up_to(folder: Path, version: int, seconds: float = 60) -> int:
    """The newest file's version once it holds ``version`` (or the time is up)."""
    deadline = time.monotonic() + seconds
    while newest_version(folder) < version and time.monotonic() < deadline:
        time.sleep(0.2)
    return newest_version(folder)


def rounds(path: Path) -> list[list[int]]:
    data = json.loads(path.read_text())
    return [list(r["pips"].values()) for t in data["stages"][0]["tables"] for r in t["rounds"]]


def test_a_hall_killed_before_its_backup_turn_writes_it_when_started_again(tmp_path):
    folder = tmp_path / "backups" / "demo"
    hall = Hall(tmp_path, BACKUP_SECONDS="600")
    with hall:
        phone = Phone(hall.port)
        phone.log_in("director", hall.director_password)
        assert phone.save_round(ENTRY, [0, 7, 14, 21]) == 302
        version = int(hall.manage("shell", "--no-imports", "-c", VERSION))
        assert written_up_to(folder, version) == version  # the first change: at once
        assert phone.save_round(ENTRY, [0, 1, 2, 3]) == 302  # its turn is 600 s away
        version = int(hall.manage("shell", "--no-imports", "-c", VERSION))
        hall.stop(signal.SIGKILL)  # the laptop's battery, kill -9
    assert newest_version(folder) < version  # the second round is in no file
    with Hall(tmp_path, BACKUP_SECONDS="600"):  # started again, nothing new saved
        assert written_up_to(folder, version) == version
    assert [0, 1, 2, 3] in rounds(sorted(folder.glob("*.json"))[-1])


def test_ctrl_c_on_the_hall_backs_up_every_change_since_the_last_file(tmp_path):
    """A change no process of the server was asked to back up (made by a command with
    backups off, or by a process killed before its turn) is written when the hall stops."""
    folder = tmp_path / "backups" / "demo"
    hall = Hall(tmp_path, BACKUP_SECONDS="600")
    with hall:
        phone = Phone(hall.port)
        phone.log_in("director", hall.director_password)
        assert phone.save_round(ENTRY, [0, 7, 14, 21]) == 302
        first = int(hall.manage("shell", "--no-imports", "-c", VERSION))
        assert written_up_to(folder, first) == first
        hall.manage("shell", "--no-imports", "-c", CHANGE, BACKUP_DIR="off")
        version = int(hall.manage("shell", "--no-imports", "-c", VERSION))
        assert version == first + 1 and newest_version(folder) == first
        hall.stop(signal.SIGINT)  # Ctrl+C
    assert newest_version(folder) == version
