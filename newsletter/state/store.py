"""The state database: posts seen, their summaries, and the digests that carried them.

A SQLite file in WAL mode, or a PostgreSQL database (database.py); every change happens
inside one transaction, so a process killed at any point leaves either the old state or the
new one.
"""

from __future__ import annotations

import itertools
import json
import secrets
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from newsletter.config.state import StateLocation
from newsletter.errors import StoreError
from newsletter.models import (
    CacheValidators,
    DigestHead,
    EntryStamp,
    RenderedDigest,
    SourceResult,
    SourceStatus,
    StoredPost,
    Summary,
)
from newsletter.state import database, digest_copies
from newsletter.state.database import Database
from newsletter.state.digest_copies import DigestSnapshot

# A message's way through the outbox (see the outbox table in schema.py).
OutboxState = Literal["queued", "pending", "sent", "failed", "deferred", "dropped", "empty"]
# The states of a mailing that is not over yet.
UNFINISHED: tuple[OutboxState, ...] = ("queued", "pending", "deferred")


@dataclass(frozen=True)
class OutboxRow:
    message_id: str
    state: OutboxState
    attempts: int
    error: str | None


class Store:
    def __init__(self, db: Database):
        self.db = db
        # What messages name the database by: its file, or its URL (which holds no password).
        self.location = db.location

    @classmethod
    def open(cls, location: StateLocation | Path) -> Store:
        """The database at `location` (a Path is a SQLite file), made or brought to the
        current schema."""
        if isinstance(location, Path):
            location = StateLocation(path=location)
        return cls(database.open_database(location))

    @staticmethod
    def exists(location: StateLocation) -> bool:
        """Whether a build has made the database: its file, or its tables on PostgreSQL."""
        return database.exists(location)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, _type: object, exc: BaseException | None, _traceback: object) -> None:
        self.close()
        # Reads run outside transactions: a damaged file shows there as well, and is as much
        # a one-line error as when writing.
        if isinstance(exc, self.db.errors):
            raise StoreError(f"{self.location}: cannot read the state database: {self.db.reason(exc)}") from None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """One transaction; a failure of the database itself (a full disk, a read-only or
        damaged file, a server gone) becomes StoreError naming the database."""
        try:
            with self.db.transaction():
                yield self.db
        except self.db.errors as exc:
            raise StoreError(f"{self.location}: cannot write the state database: {self.db.reason(exc)}") from None

    # -- posts ---------------------------------------------------------------

    def content_hash(self, source: str, location: str) -> str | None:
        row = self.db.execute(
            "SELECT content_hash FROM posts WHERE source = ? AND location = ?", (source, location)
        ).fetchone()
        return row[0] if row else None

    def touch(self, source: str, locations: Iterable[str], now: datetime) -> None:
        """Record that these posts were read again and found unchanged. A post its source
        vouched for without sending it (a 304, a file of the same size and time) is not
        written: `last_seen` is when the source last gave the post's text, and the source's
        last success says when it last answered for the rest."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE posts SET last_seen = ? WHERE source = ? AND location = ?",
                ((now.isoformat(), source, location) for location in locations),
            )

    def save_post(
        self, *, source: str, location: str, url: str | None, content_hash: str,
        summary: Summary, now: datetime, backlog: bool = False, text: str | None = None,
    ) -> None:
        """Insert a new post, or record a changed one (its `changed` time moves to now); either
        waits to be grouped into its entry (entry_index.py). A `backlog` post (found by its
        source's first collection, which skips the backlog) is never a digest's news. `text`
        is kept for a post that may have no address of its own, whose page in the archive
        then shows it."""
        with self.transaction() as db:
            # The version last grouped, unless it waits already: its keys are in the index. A
            # skipped post is in no grouping (state/skipped.py).
            db.execute(
                "INSERT INTO ungrouped (post_id, url, summary, content_hash)"
                " SELECT id, url, summary, content_hash FROM posts WHERE source = ? AND location = ?"
                " AND id NOT IN (SELECT post_id FROM skipped_posts) ON CONFLICT DO NOTHING",
                (source, location),
            )
            (post_id,) = db.execute(
                """
                INSERT INTO posts (source, location, url, content_hash, first_seen, last_seen,
                                   changed, summary, text)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source, location) DO UPDATE SET
                    url = excluded.url, content_hash = excluded.content_hash,
                    last_seen = excluded.last_seen, changed = excluded.changed,
                    summary = excluded.summary, text = excluded.text
                RETURNING id
                """,
                (source, location, url, content_hash, now.isoformat(), now.isoformat(),
                 now.isoformat(), json.dumps(summary.to_json(), ensure_ascii=False), text),
            ).fetchone()
            db.execute("INSERT INTO ungrouped (post_id) VALUES (?) ON CONFLICT DO NOTHING", (post_id,))
            if backlog:
                db.execute("INSERT INTO backlog_posts (post_id) VALUES (?) ON CONFLICT DO NOTHING", (post_id,))

    def post_text(self, post_id: int) -> str | None:
        """The text kept of a post that may have no address of its own (save_post), if any."""
        row = self.db.execute("SELECT text FROM posts WHERE id = ?", (post_id,)).fetchone()
        return row[0] if row else None

    def posts(self, ids: Collection[int] | None = None) -> list[StoredPost]:
        """The posts with these ids (every post with None), by id."""
        columns = "id, source, location, url, content_hash, first_seen, last_seen, changed, summary, first_location"
        if ids is None:
            rows = self.db.execute(f"SELECT {columns} FROM posts ORDER BY id")
        else:
            rows = self.db.execute(
                f"SELECT {columns} FROM posts WHERE id IN ({self.db.dialect.ids}) ORDER BY id",
                (json.dumps(list(ids)),),
            )
        return [_stored_post(row) for row in rows]

    def post_count(self, source: str) -> int:
        (count,) = self.db.execute("SELECT count(*) FROM posts WHERE source = ?", (source,)).fetchone()
        return int(count)

    def post_ids_changed_since(self, since: datetime) -> set[int]:
        # Stored times are UTC ISO strings, which compare as text only against UTC.
        rows = self.db.execute("SELECT id FROM posts WHERE changed >= ?", (since.astimezone(UTC).isoformat(),))
        return {row[0] for row in rows}

    # -- pages ---------------------------------------------------------------

    def page_fingerprints(self, paths: Collection[str] | None = None) -> dict[str, str]:
        """The fingerprint of each page a build writes only when it changes, by path: of
        these `paths`, or of every page."""
        if paths is None:
            return dict(self.db.execute("SELECT path, fingerprint FROM archive_pages"))
        return dict(self.db.execute(
            f"SELECT path, fingerprint FROM archive_pages WHERE path IN ({self.db.dialect.texts})",
            (json.dumps(list(paths)),),
        ))

    def record_page(self, path: str, fingerprint: str) -> None:
        """Called once the page is written: a page recorded but not written would be missing."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO archive_pages (path, fingerprint) VALUES (?, ?)"
                " ON CONFLICT (path) DO UPDATE SET fingerprint = excluded.fingerprint",
                (path, fingerprint),
            )

    def forget_page(self, path: str) -> None:
        """Drop a page's fingerprint: it is written again whatever its content."""
        with self.transaction() as db:
            db.execute("DELETE FROM archive_pages WHERE path = ?", (path,))

    def archive_mark(self, name: str) -> str | None:
        """A value of the archive_marks table (see schema.py)."""
        row = self.db.execute("SELECT value FROM archive_marks WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def entry_id_site(self, site_url: str) -> str:
        """The site URL entry ids are made under: the one the first build of this state was
        given (or, for a state from before this was kept, its first build since), so that
        moving the archive to another address changes no entry's id."""
        with self.transaction() as db:
            db.execute("INSERT INTO archive_marks (name, value) VALUES ('entry id site', ?) ON CONFLICT DO NOTHING",
                       (site_url,))
            (value,) = db.execute("SELECT value FROM archive_marks WHERE name = 'entry id site'").fetchone()
        return str(value)

    def set_archive_marks(self, marks: Mapping[str, str | None]) -> None:
        """Set these marks in one transaction; None removes one."""
        with self.transaction() as db:
            for name, value in marks.items():
                db.execute("DELETE FROM archive_marks WHERE name = ?", (name,))
                if value is not None:
                    db.execute("INSERT INTO archive_marks (name, value) VALUES (?, ?)", (name, value))

    # -- sources -------------------------------------------------------------

    def validators(self) -> dict[str, dict[str, CacheValidators]]:
        """source -> URL or file -> the validators its last full read of it gave."""
        known: dict[str, dict[str, CacheValidators]] = {}
        for source, url, etag, last_modified in self.db.execute(
            "SELECT source, location, etag, last_modified FROM validators"
        ):
            known.setdefault(source, {})[url] = CacheValidators(etag, last_modified)
        return known

    def record_collection(self, result: SourceResult, now: datetime) -> None:
        """Remember how collecting a source went and the validators it brought back.

        Called once the source's posts are saved: validators stored earlier could make
        the next collection skip posts that never reached the store.
        """
        with self.transaction() as db:
            if result.error:
                db.execute(
                    """
                    INSERT INTO source_status (source, last_error, last_error_at) VALUES (?, ?, ?)
                    ON CONFLICT (source) DO UPDATE SET
                        last_error = excluded.last_error, last_error_at = excluded.last_error_at
                    """,
                    (result.source, result.error, now.isoformat()),
                )
                return
            db.execute(
                """
                INSERT INTO source_status (source, last_success) VALUES (?, ?)
                ON CONFLICT (source) DO UPDATE SET last_success = excluded.last_success
                """,
                (result.source, now.isoformat()),
            )
            db.executemany(
                """
                INSERT INTO validators (source, location, etag, last_modified) VALUES (?, ?, ?, ?)
                ON CONFLICT (source, location) DO UPDATE SET
                    etag = excluded.etag, last_modified = excluded.last_modified
                """,
                ((result.source, url, v.etag, v.last_modified) for url, v in result.validators.items()),
            )

    def record_unchanged(self, sources: Iterable[str], now: datetime) -> int:
        """Sources whose server said nothing changed (HTTP 304): each is recorded as collected
        now, all in one transaction rather than two per source. Their posts stay as stored,
        not written: a post's last_seen is when its source last gave its text, and the
        source's last success says when it last answered for it. Returns the number of
        those posts."""
        sources = list(sources)
        with self.transaction() as db:
            db.executemany(
                """
                INSERT INTO source_status (source, last_success) VALUES (?, ?)
                ON CONFLICT (source) DO UPDATE SET last_success = excluded.last_success
                """,
                ((source, now.isoformat()) for source in sources),
            )
        posts = dict(self.db.execute("SELECT source, count(*) FROM posts GROUP BY source"))
        return sum(posts.get(source, 0) for source in sources)

    def source_statuses(self) -> dict[str, SourceStatus]:
        rows = self.db.execute(
            """
            SELECT names.source, s.last_success, s.last_error, s.last_error_at,
                   (SELECT count(*) FROM posts WHERE posts.source = names.source)
            FROM (SELECT source FROM source_status UNION SELECT source FROM posts) AS names
            LEFT JOIN source_status AS s ON s.source = names.source
            """
        )
        return {
            source: SourceStatus(
                source=source, last_success=_datetime(last_success), last_error=last_error,
                last_error_at=_datetime(last_error_at), posts=posts,
            )
            for source, last_success, last_error, last_error_at, posts in rows
        }

    # -- digests -------------------------------------------------------------

    def digest_name(self, now: datetime, taken: Callable[[str], bool] = lambda _name: False) -> str:
        """The name of a digest made now: the day and its rank that day. A name is never
        given twice: not one this database holds, nor one `taken` says is used elsewhere (the
        archive's files, which outlive a lost database). Only one build at a time asks
        (the build lock, an advisory lock on PostgreSQL), so the name is still free when its
        digest is recorded; were it not, the name's uniqueness would refuse the second."""
        day = now.date().isoformat()
        used = {row[0] for row in self.db.execute("SELECT name FROM digests WHERE name LIKE ?", (f"{day}-%",))}
        return next(f"{day}-{rank}" for rank in itertools.count(1)
                    if f"{day}-{rank}" not in used and not taken(f"{day}-{rank}"))

    def add_digest(
        self, name: str, entries: Sequence[EntryStamp], now: datetime, rendered: RenderedDigest | None = None,
        to_mail: bool = True, snapshot: DigestSnapshot | None = None,
    ) -> None:
        """Record a new digest carrying `entries`, with the copy `rendered` for mail and the
        `snapshot` it was rendered from (state/digest_copies.py): the
        build records one only once its files are written, so a build that fails leaves
        none for a later send to mail. One made while no mail is configured is never mailed
        later, unless as the newest: adding mail to an old archive must not send its backlog."""
        with self.transaction() as db:
            (digest_id,) = db.execute(
                "INSERT INTO digests (name, created, mailing) VALUES (?, ?, ?) RETURNING id",
                (name, now.isoformat(), None if to_mail else now.isoformat()),
            ).fetchone()
            db.executemany(
                "INSERT INTO digest_entries (digest_id, position, entry_id) VALUES (?, ?, ?)",
                ((digest_id, position, entry.id) for position, entry in enumerate(entries)),
            )
            db.executemany(
                "INSERT INTO digest_posts (digest_id, post_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                ((digest_id, post_id) for entry in entries for post_id in entry.forms),
            )
            if rendered is not None:
                digest_copies.write(db, digest_id, rendered, snapshot)

    def digest_heads(self) -> list[DigestHead]:
        """Every digest, oldest first."""
        return self._heads("ORDER BY created, id")

    def save_digest_copy(self, digest_id: int, rendered: RenderedDigest, snapshot: DigestSnapshot | None) -> None:
        with self.transaction() as db:
            digest_copies.write(db, digest_id, rendered, snapshot)

    def digest_ids_with_copies(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT digest_id FROM digest_copies")}

    def digest_copy(self, digest_id: int) -> RenderedDigest | None:
        """The digest as the build rendered it for mail, if it has."""
        return digest_copies.build_copy(self, digest_id)

    # -- outbox --------------------------------------------------------------

    def message_key(self) -> bytes:
        """The key Message-IDs are derived with: made once, kept with the outbox it names."""
        with self.transaction() as db:
            # ON CONFLICT: of two processes making the key at once, the second keeps the first's.
            db.execute("INSERT INTO secrets (name, value) VALUES ('message-id', ?) ON CONFLICT DO NOTHING",
                       (secrets.token_hex(32),))
            (value,) = db.execute("SELECT value FROM secrets WHERE name = 'message-id'").fetchone()
        return bytes.fromhex(value)

    def digests_to_mail(self) -> list[DigestHead]:
        """Digests not mailed yet or whose mailing is not over, and the newest (for whoever
        joined since its mailing), in the order they were made: by id, since the clock
        that dated them may have gone back."""
        return self._heads(f"""
            WHERE mailing IS NULL
               OR id IN (SELECT digest_id FROM outbox WHERE state IN {UNFINISHED})
               OR id = (SELECT max(id) FROM digests)
            ORDER BY id
            """)

    def _heads(self, condition_and_order: str) -> list[DigestHead]:
        rows = self.db.execute(
            "SELECT id, name, created, (SELECT count(*) FROM digest_entries WHERE digest_id = digests.id)"
            f" FROM digests {condition_and_order}"
        )
        return [DigestHead(i, name, datetime.fromisoformat(created), n) for i, name, created, n in rows]

    def start_mailing(self, digest_id: int, now: datetime) -> None:
        """Record that the digest's mailing began (even to no one): it is mailed no more,
        except to whoever joins while it is the newest."""
        with self.transaction() as db:
            db.execute("UPDATE digests SET mailing = ? WHERE id = ? AND mailing IS NULL", (now.isoformat(), digest_id))

    def outbox(self, digest_id: int) -> dict[str, OutboxRow]:
        rows = self.db.execute(
            "SELECT recipient, message_id, state, attempts, error FROM outbox WHERE digest_id = ?",
            (digest_id,),
        )
        return {recipient: OutboxRow(*rest) for recipient, *rest in rows}

    def queue_mailing(self, digest_id: int, message_ids: dict[str, str], now: datetime) -> None:
        """Record that `digest_id` is to go to each recipient (keys), unless already recorded."""
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO outbox (digest_id, recipient, message_id, state, updated)"
                " VALUES (?, ?, ?, 'queued', ?) ON CONFLICT DO NOTHING",
                ((digest_id, r, m, now.isoformat()) for r, m in message_ids.items()),
            )

    def set_outbox_state(
        self, digest_id: int, recipient: str, state: OutboxState, now: datetime, error: str | None = None,
        *, holder: str | None = None,
    ) -> bool:
        """Move one message to `state` in its own transaction; with `holder`, only if that
        sender holds its claim: False if it does not."""
        with self.transaction() as db:
            return write_outbox_state(db, digest_id, recipient, state, now, error, holder=holder)

    # -- scheduled jobs ------------------------------------------------------

    def job_done_for(self, job: str) -> datetime | None:
        """The scheduled time the job's last completed run was for."""
        row = self.db.execute("SELECT done_for FROM job_runs WHERE job = ?", (job,)).fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def job_started(self, job: str, now: datetime) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO job_runs (job, started, outcome) VALUES (?, ?, 'running')"
                " ON CONFLICT (job) DO UPDATE SET started = excluded.started, finished = NULL,"
                " outcome = excluded.outcome",
                (job, now.isoformat()),
            )

    def job_finished(self, job: str, now: datetime, outcome: str, *, done_for: datetime | None) -> None:
        """Record how the run ended; `done_for` (the scheduled time it covered) only when it
        completed, so a run that failed or was interrupted is owed again."""
        with self.transaction() as db:
            db.execute(
                "UPDATE job_runs SET finished = ?, outcome = ?, done_for = coalesce(?, done_for)"
                " WHERE job = ?",
                (now.isoformat(), outcome, done_for.isoformat() if done_for else None, job),
            )


def write_outbox_state(
    db: Database, digest_id: int, recipient: str, state: OutboxState, now: datetime,
    error: str | None = None, *, holder: str | None = None, leased_past: str | None = None,
    was: OutboxState | None = None,
) -> bool:
    """Move one message to `state` inside the caller's transaction; `pending` counts an
    attempt. With `holder`, only if that sender holds its claim (state/outbox_claims.py),
    with a lease that ends after `leased_past` if given; with `was`, only from that state.
    False if the row was not written."""
    conditions = [(" AND claimed_by = ?", holder), (" AND lease_until > ?", leased_past), (" AND state = ?", was)]
    return db.execute(
        "UPDATE outbox SET state = ?, updated = ?, error = ?, attempts = attempts + CASE WHEN ? = 'pending'"
        " THEN 1 ELSE 0 END WHERE digest_id = ? AND recipient = ?"
        + "".join(sql for sql, value in conditions if value is not None),
        (state, now.isoformat(), error, state, digest_id, recipient,
         *(value for _sql, value in conditions if value is not None)),
    ).rowcount == 1


def _datetime(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _stored_post(row: tuple) -> StoredPost:
    post_id, source, location, url, content_hash, first_seen, last_seen, changed, summary, first_location = row
    return StoredPost(
        id=post_id, source=source, location=location, url=url, content_hash=content_hash,
        first_seen=datetime.fromisoformat(first_seen),
        last_seen=datetime.fromisoformat(last_seen),
        changed=datetime.fromisoformat(changed),
        summary=Summary.from_json(json.loads(summary)), first_location=first_location,
    )
