"""The container image's first step (Containerfile's ENTRYPOINT): plain Python, before Django.

    python -m tournament.container python manage.py serve hall

Started as root, it makes the folders the site writes its own and then runs the command as
an unprivileged user, never as root:

- the backups folder (``BACKUP_DIR``, mounted by the user: ``./backups`` or a USB stick) keeps
  its owner: the site runs as that folder's owner, so the files it writes there are the
  user's (on Linux; Docker Desktop maps every file to the user anyway). A folder the container
  engine made for the mount (owned by root) is given to the image's user ``site``;
- the data folder (the volume: database, secret key, photos) is given to that same user.

Started as another user (``docker run --user``), it runs the command as it is.
"""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

SITE_USER = "site"


def run_as(backups: Path, site_uid: int) -> int:
    """The user the site runs as: the backups folder's owner, or ``site_uid`` when root owns
    it (or it does not exist)."""
    try:
        owner = backups.stat().st_uid
    except OSError:
        return site_uid
    return site_uid if owner == 0 else owner


def own(folder: Path, uid: int, gid: int) -> None:
    """``folder`` and everything in it belong to ``uid`` (a volume written by an earlier run as
    another user is taken over; nothing is followed out of it)."""
    if not folder.is_dir():
        return
    if folder.stat().st_uid == uid:
        return
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            os.lchown(Path(root) / name, uid, gid)
    os.chown(folder, uid, gid)


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -m tournament.container COMMAND [ARG...]")
    if os.getuid() == 0:
        site = pwd.getpwnam(SITE_USER)
        backups = Path(os.environ.get("BACKUP_DIR") or "/backups")
        data = Path(os.environ.get("DATA_DIR") or "/data")
        uid = run_as(backups, site.pw_uid)
        gid = site.pw_gid if uid == site.pw_uid else backups.stat().st_gid
        if backups.is_dir() and backups.stat().st_uid == 0:
            os.chown(backups, uid, gid)
        own(data, uid, gid)
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        os.environ["HOME"] = str(data)
    os.execvp(argv[0], argv)  # noqa: S606 (the image's own command)


if __name__ == "__main__":
    main(sys.argv[1:])
