"""The state database's tables on SQLite, and how a database of an earlier version is brought
up to date (schema_postgres.py has PostgreSQL's, which follow these)."""

from __future__ import annotations

import sqlite3

from newsletter.errors import StoreError

# The first schema, which databases made before schema versions have; MIGRATIONS bring it
# up to date. The version is SQLite's own `user_version` field of the file header.
BASELINE = """
CREATE TABLE IF NOT EXISTS posts (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    location TEXT NOT NULL,
    url TEXT,
    content_hash TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    changed TEXT NOT NULL,
    summary TEXT NOT NULL,
    UNIQUE (source, location)
);
CREATE TABLE IF NOT EXISTS digests (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS digest_entries (
    digest_id INTEGER NOT NULL REFERENCES digests(id),
    position INTEGER NOT NULL,
    entry_id TEXT NOT NULL,
    PRIMARY KEY (digest_id, position)
);
CREATE TABLE IF NOT EXISTS digest_posts (
    digest_id INTEGER NOT NULL REFERENCES digests(id),
    post_id INTEGER NOT NULL REFERENCES posts(id),
    PRIMARY KEY (digest_id, post_id)
);
-- One row per (digest, subscriber) once its mailing starts. state: queued -> pending (being
-- handed to the server) -> sent | failed (refused for good) | deferred (to try again) |
-- dropped (unsubscribed before it went out).
CREATE TABLE IF NOT EXISTS outbox (
    digest_id INTEGER NOT NULL REFERENCES digests(id),
    recipient TEXT NOT NULL,
    message_id TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    updated TEXT NOT NULL,
    error TEXT,
    PRIMARY KEY (digest_id, recipient)
);
-- The scheduler's memory: per job, the scheduled time its last completed run was for.
CREATE TABLE IF NOT EXISTS job_runs (
    job TEXT PRIMARY KEY,
    done_for TEXT,
    started TEXT NOT NULL,
    finished TEXT,
    outcome TEXT NOT NULL
);
-- What identified each document a source last read in full: a URL's ETag and
-- Last-Modified, a post file's size and time. Per source, so that a source added later
-- reads a URL in full even when another source already holds its validators.
CREATE TABLE IF NOT EXISTS validators (
    source TEXT NOT NULL,
    location TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    PRIMARY KEY (source, location)
);
CREATE TABLE IF NOT EXISTS feed_pages (
    path TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS source_status (
    source TEXT PRIMARY KEY,
    last_success TEXT,
    last_error TEXT,
    last_error_at TEXT
);
"""


def _entry_touched(row: str) -> str:
    """The statement a trigger runs to log the entry in its `row` (NEW or OLD)."""
    return f"""INSERT INTO touched_entries (entry) SELECT {row}.id
            WHERE NOT EXISTS (SELECT 1 FROM touched_entries WHERE entry = {row}.id);"""


def _file_entries_touched(row: str) -> str:
    """A trigger's statement logging the entries of the post whose file's validators `row`
    (NEW or OLD) holds."""
    return f"""INSERT INTO touched_entries (entry) SELECT f.entry FROM posts AS p JOIN entry_forms AS f
            ON f.post_id = p.id WHERE p.source = {row}.source AND p.location = {row}.location
            AND f.entry NOT IN (SELECT entry FROM touched_entries);"""


# Version -> what turns the previous version into it.
MIGRATIONS = {
    # The digest as mailed, rendered once by the build: a mailing sends this snapshot.
    2: """
    CREATE TABLE digest_copies (
        digest_id INTEGER PRIMARY KEY REFERENCES digests(id),
        subject TEXT NOT NULL,
        text TEXT NOT NULL,
        html TEXT NOT NULL,
        unsubscribe_slot TEXT NOT NULL
    );
    -- Secrets this database's owner keeps, such as the key Message-IDs are derived with.
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # Everyone who was ever on the list, with where they came from and how they stand; rows
    # are never deleted, so an unsubscribe outlives any re-import of the operator's file.
    3: """
    CREATE TABLE subscribers (
        id INTEGER PRIMARY KEY,
        -- The bare address in lower case, as the outbox names a recipient.
        address TEXT NOT NULL UNIQUE,
        -- unconfirmed | active | unsubscribed | bounced | complained
        status TEXT NOT NULL,
        -- When the status last changed, and what changed it ("one-click", "operator", ...).
        since TEXT NOT NULL,
        how TEXT NOT NULL,
        -- config (email.subscribers or subscribers_file) | sign-up | operator
        origin TEXT NOT NULL,
        -- When a sign-up awaiting confirmation was asked for; its link is bound to it.
        requested TEXT,
        -- Permanent refusals in a row.
        bounces INTEGER NOT NULL DEFAULT 0
    );
    -- An unsubscribe asks whether a message to its address is being handed over right now.
    CREATE INDEX outbox_recipient ON outbox (recipient, state);
    """,
    # The outbox of sign-up confirmations: one message per sign-up asked for, queued in the
    # transaction that records it, so a mail server down at that moment loses none.
    4: """
    CREATE TABLE confirmations (
        subscriber_id INTEGER NOT NULL REFERENCES subscribers(id),
        -- The sign-up it confirms (subscribers.requested when it was asked for).
        requested TEXT NOT NULL,
        message_id TEXT NOT NULL,
        -- queued | pending | sent | failed | deferred | dropped, as in the outbox
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        updated TEXT NOT NULL,
        error TEXT,
        PRIMARY KEY (subscriber_id, requested)
    );
    """,
    # When each digest's mailing began: a digest not yet mailed is found by this, not by
    # being the newest, so two builds before one send mail both. Digests of an older
    # database count as mailed, except the newest one that no mailing has started.
    5: """
    ALTER TABLE digests ADD COLUMN mailing TEXT;
    UPDATE digests SET mailing = created
        WHERE id IN (SELECT digest_id FROM outbox) OR id != (SELECT max(id) FROM digests);
    """,
    # The grouping of posts into entries (entries.py), kept so that a new or changed post is
    # matched against an index of keys and regroups only the entries it touches. Every post
    # of an earlier database waits to be grouped: the next build groups them all at once.
    6: """
    -- Which posts hold each key, as of their last grouping; kind is 'same' (an address a
    -- post goes by), 'link' or 'content' (models.FormKeys).
    CREATE TABLE form_keys (
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        post_id INTEGER NOT NULL REFERENCES posts(id),
        PRIMARY KEY (kind, key, post_id)
    ) WITHOUT ROWID;
    -- One row per entry, named by the lowest post id among its forms: its Atom id (entry_id)
    -- can be shared by other entries, such as posts that all name one front page canonical.
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        entry_id TEXT NOT NULL,
        -- When its first form was seen, and when it was published, as UTC ISO text with
        -- microseconds, whose text order is time order: the feeds and digests sort on them.
        arrived TEXT NOT NULL,
        published TEXT NOT NULL,
        updated TEXT NOT NULL,
        -- The post ids of its forms, primary first, as a JSON list.
        forms TEXT NOT NULL
    );
    CREATE INDEX entries_history ON entries (arrived, published, entry_id, id);
    CREATE INDEX entries_atom_id ON entries (entry_id);
    CREATE TABLE entry_forms (
        post_id INTEGER PRIMARY KEY REFERENCES posts(id),
        entry INTEGER NOT NULL REFERENCES entries(id)
    );
    CREATE INDEX entry_forms_entry ON entry_forms (entry);
    -- Posts saved since their last grouping, with the URL and summary they were grouped
    -- with (NULL for a post never grouped): its keys in form_keys come from those.
    CREATE TABLE ungrouped (
        post_id INTEGER PRIMARY KEY REFERENCES posts(id),
        url TEXT,
        summary TEXT
    );
    INSERT INTO ungrouped (post_id) SELECT id FROM posts;
    -- What the archive's pages were last written with. 'history changed from': the first
    -- position in the entries' history (their order of arrival, which feed pages slice) that
    -- a regrouping may have changed since the feed pages were last written; 'feed settings':
    -- the fingerprint of what else they depend on (atom.feed_settings).
    CREATE TABLE archive_marks (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    -- The fingerprints of the pages a build writes only when they change, not feed pages alone.
    ALTER TABLE feed_pages RENAME TO archive_pages;
    """,
    # Forms of different sources join on an address or the very same text only, never on
    # links or content alone (entries.py): the keys change, so the grouping is dropped and
    # every post waits to be grouped again, as in a first build (entry ids stay: they come from
    # each entry's earliest form). A post's text hash is kept with the version last grouped,
    # as its keys now include it.
    7: """
    ALTER TABLE ungrouped ADD COLUMN content_hash TEXT;
    DELETE FROM form_keys;
    DELETE FROM entry_forms;
    DELETE FROM entries;
    DELETE FROM ungrouped;
    INSERT INTO ungrouped (post_id) SELECT id FROM posts;
    """,
    # Posts a source's first collection found while its backlog is "skip": seen, in the
    # feeds, never a digest's news.
    8: """
    CREATE TABLE backlog_posts (
        post_id INTEGER PRIMARY KEY REFERENCES posts(id)
    );
    """,
    # The text of a post not fetched from the web, which may have no address of its own (a
    # draft, a translation naming its original): its page in the archive shows it then. A
    # post saved before stays without one until it changes.
    9: """
    ALTER TABLE posts ADD COLUMN text TEXT;
    """,
    # Posts a source's filter skips (config/filters.py), with why: kept and listed, but out
    # of the grouping, so in no entry, feed, digest or page. The filters they were decided
    # with are fingerprinted in archive_marks ('title filters'); a post a filter change lets
    # back in after a digest was made since it last changed joins backlog_posts: in the
    # feeds, not in the next digest, as the news of its time has gone out (an edit since is news).
    10: """
    CREATE TABLE skipped_posts (
        post_id INTEGER PRIMARY KEY REFERENCES posts(id),
        reason TEXT NOT NULL
    );
    """,
    # Subscriber slices (publish/slices.py). Each subscriber's choice, as models.Slice JSON
    # (NULL: everything). Each digest's snapshot, what a slice is rendered from at send time
    # (state/digest_copies.py says why), and the copies rendered for each distinct slice.
    # An outbox row may now end 'empty': the subscriber's slice of that digest held nothing.
    11: """
    ALTER TABLE subscribers ADD COLUMN slice TEXT;
    ALTER TABLE digest_copies ADD COLUMN preferences_slot TEXT;
    CREATE TABLE digest_snapshots (
        digest_id INTEGER PRIMARY KEY REFERENCES digests(id),
        -- The graduations its entries made, as JSON.
        graduations TEXT NOT NULL
    );
    -- A row per entry, so that a first build's digest of thousands is written one at a time.
    CREATE TABLE digest_snapshot_entries (
        digest_id INTEGER NOT NULL REFERENCES digests(id),
        position INTEGER NOT NULL,
        -- Every form with its summary, as JSON.
        entry TEXT NOT NULL,
        PRIMARY KEY (digest_id, position)
    );
    CREATE TABLE digest_slices (
        digest_id INTEGER NOT NULL REFERENCES digests(id),
        -- models.Slice.key()
        slice TEXT NOT NULL,
        subject TEXT NOT NULL,
        text TEXT NOT NULL,
        html TEXT NOT NULL,
        unsubscribe_slot TEXT NOT NULL,
        preferences_slot TEXT,
        PRIMARY KEY (digest_id, slice)
    );
    """,
    # The outbox of chat and webhook deliveries ([[deliveries]]): one row per digest and
    # delivery, holding the request body made when it was queued, so a retry sends the same
    # bytes under the same idempotency key. state: queued -> pending (being posted) -> sent |
    # failed (refused for good) | deferred (to try again) | skipped (nothing to post).
    12: """
    CREATE TABLE deliveries (
        digest_id INTEGER NOT NULL REFERENCES digests(id),
        -- The delivery's name in the config.
        delivery TEXT NOT NULL,
        -- The idempotency key (webhook) or transaction id (Matrix) of this digest's post.
        key TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        updated TEXT NOT NULL,
        error TEXT,
        PRIMARY KEY (digest_id, delivery)
    );
    """,
    # Texts the summarizer gave up on (over its time budget), by hash: skipped until they
    # change, and reported once. A post whose file was renamed keeps its row, its location
    # moving; first_location keeps where it was first read (NULL: its location), which its
    # entry's id names.
    13: """
    CREATE TABLE over_budget (
        content_hash TEXT PRIMARY KEY,
        -- Where the text was met first, and when.
        location TEXT NOT NULL,
        seen TEXT NOT NULL
    );
    ALTER TABLE posts ADD COLUMN first_location TEXT;
    """,
    # Each project of the feature pages as last written: the fingerprint of its releases
    # (what its page was written from), its row of features.html and its newest changes of
    # label for features.atom (JSON), so a build reads the history of a changed project only.
    14: """
    CREATE TABLE feature_projects (
        -- The project's name, casefolded: the histories group by it.
        project TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        summary TEXT NOT NULL,
        changes TEXT NOT NULL
    );
    """,
    # Outbox claims (state/outbox_claims.py), so that several senders share one mailing: the
    # sender that holds a message (NULL: none), and until when its claim holds unless renewed.
    15: """
    ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
    ALTER TABLE outbox ADD COLUMN lease_until TEXT;
    """,
    # What the feature pages last read of each entry (publish/feature_pages.py): its project
    # and the stamp of its primary form, so that a build reads the summaries of the entries
    # that changed only; and each project's row of features.html as HTML, so that the index
    # is written without rendering the rows of projects that did not change.
    16: """
    CREATE TABLE feature_entries (
        entry INTEGER PRIMARY KEY,
        -- Casefolded, as feature_projects names it; NULL: the entry names no feature.
        project TEXT,
        source TEXT NOT NULL,
        title TEXT,
        stamp TEXT NOT NULL
    );
    CREATE INDEX feature_entries_project ON feature_entries (project);
    ALTER TABLE feature_projects ADD COLUMN row_html TEXT;
    """,
    # The entries whose record in feature_entries may be out of date: every write that can
    # move an entry's stamp logs the entry (these triggers), and the feature pages read those
    # only, emptying the log as they record them; a build no longer compares every entry's
    # stamp. The log starts with every entry, so that the first build checks them all. And
    # the posts no digest carried and no first collection skipped as backlog, kept by
    # triggers too, so that the next digest's news is found among them, not among every entry.
    # And posts.atom's items, so that a build makes only those of the entries that changed.
    17: f"""
    CREATE TABLE touched_entries (
        entry INTEGER PRIMARY KEY
    );
    INSERT INTO touched_entries (entry) SELECT id FROM entries UNION SELECT entry FROM feature_entries;
    -- NOT EXISTS, not OR IGNORE: a trigger takes the conflict policy of the statement that
    -- fired it (an upsert's is ABORT).
    CREATE TRIGGER entries_inserted AFTER INSERT ON entries BEGIN
        {_entry_touched('NEW')}
    END;
    CREATE TRIGGER entries_updated AFTER UPDATE ON entries BEGIN
        {_entry_touched('OLD')}
        {_entry_touched('NEW')}
    END;
    CREATE TRIGGER entries_deleted AFTER DELETE ON entries BEGIN
        {_entry_touched('OLD')}
    END;
    -- The columns of a post a stamp holds, or that find its validators.
    CREATE TRIGGER posts_updated AFTER UPDATE OF url, changed, first_seen, source, location ON posts BEGIN
        INSERT INTO touched_entries (entry) SELECT entry FROM entry_forms
            WHERE post_id = NEW.id AND entry NOT IN (SELECT entry FROM touched_entries);
    END;
    CREATE TRIGGER validators_inserted AFTER INSERT ON validators BEGIN
        {_file_entries_touched('NEW')}
    END;
    CREATE TRIGGER validators_updated AFTER UPDATE OF etag ON validators WHEN OLD.etag IS NOT NEW.etag BEGIN
        {_file_entries_touched('NEW')}
    END;
    CREATE TRIGGER validators_deleted AFTER DELETE ON validators BEGIN
        {_file_entries_touched('OLD')}
    END;
    DELETE FROM archive_marks WHERE name = 'features stamp';
    CREATE TABLE undigested_posts (
        post_id INTEGER PRIMARY KEY REFERENCES posts(id)
    );
    INSERT INTO undigested_posts (post_id) SELECT id FROM posts
        WHERE id NOT IN (SELECT post_id FROM digest_posts UNION SELECT post_id FROM backlog_posts);
    CREATE TRIGGER posts_inserted AFTER INSERT ON posts BEGIN
        INSERT INTO undigested_posts (post_id) VALUES (NEW.id);
    END;
    CREATE TRIGGER digest_posts_inserted AFTER INSERT ON digest_posts BEGIN
        DELETE FROM undigested_posts WHERE post_id = NEW.post_id;
    END;
    CREATE TRIGGER backlog_posts_inserted AFTER INSERT ON backlog_posts BEGIN
        DELETE FROM undigested_posts WHERE post_id = NEW.post_id;
    END;
    -- posts.atom's items as last written (state/feed_item_cache.py), by entry key.
    CREATE TABLE feed_item_cache (
        entry INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        published TEXT NOT NULL,
        item TEXT NOT NULL
    );
    """,
    # Each kept item's element in posts.atom, and each entry of digests.atom
    # (state/digest_feed_entries.py), so that a build makes only the new ones.
    18: """
    ALTER TABLE feed_item_cache ADD COLUMN atom TEXT;
    CREATE TABLE digest_feed_entries (
        digest INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        atom TEXT NOT NULL
    );
    """,
}
SCHEMA_VERSION = max(MIGRATIONS)


def migrate(db: sqlite3.Connection, name: str) -> None:
    """Bring the database to SCHEMA_VERSION in one transaction."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    check_version(name, version)
    if version == SCHEMA_VERSION:
        return
    steps = "".join(MIGRATIONS[n] for n in range(max(version, 1) + 1, SCHEMA_VERSION + 1))
    # A new file, and a file from before schema versions, start from the baseline.
    baseline = BASELINE if version == 0 else ""
    db.executescript(f"BEGIN IMMEDIATE; {baseline} {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")


def check_version(name: str, version: int) -> None:
    """Refuse a database made by a newer newsletter, whose tables this one would misread."""
    if version > SCHEMA_VERSION:
        raise StoreError(f"{name}: the state database has schema version {version}, made by a newer"
                         f" newsletter; this one reads versions up to {SCHEMA_VERSION}")
