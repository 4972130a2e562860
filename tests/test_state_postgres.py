"""What only a state on PostgreSQL has: its schema (the same tables as SQLite's), its migration
under an advisory lock, the build lock shared across hosts, and the one-line errors naming
its URL. The store's own behaviour runs on both backends in the store's test files."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import psycopg
import pytest
from helpers import NOW, held_elsewhere, run_cli

from newsletter import pipeline
from newsletter.config import StateLocation
from newsletter.errors import LockedError, StoreError
from newsletter.state import lock, schema, schema_postgres
from newsletter.state.database import connection_options
from newsletter.state.store import Store


def sqlite_columns(path: Path) -> dict[str, list[str]]:
    db = sqlite3.connect(path)
    tables = [name for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return {table: [row[1] for row in db.execute(f"PRAGMA table_info({table})")] for table in tables}


def postgres_columns(url: str) -> dict[str, list[str]]:
    columns: dict[str, list[str]] = {}
    with psycopg.connect(url) as connection:
        for table, column in connection.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'"
            " AND table_name != 'schema_version' ORDER BY table_name, ordinal_position"
        ):
            columns.setdefault(table, []).append(column)
    return columns


def test_both_backends_have_the_same_tables_and_columns(tmp_path, postgres_url):
    Store.open(tmp_path / "state.sqlite").close()
    Store.open(StateLocation(url=postgres_url)).close()
    expected = sqlite_columns(tmp_path / "state.sqlite")
    assert postgres_columns(postgres_url) == expected
    assert len(expected) > 20


def test_every_version_after_the_postgresql_schema_has_its_postgresql_step():
    steps = range(schema_postgres.SCHEMA_BASE + 1, schema.SCHEMA_VERSION + 1)
    assert sorted(schema_postgres.MIGRATIONS) == list(steps)
    assert schema_postgres.SCHEMA_BASE <= schema.SCHEMA_VERSION


def test_processes_opening_a_new_database_at_once_make_its_tables_once(postgres_url):
    state, ready, failures = StateLocation(url=postgres_url), threading.Barrier(4), []

    def open_store() -> None:
        ready.wait()
        try:
            Store.open(state).close()
        except Exception as exc:  # reported below
            failures.append(exc)

    openers = [threading.Thread(target=open_store) for _ in range(4)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join()
    assert failures == []
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(schema.SCHEMA_VERSION,)]


def test_a_database_of_a_newer_version_is_refused_in_one_line(postgres_url):
    state = StateLocation(url=postgres_url)
    Store.open(state).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("UPDATE schema_version SET version = 999")
    with pytest.raises(StoreError) as error:
        Store.open(state)
    assert str(error.value) == (f"{postgres_url}: the state database has schema version 999, made by a newer"
                                f" newsletter; this one reads versions up to {schema.SCHEMA_VERSION}")


def test_a_database_exists_once_a_build_made_its_tables(postgres_url):
    state = StateLocation(url=postgres_url)
    assert not Store.exists(state)
    Store.open(state).close()
    assert Store.exists(state)


def test_a_server_that_cannot_be_reached_is_one_line_naming_the_url(postgres_server):
    url = postgres_server.url("no_such_database")
    with pytest.raises(StoreError) as error:
        Store.open(StateLocation(url=url))
    assert str(error.value).startswith(f"{url}: cannot open the state database: ")
    assert "no_such_database" in str(error.value).removeprefix(url)
    assert "\n" not in str(error.value)


def test_the_password_comes_from_the_variable_state_password_env_names(postgres_url, monkeypatch):
    state = StateLocation(url=postgres_url, password_env="TEST_NEWSLETTER_DB_PASSWORD")
    monkeypatch.delenv("TEST_NEWSLETTER_DB_PASSWORD", raising=False)
    with pytest.raises(StoreError, match=r"the environment variable that state.password_env names is not set$"):
        Store.open(state)
    # The tests' server trusts its role: any password opens it, once one is given.
    monkeypatch.setenv("TEST_NEWSLETTER_DB_PASSWORD", "from the environment")
    Store.open(state).close()


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_build_is_refused_while_another_host_builds_on_the_same_database(config):
    with held_elsewhere(config.state):
        with pytest.raises(LockedError) as error:
            pipeline.build(config, now=NOW)
        assert str(error.value) == f"{config.state}: another newsletter run is using this state; try again when it ends"
        result = run_cli("build", "--config", str(config.path))
        assert result.returncode == 1
        assert "another newsletter run is using this state" in result.stderr
    assert pipeline.build(config, now=NOW).new_digest is not None


def test_placeholders_become_psycopgs_but_in_quoted_text_and_a_percent_stays_one(postgres_url):
    with Store.open(StateLocation(url=postgres_url)) as store:
        row = store.db.execute("SELECT '?' || ?, '100%', 'it''s ?' || ?", ("a", "b")).fetchone()
    assert row == ("?a", "100%", "it's ?b")


@pytest.mark.parametrize(("url", "sslmode"), [
    ("postgresql://news@db.example.org/news", "require"),
    ("postgresql://news@db.example.org,127.0.0.1/news", "require"),
    ("postgresql://news@db.example.org/news?sslmode=verify-full", "verify-full"),
    ("postgresql://news@db.example.org/news?sslmode=disable", "disable"),
    ("postgresql://news@127.0.0.1:5433/news", None),
    ("postgresql://news@localhost/news", None),
    ("postgresql://news@[::1]/news", None),
    ("postgresql://news@/news?host=/run/postgresql", None),
    ("postgresql://news@/news", None),
])
def test_a_password_leaves_this_host_only_over_tls_unless_the_url_says(monkeypatch, url, sslmode):
    monkeypatch.delenv("PGSSLMODE", raising=False)
    monkeypatch.delenv("PGHOST", raising=False)
    monkeypatch.setenv("TEST_NEWSLETTER_DB_PASSWORD", "secret")
    options = connection_options(StateLocation(url=url, password_env="TEST_NEWSLETTER_DB_PASSWORD"))
    assert (options.get("sslmode"), options["password"]) == (sslmode, "secret")
    # Without a password there is nothing to protect: libpq's own default stands.
    assert "sslmode" not in connection_options(StateLocation(url=url)) or "sslmode=" in url


def test_the_urls_own_timeout_and_application_name_are_kept():
    defaults = connection_options(StateLocation(url="postgresql://news@db.example.org/news"))
    assert (defaults["connect_timeout"], defaults["application_name"]) == (10, "newsletter")
    own = connection_options(StateLocation(
        url="postgresql://news@db.example.org/news?connect_timeout=3&application_name=reports"))
    assert (own["connect_timeout"], own["application_name"]) == ("3", "reports")
    assert connection_options(StateLocation(url="postgresql://news@db.example.org/news?keepalives_idle=5"),
                              application="newsletter worker")["application_name"] == "newsletter worker"


def terminate_lock_connections(postgres_url: str) -> None:
    """End the connections holding advisory locks in the database at `postgres_url`, as an
    idle timeout or an administrator would."""
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
                           " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")


def test_a_lock_whose_connection_dropped_is_found_lost_at_the_check_and_at_release(postgres_url, caplog):
    state = StateLocation(url=postgres_url)
    with lock.state(state, "build") as held:
        held.check("publishing the archive")
        # An idle connection whose peer is gone is found out by TCP keepalives.
        assert held.connection is not None and "keepalives_idle=30" in held.connection.info.dsn
        terminate_lock_connections(postgres_url)
        with pytest.raises(LockedError) as error:
            held.check("publishing the archive")
        # Another run can take it now, which is why this one stops.
        with held_elsewhere(state):
            pass
    assert str(error.value) == (f"{postgres_url}: lost the build lock (the connection to the database dropped, and"
                                " another run may have taken it): stopping before publishing the archive")
    assert f"{postgres_url}: the lock was lost during the run" in caplog.text


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_build_that_lost_its_lock_publishes_nothing(config, posts_dir):
    (posts_dir / "kite-2.0.md").write_text("# Kite 2.0\n\nKite 2.0 adds offline maps to the app.\n", encoding="utf-8")
    assert config.state.url is not None
    with pytest.raises(LockedError, match="lost the build lock .*: stopping before writing and recording the new"):
        pipeline.build(config, now=NOW, on_collected=lambda _result: terminate_lock_connections(config.state.url))
    assert not config.archive_dir.exists()
    with Store.open(config.state) as store:
        assert store.digest_heads() == []
    assert pipeline.build(config, now=NOW).new_digest is not None


def test_a_file_lock_is_held_until_released_so_its_check_asks_nothing(config):
    with lock.state(config.state, "build") as held:
        held.check("publishing the archive")
        assert held.connection is None
