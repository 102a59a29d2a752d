"""Folders of this user's alone, for what a running site shares between its processes (the
streams' answers, tournament/streams.py) or keeps to itself (the hall front's socket,
tournament/hall_front.py). Plain Python: the hall's front uses them before Django starts.

A machine's temporary folder is open to every user: a name there may already be taken by
another one's file, folder or symbolic link. So a folder is opened once, never through a link,
and used only when this user owns it and no one else may enter it (0700).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import suppress
from pathlib import Path


def own_folder(path: Path) -> int:
    """``path``, made if missing, opened as this user's own folder (its descriptor): never
    through a symbolic link (``O_NOFOLLOW``), and only when this user owns it and no one
    else may enter it (0700). OSError otherwise."""
    with suppress(FileExistsError):
        os.mkdir(path, 0o700)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    found = os.fstat(fd)
    if found.st_uid != os.getuid() or stat.S_IMODE(found.st_mode) != 0o700:
        os.close(fd)
        raise PermissionError(errno.EACCES, "another user's, or open to others", str(path))
    return fd


def runtime_folder() -> Path:
    """Where this user's running site keeps its own files: the session's runtime folder
    (``XDG_RUNTIME_DIR``, /run/user/<uid>: this user's alone) when there is one, else the
    machine's temporary folder."""
    given = os.environ.get("XDG_RUNTIME_DIR", "")
    if given and os.path.isabs(given):
        try:
            found = os.lstat(given)
        except OSError:
            pass
        else:
            if (
                stat.S_ISDIR(found.st_mode)
                and found.st_uid == os.getuid()
                and not found.st_mode & 0o077
            ):
                return Path(given)
    return Path(tempfile.gettempdir())
