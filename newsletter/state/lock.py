"""One build (or send) at a time per state database, across processes: a lock file beside a
SQLite file, a PostgreSQL advisory lock on a database that several hosts share."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Literal

import filelock

from newsletter.config.state import StateLocation
from newsletter.errors import LockedError, LockError
from newsletter.state.database import advisory_key, connect_postgres

# What a lock is taken for. Every purpose takes the one lock today, as there is one lock file:
# a build, a send, the deliveries and a scheduled run never overlap. Callers name theirs, so
# that one can stop sharing it (a send that claims its outbox rows needs none).
Purpose = Literal["build", "send", "deliver", "schedule"]
# The name the advisory lock's number is derived from.
_ADVISORY_NAME = "newsletter state"

# The locks this thread holds: a scheduled digest job holds the lock for its whole run and
# calls build and send, which take the same lock; inside it they go straight through.
_held = threading.local()


def for_state(state_path: Path) -> Path:
    """The lock file of a state database."""
    return state_path.with_name(state_path.name + ".lock")


@contextmanager
def state(location: StateLocation, purpose: Purpose) -> Iterator[None]:
    """Hold the state's lock for `purpose` for the duration, or raise LockedError at once."""
    if location.path is not None:
        with exclusive(for_state(location.path)):
            yield
    else:
        with advisory(location, _ADVISORY_NAME):
            yield


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


@contextmanager
def advisory(location: StateLocation, name: str) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock named `name` in the database at `location`, or raise
    LockedError at once. It is held by a connection of its own, open for the duration: the
    server drops it when the connection ends, as when its holder is killed or its host goes
    down. A thread that holds it may take it again."""
    import psycopg

    held: set[tuple[str, str]] = _held.__dict__.setdefault("advisory", set())
    key = (str(location), name)
    if key in held:
        yield
        return
    try:
        connection = connect_postgres(location)
    except psycopg.Error as exc:
        raise LockError(f"{location}: cannot take the lock: {' '.join(str(exc).split())}") from None
    number = advisory_key(name)
    with connection:
        (taken,) = connection.execute("SELECT pg_try_advisory_lock(%s)", (number,)).fetchone() or (0,)
        if not taken:
            raise LockedError(f"{location}: another newsletter run is using this state; try again when it ends")
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
            # Released before the connection closes: the server ends a closed session a
            # moment later, and a run starting in that moment would find the lock taken.
            with suppress(psycopg.Error):
                connection.execute("SELECT pg_advisory_unlock(%s)", (number,))
