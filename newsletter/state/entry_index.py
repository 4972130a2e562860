"""The grouping of posts into entries as the state database keeps it: each post's form keys
(an index from key to posts), each entry's forms, and the posts saved since the last
grouping. regroup.py reads it to regroup only what changed; the publishers read entries
from it a page at a time, loading only the summaries that page shows.

Post ids travel to the database as one JSON list (the dialect's `ids`), so a list of any
length is one parameter.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import overload

from newsletter.models import (
    KEY_KINDS,
    Appearance,
    Entry,
    EntryStamp,
    Feature,
    FormKeys,
    KeyKind,
    Regrouping,
    StoredPost,
    Summary,
    Waiting,
)
from newsletter.state.store import Store


class EntryIndex:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db
        self.sql = store.db.dialect

    # -- what regroup.py reads -------------------------------------------------------------

    def holders_of(self, kind: KeyKind, keys: Collection[str], limit: int) -> dict[str, list[int] | None]:
        """The posts holding each of `keys`, None for a key more than `limit` posts hold; in
        one query (a first build's turn asks for hundreds of thousands of keys)."""
        held: dict[str, list[int]] = {key: [] for key in keys}
        for key, post_id in self.db.execute(
            f"""SELECT key, post_id FROM (
                    SELECT key, post_id, row_number() OVER (PARTITION BY key ORDER BY post_id) AS n
                    FROM form_keys WHERE kind = ? AND key IN ({self.sql.texts})) AS ranked
                WHERE n <= ?""",
            (kind, _json(keys), limit + 1),
        ):
            held[key].append(post_id)
        return {key: None if len(ids) > limit else ids for key, ids in held.items()}

    def ungrouped(self, limit: int) -> list[Waiting]:
        """The first `limit` posts saved since their last grouping, by id, each with the
        version of it last grouped (None for a post never grouped), and whether a filter
        skips it (it leaves the grouping)."""
        grouped = {post_id: (url, summary, content_hash) for post_id, url, summary, content_hash in self.db.execute(
            "SELECT post_id, url, summary, content_hash FROM ungrouped ORDER BY post_id LIMIT ?", (limit,),
        )}
        skipped = {post_id for (post_id,) in self.db.execute(
            f"SELECT post_id FROM skipped_posts WHERE post_id IN ({self.sql.ids})", (_json(grouped),))}
        return [Waiting(post, _as_grouped(post, *grouped[post.id]), post.id in skipped)
                for post in self.store.posts(grouped)]

    def posts(self, ids: Collection[int]) -> list[StoredPost]:
        """The posts with these ids as they were last grouped."""
        grouped = {post_id: (url, summary, content_hash) for post_id, url, summary, content_hash in self.db.execute(
            f"""SELECT post_id, url, summary, content_hash FROM ungrouped
                WHERE post_id IN ({self.sql.ids}) AND summary IS NOT NULL""",
            (_json(ids),),
        )}
        return [_as_grouped(post, *grouped[post.id]) or post if post.id in grouped else post
                for post in self.store.posts(ids)]

    def entry_forms(self, post_ids: Collection[int]) -> dict[int, list[int]]:
        forms: dict[int, list[int]] = {}
        for entry, post_id in self.db.execute(
            f"""SELECT entry, post_id FROM entry_forms WHERE entry IN
                (SELECT entry FROM entry_forms WHERE post_id IN ({self.sql.ids})) ORDER BY entry, post_id""",
            (_json(post_ids),),
        ):
            forms.setdefault(entry, []).append(post_id)
        return forms

    # -- the one write ---------------------------------------------------------------------

    def save(self, regrouping: Regrouping) -> None:
        """Record a regrouping in one transaction: the entries it replaces go, its entries and
        the saved posts' keys come in, those posts are grouped, and the feed pages are marked
        to be checked from the first place in the history where an entry left or came."""
        saved = _json(regrouping.keys)
        replaced = _json(regrouping.replaced)
        rows = [_entry_row(entry) for entry in regrouping.entries]
        with self.store.transaction() as db:
            first = min([
                *db.execute(f"SELECT {_HISTORY_ORDER} FROM entries WHERE id IN ({self.sql.ids})", (replaced,)),
                *((arrived, published, entry_id, key) for key, entry_id, arrived, published, _, _ in rows),
            ], default=None)
            db.execute(f"DELETE FROM entry_forms WHERE entry IN ({self.sql.ids})", (replaced,))
            db.execute(f"DELETE FROM entries WHERE id IN ({self.sql.ids})", (replaced,))
            db.executemany("DELETE FROM form_keys WHERE kind = ? AND key = ? AND post_id = ?",
                           _key_rows(regrouping.old_keys))
            # In key order, which fills the index's pages as it goes (a first build adds
            # hundreds of thousands of keys).
            db.executemany("INSERT INTO form_keys (kind, key, post_id) VALUES (?, ?, ?)",
                           sorted(_key_rows(regrouping.keys)))
            db.executemany("INSERT INTO entries (id, entry_id, arrived, published, updated, forms)"
                           " VALUES (?, ?, ?, ?, ?, ?)", rows)
            db.executemany(
                "INSERT INTO entry_forms (post_id, entry) VALUES (?, ?)",
                ((form.id, _key(entry)) for entry in regrouping.entries for form in entry.forms),
            )
            db.execute(f"DELETE FROM ungrouped WHERE post_id IN ({self.sql.ids})", (saved,))
            if first is not None:
                # Every entry before `first` keeps its place, and the pages holding it stand.
                (position,) = db.execute(
                    f"SELECT count(*) FROM entries WHERE ({_HISTORY_ORDER}) < (?, ?, ?, ?)", first,
                ).fetchone()
                db.execute(
                    "INSERT INTO archive_marks (name, value) VALUES ('history changed from', ?) ON CONFLICT (name)"
                    f" DO UPDATE SET value = CAST({self.sql.least}(CAST(archive_marks.value AS INTEGER),"
                    " CAST(excluded.value AS INTEGER)) AS TEXT)",
                    (str(position),),
                )

    # -- what the digest and the publishers read -------------------------------------------

    def entries_by_key(self, keys: Iterable[int]) -> dict[int, Entry]:
        rows = self.db.execute(
            f"SELECT id, entry_id, forms FROM entries WHERE id IN ({self.sql.ids})", (_json(keys),),
        ).fetchall()
        forms = {key: (entry_id, json.loads(ids)) for key, entry_id, ids in rows}
        posts = {post.id: post for post in self.store.posts([i for _, ids in forms.values() for i in ids])}
        return {
            key: Entry(entry_id, primary=posts[ids[0]], alternates=tuple(posts[i] for i in ids[1:]))
            for key, (entry_id, ids) in forms.items()
        }

    def carrying(self, post_ids: Collection[int]) -> list[EntryStamp]:
        """The entries with one of `post_ids` among their forms, newest first (by publication,
        then entry id, then lowest post id), read without their summaries: a first build's
        digest carries every post."""
        return self._newest_first(f"id IN (SELECT entry FROM entry_forms WHERE post_id IN ({self.sql.ids}))",
                                  (_json(post_ids),))

    def news(self) -> list[EntryStamp]:
        """The entries the next digest carries, newest first: those none of whose forms a
        digest carried or a source's first collection skipped as backlog. A new form of
        such an entry (a translation of a post mailed already, a copy in another source, its
        source renamed) updates it; it is no news."""
        # Among the entries of the posts no digest carried (undigested_posts, see schema.py),
        # not every entry.
        return self._newest_first(
            """id IN (SELECT entry FROM entry_forms WHERE post_id IN (SELECT post_id FROM undigested_posts))
               AND NOT EXISTS (SELECT 1 FROM entry_forms AS f WHERE f.entry = entries.id
                               AND f.post_id NOT IN (SELECT post_id FROM undigested_posts))""",
        )

    def published_between(self, start: datetime | None, end: datetime | None) -> list[EntryStamp]:
        """The entries published from `start` up to (not including) `end`, newest first;
        None leaves that side open."""
        since = _sortable(start) if start else ""
        if end is None:
            return self._newest_first("published >= ?", (since,))
        return self._newest_first("published >= ? AND published < ?", (since, _sortable(end)))

    def _newest_first(self, where: str, parameters: tuple[object, ...] = ()) -> list[EntryStamp]:
        """The stamps of the entries `where` holds for, by publication, then entry id, then
        lowest post id: the order a digest lists them in."""
        return [_stamp(row) for row in self.db.execute(
            f"SELECT id, entry_id, updated, forms FROM entries WHERE {where} ORDER BY published DESC, entry_id, id",
            parameters,
        )]

    def loaded(self, stamps: Sequence[EntryStamp]) -> Sequence[Entry]:
        """The entries of `stamps`, in their order, loaded a chunk at a time as they are read."""
        return _LoadedAsRead(self, [stamp.key for stamp in stamps])

    def history(self, start: int, stop: int) -> list[EntryStamp]:
        """The entries at positions start..stop-1 of the history, in its order: by when they
        were first seen, then (entries first seen together, in a first build) by publication."""
        return [_stamp(row) for row in self.db.execute(
            f"SELECT id, entry_id, updated, forms FROM entries ORDER BY {_HISTORY_ORDER} LIMIT ? OFFSET ?",
            (max(stop - start, 0), start),
        )]

    def entry_count(self) -> int:
        (count,) = self.db.execute("SELECT count(*) FROM entries").fetchone()
        return int(count)

    def history_changed_from(self) -> int | None:
        """The first position of the history a regrouping may have changed since the feed
        pages were last written (the mark is cleared once they are), if any."""
        value = self.store.archive_mark("history changed from")
        return int(value) if value is not None else None

    def digest_entries(self, digest_id: int) -> Sequence[Entry]:
        """The entries a digest carried, as they are now, in its order; one whose entry id
        no entry has any more is left out. Loaded as they are read."""
        keys = [row[0] for row in self.db.execute(
            f"SELECT ({_RESOLVED}) FROM digest_entries AS d WHERE digest_id = ? ORDER BY position", (digest_id,),
        )]
        return _LoadedAsRead(self, [key for key in keys if key is not None])

    def digest_entry_counts(self, digest_ids: Collection[int]) -> dict[int, int]:
        """How many of each digest's entries digest_entries would give."""
        counts = dict.fromkeys(digest_ids, 0)
        counts.update(self.db.execute(
            f"""SELECT digest_id, count(*) FROM digest_entries AS d WHERE digest_id IN ({self.sql.ids})
                AND EXISTS (SELECT 1 FROM entries AS e WHERE e.entry_id = d.entry_id) GROUP BY digest_id""",
            (_json(digest_ids),),
        ))
        return counts

    def digest_stamps(self, digest_ids: Collection[int]) -> list[EntryStamp]:
        """The stamps of the entries these digests carry now, as digest_entries finds them."""
        return [_stamp(row) for row in self.db.execute(
            f"""SELECT e.id, e.entry_id, e.updated, e.forms FROM digest_entries AS d
                JOIN entries AS e ON e.id = ({_RESOLVED})
                WHERE d.digest_id IN ({self.sql.ids}) ORDER BY d.digest_id, d.position""",
            (_json(digest_ids),),
        )]


    # -- what the feature histories read -------------------------------------------------

    def appearances(self, keys: Collection[int] | None = None) -> list[Appearance]:
        """Every entry's title, date and features (or those of the entries named by `keys`),
        from its primary form: SQLite picks them out of the stored summaries, so no bullet or
        link is decoded."""
        chosen = "" if keys is None else f"WHERE e.id IN ({self.sql.ids})"
        field = self.sql.json_text
        rows = self.db.execute(
            f"""SELECT e.id, e.entry_id, coalesce({field('p.summary', 'canonical_url')}, p.url), p.source,
                      {field('p.summary', 'title')}, {field('p.summary', 'published')},
                      p.first_seen, v.etag, {field('p.summary', 'features')}
               FROM entries AS e JOIN posts AS p ON p.id = {self.sql.first_id('e.forms')}
               LEFT JOIN validators AS v ON v.source = p.source AND v.location = p.location
               {chosen} ORDER BY e.id""",
            () if keys is None else (_json(keys),),
        )
        return [
            Appearance(
                key=key, entry_id=entry_id, url=url, source=source, title=title,
                published=datetime.fromisoformat(published) if published else None,
                seen=_file_time(etag) or datetime.fromisoformat(first_seen),
                features=tuple(Feature(f["heading"], f.get("stability"), f.get("section"))
                               for f in json.loads(features or "[]")),
            )
            for key, entry_id, url, source, title, published, first_seen, etag, features in rows
        ]


# The history's order, on the entries_history index.
_HISTORY_ORDER = "arrived, published, entry_id, id"
# A digest names its entries by entry id, which several entries may share (see the entries
# table): the one meant is the last of them newest-first, as a lookup by id over the entries
# in that order always found.
_RESOLVED = "SELECT r.id FROM entries AS r WHERE r.entry_id = d.entry_id ORDER BY r.published, r.id DESC LIMIT 1"


def _as_grouped(post: StoredPost, url: str | None, summary: str | None, content_hash: str | None) -> StoredPost | None:
    """The post with the address, summary and text it was last grouped with, if it ever was."""
    return replace(post, url=url, summary=Summary.from_json(json.loads(summary)),
                   content_hash=content_hash or post.content_hash) if summary else None


class _LoadedAsRead(Sequence[Entry]):
    """Entries named by their keys, loaded a chunk at a time as they are read and not kept:
    a first build's digest carries every post, whose summaries need not be held at once."""

    CHUNK = 200

    def __init__(self, index: EntryIndex, keys: list[int]) -> None:
        self.entry_index, self.keys = index, keys

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, at: int) -> Entry: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[Entry]: ...

    def __getitem__(self, at: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(at, slice):
            return self._load(self.keys[at])
        return self._load([self.keys[at]])[0]

    def __iter__(self) -> Iterator[Entry]:
        for start in range(0, len(self.keys), self.CHUNK):
            yield from self._load(self.keys[start:start + self.CHUNK])

    def _load(self, keys: list[int]) -> list[Entry]:
        by_key = self.entry_index.entries_by_key(keys)
        return [by_key[key] for key in keys]


def _key(entry: Entry) -> int:
    return min(form.id for form in entry.forms)


def _key_rows(keys: Mapping[int, FormKeys]) -> Iterator[tuple[KeyKind, str, int]]:
    for post_id, post_keys in keys.items():
        for kind in KEY_KINDS:
            for key in post_keys.of(kind):
                yield kind, key, post_id


def _entry_row(entry: Entry) -> tuple[int, str, str, str, str, str]:
    return (
        _key(entry), entry.id, _sortable(min(form.first_seen for form in entry.forms)),
        _sortable(entry.published), entry.updated.isoformat(), json.dumps([form.id for form in entry.forms]),
    )


def _stamp(row: tuple[int, str, str, str]) -> EntryStamp:
    key, entry_id, updated, forms = row
    return EntryStamp(key, entry_id, datetime.fromisoformat(updated), tuple(json.loads(forms)))


def _sortable(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _json(ids: Iterable[int | str]) -> str:
    return json.dumps(list(ids))


def _file_time(etag: str | None) -> datetime | None:
    """The modification time in a post file's validators, which sources/folder.py writes as
    "<size>-<mtime in ns>"; None for a web document's."""
    size, _, nanoseconds = (etag or "").partition("-")
    if not (size.isdigit() and nanoseconds.isdigit()):
        return None
    return datetime.fromtimestamp(int(nanoseconds) / 1e9, UTC)
