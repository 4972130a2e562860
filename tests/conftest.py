"""Fixtures only: a config over a temporary folder of posts, the shared dir, pytest-httpserver
on 127.0.0.1, a real SMTP server on 127.0.0.1, the chat services' stand-in on 127.0.0.1, a real
PostgreSQL server (one per session, a fresh database per test), a build's early workers.
Plain helpers live in tests/helpers/."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

# Plain `assert`s in the helpers report their operands, as they would in a test.
pytest.register_assert_rewrite("helpers")

from aiosmtpd.controller import Controller  # noqa: E402 (after the rewrite hook is set)
from helpers import EXAMPLES, SITE_TABLE, shared_dir, write_config  # noqa: E402
from helpers.chat import ChatServer, delivery_environment  # noqa: E402
from helpers.postgres import PostgresServer, state_table, why_not_available  # noqa: E402
from helpers.servers import SmtpServer, SmtpSink, free_port  # noqa: E402

from newsletter import config as config_module  # noqa: E402
from newsletter.processes import EarlyWorker  # noqa: E402


@pytest.fixture
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("no ../shared folder beside this clone (seed posts, gold labels, validators)")
    return path


@pytest.fixture
def posts_dir(tmp_path: Path) -> Path:
    """A copy of the bundled example posts that a test may change."""
    folder = tmp_path / "posts"
    shutil.copytree(EXAMPLES, folder)
    return folder


@pytest.fixture
def backend() -> str:
    """The database the state is kept in: SQLite, unless a test asks for both with
    helpers.postgres.BOTH_BACKENDS."""
    return "sqlite"


@pytest.fixture
def state(backend: str, tmp_path: Path, request) -> config_module.StateLocation:
    """Where the test's state is: the config's default file, or an empty PostgreSQL database."""
    if backend == "sqlite":
        return config_module.StateLocation(path=tmp_path / "state.sqlite")
    return config_module.StateLocation(url=request.getfixturevalue("postgres_url"))


@pytest.fixture
def new_state(backend: str, tmp_path_factory, request) -> Callable[[], config_module.StateLocation]:
    """Makes another empty state at each call, for a test of many examples that needs one
    per example."""
    server = request.getfixturevalue("postgres_server") if backend == "postgresql" else None
    made: list[str] = []

    def make() -> config_module.StateLocation:
        if server is None:
            return config_module.StateLocation(path=tmp_path_factory.mktemp("state") / "state.sqlite")
        made.append(server.create_database())
        return config_module.StateLocation(url=server.url(made[-1]))

    yield make
    for name in made:
        server.drop_database(name)


@pytest.fixture
def config(tmp_path: Path, posts_dir: Path, state: config_module.StateLocation) -> config_module.Config:
    # The [state] table before the source's, whose keys a test may add at the end.
    path = write_config(tmp_path, f"""{SITE_TABLE}{state_table(state)}
[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"
""")
    return config_module.load(path)


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver on IPv4 loopback: tests never leave this machine."""
    return ("127.0.0.1", 0)


@pytest.fixture
def smtp_server() -> SmtpServer:
    sink = SmtpSink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(sink, port)
    finally:
        controller.stop()


@pytest.fixture
def chat(monkeypatch) -> ChatServer:
    """The chat services' stand-in, its URLs in the variables helpers.chat.deliveries_section names."""
    with ChatServer() as server:
        for name, value in delivery_environment(server).items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture(scope="session")
def postgres_server() -> PostgresServer:
    """One PostgreSQL server for the whole session (helpers.postgres); skips without one."""
    reason = why_not_available()
    if reason:
        pytest.skip(reason)
    server = PostgresServer()
    # A session ended by SIGTERM (a timeout, CI cancelling) stops as after Ctrl-C, running
    # this fixture's end: the server would quit on its own, but its folder would stay.
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        if previous == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty database of this test's own, dropped after it."""
    name = postgres_server.create_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)


@pytest.fixture
def early_worker() -> Iterator[Callable[..., EarlyWorker]]:
    """Starts a build's early workers, stopped after the test. Made directly: `EarlyWorker.
    started` declines to fork beside another thread, and the session's servers run in threads."""
    started: list[EarlyWorker] = []

    def start(warm_ups: Sequence[Callable[[], object]], meanwhile: Sequence[Callable[[], object]] = ()) -> EarlyWorker:
        started.append(EarlyWorker(warm_ups, meanwhile))
        return started[-1]

    yield start
    for worker in started:
        worker.stop()
