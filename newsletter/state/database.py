"""The connection a Store reads and writes through: a SQLite file (the default) or a
PostgreSQL database, with the store's SQL written once for both.

The store's SQL is SQLite's where the two agree, which is nearly everywhere (upserts with ON
CONFLICT, RETURNING, window functions, row values): its `?` placeholders become psycopg's
`%s` once per statement, and the few functions that differ (a JSON list as a parameter,
fields of JSON text) are spelled by the connection's Dialect. psycopg, and so PostgreSQL's
client library, is imported only when a PostgreSQL database is opened.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from newsletter.config.rules import LOOPBACK
from newsletter.config.state import StateLocation
from newsletter.errors import StoreError
from newsletter.state import schema, schema_postgres

if TYPE_CHECKING:
    import psycopg

# What a statement's parameters may be: a row of values, in `?` order.
Parameters = Sequence[object]


class Cursor(Protocol):
    """The rows of a statement, as both drivers give them: tuples."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Dialect:
    """SQLite's spelling of what the two databases say differently."""

    # A JSON list of ids (one parameter, however long the list) as the rows of a subquery.
    ids = "SELECT value FROM json_each(?)"
    # The same for a JSON list of strings.
    texts = "SELECT value FROM json_each(?)"

    def json_text(self, column: str, key: str) -> str:
        """The field `key` of the JSON object in `column`, as text (JSON text for a list)."""
        return f"json_extract({column}, '$.{key}')"

    def first_id(self, column: str) -> str:
        """The first element of the JSON list of ids in `column`."""
        return f"json_extract({column}, '$[0]')"

    def list_length(self, column: str, key: str) -> str:
        """The length of the JSON list at `key` of the object in `column` (NULL without one)."""
        return f"json_array_length({column}, '$.{key}')"

    def json_list(self, *columns: str) -> str:
        """The values of `columns` as the text of one JSON list."""
        return f"json_array({', '.join(columns)})"

    least = "min"
    # Ends a SELECT inside a transaction whose rows it will change: SQLite's transactions
    # (BEGIN IMMEDIATE) already exclude every other writer.
    for_update = ""
    # The same for rows a writer takes for itself among many (outbox claims), passing over
    # those another writer is taking at the same moment.
    skip_locked = ""


class PostgresDialect(Dialect):
    ids = "SELECT (jsonb_array_elements_text(?::jsonb))::bigint"
    texts = "SELECT jsonb_array_elements_text(?::jsonb)"

    def json_text(self, column: str, key: str) -> str:
        return f"({column}::jsonb ->> '{key}')"

    def first_id(self, column: str) -> str:
        return f"({column}::jsonb ->> 0)::bigint"

    def list_length(self, column: str, key: str) -> str:
        return f"jsonb_array_length({column}::jsonb -> '{key}')"

    def json_list(self, *columns: str) -> str:
        return f"json_build_array({', '.join(columns)})::text"

    least = "least"
    # Under READ COMMITTED another transaction may change a row read here before this one
    # commits: the rows read to decide a write are locked until then.
    for_update = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"


class Database(ABC):
    """One open connection, SQLite's or PostgreSQL's. Reads run outside transactions, each
    seeing what was committed when it began."""

    dialect: Dialect
    # The driver's errors: a Store turns them into one-line StoreErrors naming the database.
    errors: tuple[type[Exception], ...]

    def __init__(self, location: StateLocation) -> None:
        self.location = location

    @abstractmethod
    def execute(self, sql: str, parameters: Parameters = ()) -> Cursor: ...

    @abstractmethod
    def executemany(self, sql: str, rows: Iterable[Parameters]) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """One transaction: committed at the end of the block, rolled back if it raises."""

    @abstractmethod
    def close(self) -> None: ...

    def reason(self, error: Exception) -> str:
        """What went wrong, in one line."""
        return one_line(self.location, error)


def open_database(location: StateLocation) -> Database:
    """The database at `location`, brought to the current schema; StoreError if it cannot
    be opened."""
    errors: tuple[type[Exception], ...] = (OSError, sqlite3.Error, *_postgres_errors(location))
    try:
        return PostgresDatabase(location) if location.on_postgres else SqliteDatabase(location)
    except errors as exc:
        raise _cannot_open(location, exc) from None


def exists(location: StateLocation) -> bool:
    """Whether a state database is there already: the file, or the tables (a PostgreSQL
    database is made by its owner, empty, before the first build)."""
    if not location.on_postgres:
        assert location.path is not None
        return location.path.exists()
    try:
        with connect_postgres(location) as connection:
            return _postgres_version(connection) is not None
    except _postgres_errors(location) as exc:
        raise _cannot_open(location, exc) from None


def _cannot_open(location: StateLocation, error: Exception) -> StoreError:
    return StoreError(f"{location}: cannot open the state database: {one_line(location, error)}")


class SqliteDatabase(Database):
    """A file, in WAL mode: readers never wait for the writer, and writers take turns."""

    dialect = Dialect()
    errors = (sqlite3.Error,)

    def __init__(self, location: StateLocation) -> None:
        super().__init__(location)
        assert location.path is not None
        location.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are opened explicitly in `transaction()`.
        self.connection = sqlite3.connect(location.path, isolation_level=None, timeout=30)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA foreign_keys=ON")
        schema.migrate(self.connection, str(location))

    def execute(self, sql: str, parameters: Parameters = ()) -> Cursor:
        return self.connection.execute(sql, parameters)

    def executemany(self, sql: str, rows: Iterable[Parameters]) -> None:
        self.connection.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        # IMMEDIATE: the write lock is taken at once, so writers queue here rather than
        # failing half-way when a read would have to become a write.
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.connection.in_transaction:
                self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


class PostgresDatabase(Database):
    """A connection in autocommit mode: every read sees what was committed when it began,
    and `transaction()` opens BEGIN .. COMMIT (READ COMMITTED: a writer that reads a row to
    change it locks it, FOR UPDATE, or changes it in one statement)."""

    dialect = PostgresDialect()

    def __init__(self, location: StateLocation) -> None:
        import psycopg

        super().__init__(location)
        self.errors = (psycopg.Error,)
        self.connection = connect_postgres(location)
        try:
            _migrate_postgres(self.connection, str(location))
        except BaseException:
            self.connection.close()
            raise

    def execute(self, sql: str, parameters: Parameters = ()) -> Cursor:
        return self.connection.execute(_psycopg_sql(sql), parameters)

    def executemany(self, sql: str, rows: Iterable[Parameters]) -> None:
        # A chunk at a time: the rows may be made by reading this very connection (a digest's
        # snapshot entries are loaded as they are written), which psycopg's executemany
        # holds; and a chunk keeps a first build's hundreds of thousands of rows out of memory.
        statement, chunks = _psycopg_sql(sql), iter(rows)
        with self.connection.cursor() as cursor:
            while chunk := list(itertools.islice(chunks, 1000)):
                cursor.executemany(statement, chunk)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.connection.transaction():
            yield

    def close(self) -> None:
        self.connection.close()


def connect_postgres(location: StateLocation, **defaults: Any) -> psycopg.Connection[Any]:
    """A new connection in autocommit mode, with the password from the environment variable
    state.password_env names, if it names one; `defaults` are options the URL may override."""
    import psycopg

    return psycopg.connect(**(defaults | connection_options(location)), autocommit=True)


def connection_options(location: StateLocation, application: str = "newsletter") -> dict[str, Any]:
    """libpq's options for `location`: the URL's own, and defaults for those it leaves out
    (`application` names the connection in pg_stat_activity)."""
    from psycopg.conninfo import conninfo_to_dict

    assert location.url is not None
    options: dict[str, Any] = conninfo_to_dict(location.url)
    options.setdefault("connect_timeout", 10)
    options.setdefault("application_name", application)
    if location.password_env:
        value = os.environ.get(location.password_env)
        if value is None:
            # Not named: a password put in password_env by mistake would be printed.
            raise StoreError(f"{location}: the environment variable that state.password_env names is not set")
        options["password"] = value
        # libpq's default (prefer) falls back to plain text when the server, or whoever sits
        # between, declines TLS: a password would then cross the network readable. As for
        # SMTP (config's plain_password_problem), a password leaves this host encrypted only,
        # unless the URL (or PGSSLMODE) chooses otherwise.
        if "sslmode" not in options and "PGSSLMODE" not in os.environ and not _on_this_host(options):
            options["sslmode"] = "require"
    return options


def _on_this_host(options: dict[str, Any]) -> bool:
    """Whether every host the options name is this one: a loopback address or a Unix socket
    (a folder, or no host at all)."""
    hosts = str(options.get("hostaddr") or options.get("host") or os.environ.get("PGHOST", "")).split(",")
    return all(not host or host.startswith("/") or host in LOOPBACK for host in hosts)


def advisory_key(name: str) -> int:
    """PostgreSQL's advisory locks are named by a 64-bit number: this one is derived from a
    name, the same in every process and on every host."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def _migrate_postgres(connection: psycopg.Connection[Any], name: str) -> None:
    """Bring the database to the current version in one transaction. Two processes starting
    at once on a new database queue on an advisory lock held until the commit: the second
    finds the work done."""
    if _postgres_version(connection) == schema.SCHEMA_VERSION:
        return
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("newsletter schema"),))
        connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        version = _postgres_version(connection)
        schema.check_version(name, version or 0)
        if version is None:
            connection.execute(schema_postgres.SCHEMA)
            connection.execute("INSERT INTO schema_version (version) VALUES (%s)", (schema_postgres.SCHEMA_BASE,))
            version = schema_postgres.SCHEMA_BASE
        for step in range(version + 1, schema.SCHEMA_VERSION + 1):
            connection.execute(schema_postgres.MIGRATIONS[step])
        connection.execute("UPDATE schema_version SET version = %s", (schema.SCHEMA_VERSION,))


def _postgres_version(connection: psycopg.Connection[Any]) -> int | None:
    """The schema version, None for a database without the state's tables."""
    row = connection.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    found = connection.execute("SELECT version FROM schema_version").fetchone()
    return int(found[0]) if found else None


@lru_cache(maxsize=1024)
def _psycopg_sql(sql: str) -> str:
    """The statement with psycopg's placeholders: `?` becomes `%s` (but in a quoted string),
    and a literal `%` is doubled."""
    parts = sql.replace("%", "%%").split("'")
    # The even parts are outside quotes (an escaped '' in a string leaves an empty even part).
    return "'".join(part.replace("?", "%s") if n % 2 == 0 else part for n, part in enumerate(parts))


def _postgres_errors(location: StateLocation) -> tuple[type[Exception], ...]:
    if not location.on_postgres:
        return ()
    import psycopg

    return (psycopg.Error,)


def one_line(location: StateLocation, error: Exception) -> str:
    """What went wrong, in one line: PostgreSQL's first line says it (the statement quoted
    and the hints follow). SQLite reports a full disk as "disk I/O error" when it cannot grow
    its shared-memory file: name the cause the user can act on."""
    lines = str(error).strip().splitlines()
    said = getattr(error, "strerror", None) or (" ".join(lines[0].split()) if lines else type(error).__name__)
    if location.path is None:
        return said
    try:
        full = os.statvfs(location.path.parent).f_bavail == 0
    except OSError:
        full = False
    return f"{said} (no space left on the device)" if full and "full" not in said else said
