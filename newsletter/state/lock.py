"""One build (or send) at a time per state database, across processes: a lock file beside a
SQLite file, a PostgreSQL advisory lock on a database that several hosts share."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import filelock

from newsletter.config.state import StateLocation
from newsletter.errors import LockedError, LockError
from newsletter.state.database import advisory_key, connect_postgres, one_line

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)

# What a lock is taken for. Every purpose takes the one lock today, as there is one lock file:
# a build, a send, the deliveries and a scheduled run never overlap. Callers name theirs, so
# that one can stop sharing it (a send that claims its outbox rows needs none).
Purpose = Literal["build", "send", "deliver", "schedule"]
_ADVISORY_NAME = "newsletter state"

# The locks this thread holds: a scheduled digest job holds the lock for its whole run and
# calls build and send, which take the same lock; inside it they go straight through.
_held = threading.local()
# The advisory lock's connection sits idle for a whole build: keepalives find a peer that is
# gone (a host down, a dropped route) within a minute or two, so `Held.check` fails fast.
_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 5}


class Held:
    """A lock this thread holds. A lock file is held until released; an advisory lock is
    held only as long as its connection lives, which `check` asks before what cannot be
    undone."""

    def __init__(self, location: StateLocation, purpose: Purpose,
                 connection: psycopg.Connection[Any] | None = None) -> None:
        self.location = location
        self.purpose = purpose
        self.connection = connection

    def check(self, before: str) -> None:
        """Raise LockedError if the lock is gone, naming `before`, what the run stops short of."""
        if self.connection is None or self.still_held():
            return
        raise LockedError(f"{self.location}: lost the {self.purpose} lock (the connection to the database"
                          f" dropped, and another run may have taken it): stopping before {before}")

    def still_held(self) -> bool:
        import psycopg

        assert self.connection is not None
        # pg_locks names a 64-bit advisory key by its two halves, as unsigned numbers.
        key = advisory_key(_ADVISORY_NAME) & 0xFFFF_FFFF_FFFF_FFFF
        try:
            row = self.connection.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
                " AND granted AND classid = %s AND objid = %s AND objsubid = 1",
                (key >> 32, key & 0xFFFF_FFFF)).fetchone()
        except psycopg.Error:
            return False
        return bool(row and row[0])


def for_state(state_path: Path) -> Path:
    """The lock file of a state database."""
    return state_path.with_name(state_path.name + ".lock")


@contextmanager
def state(location: StateLocation, purpose: Purpose) -> Iterator[Held]:
    """Hold the state's lock for `purpose` for the duration, or raise LockedError at once."""
    if location.path is not None:
        with exclusive(for_state(location.path)):
            yield Held(location, purpose)
    else:
        with advisory(location, purpose) as held:
            yield held


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
def advisory(location: StateLocation, purpose: Purpose) -> Iterator[Held]:
    """Hold PostgreSQL's advisory lock in the database at `location`, or raise LockedError at
    once. It is held by a connection of its own, open for the duration: the server drops it
    when the connection ends, as when its holder is killed or its host goes down. A thread
    that holds it may take it again."""
    import psycopg

    held: dict[str, Held] = _held.__dict__.setdefault("advisory", {})
    if str(location) in held:
        yield held[str(location)]
        return
    number = advisory_key(_ADVISORY_NAME)
    with ExitStack() as stack:
        try:
            connection = stack.enter_context(connect_postgres(location, **_KEEPALIVES))
            (taken,) = connection.execute("SELECT pg_try_advisory_lock(%s)", (number,)).fetchone() or (0,)
        except psycopg.Error as exc:
            raise LockError(f"{location}: cannot take the lock: {one_line(location, exc)}") from None
        if not taken:
            raise LockedError(f"{location}: another newsletter run is using this state; try again when it ends")
        held[str(location)] = Held(location, purpose, connection)
        try:
            yield held[str(location)]
        finally:
            del held[str(location)]
            _release(location, connection, number)


def _release(location: StateLocation, connection: psycopg.Connection[Any], number: int) -> None:
    """Release the lock before the connection closes: the server ends a closed session a
    moment later, and a run starting in that moment would find the lock taken."""
    import psycopg

    try:
        row = connection.execute("SELECT pg_advisory_unlock(%s)", (number,)).fetchone()
    except psycopg.Error:
        row = None
    if not row or not row[0]:
        log.warning("%s: the lock was lost during the run (its connection to the database dropped):"
                    " another run may have used the state at the same time", location)
