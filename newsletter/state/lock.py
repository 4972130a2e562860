"""One build (or send) at a time per state database, across processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from newsletter.errors import LockedError, LockError

# The locks this thread holds: a scheduled digest job holds the lock for its whole run and
# calls build and send, which take the same lock; inside it they go straight through.
_held = threading.local()


def for_state(state_path: Path) -> Path:
    """The lock file of a state database."""
    return state_path.with_name(state_path.name + ".lock")


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` for the duration, or raise LockedError at once.

    The operating system drops the lock when the holder dies, even by SIGKILL, so a crashed
    run never blocks the next one. A thread that holds the lock may take it again.
    """
    held: set[Path] = _held.__dict__.setdefault("paths", set())
    key = path.resolve()
    if key in held:
        yield
        return
    file_lock = filelock.FileLock(path, timeout=0, thread_local=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file_lock.acquire()
    except filelock.Timeout:
        raise LockedError(f"{path}: another newsletter run is using this state; try again when it ends") from None
    except OSError as exc:
        raise LockError(f"{path}: cannot create the lock file: {exc.strerror or exc}") from None
    held.add(key)
    try:
        yield
    finally:
        held.discard(key)
        file_lock.release()
