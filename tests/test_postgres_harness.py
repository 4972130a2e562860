"""The tests' PostgreSQL server (helpers.postgres): each test's database is its own and empty,
and both the TCP port and the Unix socket reach it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest
from helpers.postgres import remove_stale_folders, server_binaries


def test_each_test_gets_an_empty_database_of_its_own(postgres_server, postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()
        connection.execute("CREATE TABLE mine (n INTEGER)")
        name = connection.execute("SELECT current_database()").fetchone()[0]
    assert tables == (0,)
    assert postgres_url.endswith("/" + name)
    with psycopg.connect(postgres_server.socket_url(name)) as connection:
        assert connection.execute("SELECT count(*) FROM mine").fetchone() == (0,)


def test_a_second_database_does_not_see_the_first(postgres_server, postgres_url):
    other = postgres_server.create_database()
    try:
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            connection.execute("CREATE TABLE only_here (n INTEGER)")
        with psycopg.connect(postgres_server.url(other)) as connection:
            found = connection.execute("SELECT to_regclass('only_here')").fetchone()
        assert found == (None,)
    finally:
        postgres_server.drop_database(other)


def test_the_folders_of_killed_sessions_are_removed_and_running_ones_kept():
    dead = subprocess.Popen(["true"])
    dead.wait()
    folders = {}
    for name, owner, server in [("killed", dead.pid, None), ("running", os.getpid(), None),
                                ("server_up", dead.pid, os.getpid()), ("no_owner", None, None)]:
        folders[name] = Path(tempfile.mkdtemp(prefix="newsletter-pg-"))
        if owner is not None:
            (folders[name] / "owner.pid").write_text(str(owner))
        if server is not None:
            (folders[name] / "data").mkdir()
            (folders[name] / "data" / "postmaster.pid").write_text(f"{server}\n/data\n")
    try:
        remove_stale_folders()
        assert {name for name, folder in folders.items() if folder.exists()} == {"running", "server_up", "no_owner"}
    finally:
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def test_an_initdb_linked_on_path_leads_to_the_folder_holding_postgres(tmp_path, monkeypatch):
    real = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not real:
        pytest.skip("no Debian PostgreSQL server here")
    (tmp_path / "initdb").symlink_to(real[-1])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert server_binaries() == real[-1].parent
    assert (server_binaries() / "postgres").exists()
