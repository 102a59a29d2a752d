"""A round the site said "saved" survives a power cut (issue 27, item 7): SQLite's WAL is
synced to the disk at every commit (synchronous=FULL), on the tests' database and on the
database `make hall` serves."""

import subprocess
import sys

from django.db import connection

from tests.hall import ROOT

PRAGMA = (
    "from django.db import connection; c = connection.cursor(); "
    "print(c.execute('PRAGMA journal_mode').fetchone()[0], "
    "c.execute('PRAGMA synchronous').fetchone()[0])"
)


def test_the_hall_database_syncs_every_commit_to_the_disk(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "HALL": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'hall.sqlite3'}",
        "HALL_SECRET_KEY_FILE": str(tmp_path / "secret-key"),
        "BACKUP_DIR": "off",
    }
    result = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", PRAGMA],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == ["wal", "2"]  # 2: FULL


def test_the_sqlite_connection_syncs_every_commit_to_the_disk(db):
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            assert cursor.execute("PRAGMA synchronous").fetchone()[0] == 2
    else:  # PostgreSQL syncs its commits itself (fsync, synchronous_commit on)
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone()[0] == "on"
