"""The tests' PostgreSQL server (helpers.postgres): each test's database is its own and empty,
and both the TCP port and the Unix socket reach it."""

from __future__ import annotations

import psycopg


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
