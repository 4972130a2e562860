"""One build (or send) at a time per state database, across processes."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path


class LockedError(Exception):
    """Another process holds the lock."""


@contextmanager
def exclusive(path: Path):
    """Hold an exclusive lock on `path` for the duration, or raise LockedError at once.

    The kernel drops the lock when the holder dies, even by SIGKILL, so a crashed run never
    blocks the next one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockedError(f"{path}: another newsletter run is using this state; try again when it ends") from None
        yield
    finally:
        os.close(fd)
