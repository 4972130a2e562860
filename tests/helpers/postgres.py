"""A real PostgreSQL server for the tests: Debian's `postgresql` package (or any server whose
`initdb` is on PATH), initialised into a temporary folder and listening on 127.0.0.1 and on a
Unix socket in that folder, with trust authentication for one role. One server per test
session; each test gets a fresh, empty database of its own (the `postgres_url` fixture).

initdb and postgres refuse to run as root: as root (here and in CI) they run as the
`postgres` user the Debian package creates, and the folder is theirs. The server is told to
quit if the test process dies without stopping it, so a killed run leaves no server behind.
"""

from __future__ import annotations

import ctypes
import glob
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers.servers import free_port
from newsletter.config import StateLocation

# The role the tests connect as: the server's superuser, trusted without a password.
ROLE = "newsletter_test"
# Runs a test (or, as a module's `pytestmark`, every test of a module) whose closure holds the
# `backend` fixture (the `state` and `config` fixtures) once on SQLite and once on PostgreSQL.
BOTH_BACKENDS = pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
# The same with the PostgreSQL run marked slow: for a property test of many examples, each on
# a database of its own.
BOTH_BACKENDS_SLOW_ON_POSTGRESQL = pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
_PR_SET_PDEATHSIG = 1
_FOLDER_PREFIX = "newsletter-pg-"
# The file in a server's folder holding the pid of the test session that made it.
_OWNER = "owner.pid"


def state_table(state: StateLocation) -> str:
    """The [state] table of a config for `state`: none for the default file."""
    return f'[state]\nurl = "{state.url}"\n' if state.url else ""


def server_binaries() -> Path | None:
    """The folder holding initdb and postgres: the one on PATH, else the newest of Debian's."""
    on_path = shutil.which("initdb")
    if on_path:
        # Resolved: a link on PATH (Debian's /usr/bin/initdb) leads to the folder that also
        # holds `postgres`.
        return Path(on_path).resolve().parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


def why_not_available() -> str | None:
    """Why no server can run here, or None when one can."""
    if server_binaries() is None:
        return ("no PostgreSQL server (initdb not on PATH nor in /usr/lib/postgresql/*/bin);"
                " install the Debian package postgresql")
    if os.geteuid() == 0 and not _postgres_user():
        return "running as root, and no `postgres` user to run the PostgreSQL server as"
    return None


def _postgres_user() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        return None


def remove_stale_folders() -> None:
    """Remove the folders of servers whose test session was killed (SIGKILL runs no
    teardown): those whose session and server are both dead. Sessions of other worktrees
    may be running at the same moment: their folders are kept."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_FOLDER_PREFIX}*"):
        server = folder / "data" / "postmaster.pid"
        try:
            owner = int((folder / _OWNER).read_text())
            # No pid file: the server never started, or stopped.
            server_pid = int(server.read_text().split("\n", 1)[0]) if server.exists() else 0
        except (OSError, ValueError):
            continue  # not written yet, or not one of ours
        if not _alive(owner) and not _alive(server_pid):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process
    return True


class PostgresServer:
    """A server started in a folder of its own, until `stop()`."""

    def __init__(self) -> None:
        binaries = server_binaries()
        assert binaries is not None, why_not_available()
        self.binaries = binaries
        remove_stale_folders()
        self.folder = Path(tempfile.mkdtemp(prefix=_FOLDER_PREFIX))
        (self.folder / _OWNER).write_text(str(os.getpid()))
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        # The server's log, in a file: a pipe nobody reads would stall it once full.
        self._log = tempfile.TemporaryFile()
        self._names = itertools.count(1)
        self._user = _postgres_user() if os.geteuid() == 0 else None
        if self._user:
            os.chown(self.folder, self._user.pw_uid, self._user.pw_gid)

    def start(self) -> None:
        data = self.folder / "data"
        self._run([str(self.binaries / "initdb"), "-D", str(data), "-U", ROLE, "--auth=trust",
                   "-E", "UTF8", "--locale=C", "--no-sync"])
        # Durability is not what is tested: fsync and full-page writes off make each test's
        # CREATE DATABASE and the store's commits cheap.
        self.process = subprocess.Popen(
            [str(self.binaries / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(self.port),
             "-k", str(self.folder), "-c", "fsync=off", "-c", "full_page_writes=off",
             "-c", "synchronous_commit=off", "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL, stderr=self._log, preexec_fn=self._as_server_user,
            # Out of the tests' process group: a Ctrl-C or a timeout's SIGTERM reaches the tests,
            # whose end stops the server (after the databases they made are dropped).
            start_new_session=True,
        )
        self._wait_until_ready()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{ROLE}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str = "postgres") -> str:
        """The same database over the Unix socket in the server's folder."""
        return f"postgresql://{ROLE}@/{database}?host={self.folder}&port={self.port}"

    def create_database(self) -> str:
        """A new empty database; returns its name."""
        name = f"test_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name}")
        return name

    def drop_database(self, name: str) -> None:
        # FORCE: a test's web service or killed subprocess may still hold a connection.
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(statement)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # SIGINT: the fast shutdown, which does not wait for clients to leave.
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(command, capture_output=True, preexec_fn=self._as_server_user)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.decode(errors='replace')}")

    def _as_server_user(self) -> None:
        """In the child, before exec: become the postgres user when root, and have the
        server quit at once (SIGQUIT) if the test process dies first. The death signal is
        set last, as changing user clears it."""
        if self._user:
            os.setgid(self._user.pw_gid)
            os.setgroups([])
            os.setuid(self._user.pw_uid)
        if sys.platform == "linux":
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGQUIT)

    def _wait_until_ready(self) -> None:
        import psycopg

        assert self.process is not None
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self._log.seek(0)
                    log = self._log.read().decode(errors="replace")
                    self.stop()
                    raise RuntimeError(f"the PostgreSQL server did not start:\n{log}") from None
                time.sleep(0.05)
