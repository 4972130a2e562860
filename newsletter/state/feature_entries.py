"""The feature_entries table (see schema.py): what the feature pages last read of each entry
(the project of its primary form, casefolded, and the stamp that changes whenever its
appearance could), so that a build reads again the summaries of the entries whose stamp
moved only, and finds a project's releases without reading any summary. Which stamps may
have moved is known from the touched_entries log, so that a build compares those only.

Entry keys and project names travel to the database as one JSON list (the dialect's `ids`
and `texts`), so a list of any length is one parameter.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from newsletter.models import ReleaseStamp
from newsletter.state.database import Dialect
from newsletter.state.store import Store


@dataclass(frozen=True)
class EntryRead:
    """An entry as the feature pages read it from its primary form."""

    release: ReleaseStamp
    # Whether its primary form names features (an entry naming none has no project).
    names_features: bool


def touched(store: Store) -> set[int]:
    """The entries logged since the records were last brought up to date (the touched_entries
    table, which triggers fill: see schema.py): no other entry's stamp can have moved."""
    return {entry for (entry,) in store.db.execute("SELECT entry FROM touched_entries")}


def _stamp(sql: Dialect) -> str:
    """An entry's stamp, over _STAMPED: whatever the feature pages read of it moves it."""
    return sql.json_list("e.entry_id", "e.updated", "e.forms", "p.source", "p.url", "p.changed", "p.first_seen",
                         "v.etag")


def _stamped(sql: Dialect) -> str:
    """Each entry with its primary form and that form's file validators."""
    return f"""entries AS e JOIN posts AS p ON p.id = {sql.first_id('e.forms')}
           LEFT JOIN validators AS v ON v.source = p.source AND v.location = p.location"""


def changed(store: Store, keys: Collection[int] | None) -> list[EntryRead]:
    """Those of the entries named by `keys` whose stamp differs from the one recorded, or
    that have none recorded; every entry with None. Only these rows' summaries are read."""
    if keys is not None and not keys:
        return []
    sql = store.db.dialect
    chosen = "" if keys is None else f"""LEFT JOIN feature_entries AS f ON f.entry = e.id
        WHERE e.id IN ({sql.ids}) AND (f.stamp IS NULL OR f.stamp <> {_stamp(sql)})"""
    rows = store.db.execute(
        f"""SELECT e.id, p.source, {sql.json_text('p.summary', 'title')},
                  coalesce({sql.list_length('p.summary', 'features')}, 0), {_stamp(sql)}
           FROM {_stamped(sql)} {chosen} ORDER BY e.id""",
        () if keys is None else (_json(keys),),
    )
    return [EntryRead(ReleaseStamp(key, source, title, stamp), features > 0)
            for key, source, title, features, stamp in rows]


def gone(store: Store, keys: Collection[int]) -> dict[int, str | None]:
    """Those of the entries named by `keys` that are recorded and are no entries any more,
    with their recorded project."""
    if not keys:
        return {}
    return dict(store.db.execute(
        f"""SELECT entry, project FROM feature_entries AS f WHERE entry IN ({store.db.dialect.ids})
            AND NOT EXISTS (SELECT 1 FROM entries AS e WHERE e.id = f.entry)""", (_json(keys),)))


def projects_of(store: Store, keys: Iterable[int]) -> dict[int, str | None]:
    """The recorded project of each of these entries that has a record."""
    return dict(store.db.execute(
        f"SELECT entry, project FROM feature_entries WHERE entry IN ({store.db.dialect.ids})", (_json(keys),)))


def releases_of(store: Store, projects: Collection[str]) -> list[tuple[str, ReleaseStamp]]:
    """The recorded releases of these projects, each with its project, by entry key."""
    rows = store.db.execute(
        f"""SELECT entry, project, source, title, stamp FROM feature_entries
            WHERE project IN ({store.db.dialect.texts}) ORDER BY entry""",
        (_json(sorted(projects)),),
    )
    return [(project, ReleaseStamp(key, source, title, stamp)) for key, project, source, title, stamp in rows]


def record(store: Store, read: Mapping[int, tuple[str | None, EntryRead]], gone: Collection[int],
           touched: Collection[int] | None) -> None:
    """Record what was read of these entries (with their project) and forget the entries
    gone, in one transaction, taking the entries `touched` (those read from the log) out of
    the log; with None, `read` replaces every record and the log is emptied. An entry whose
    stamp moved again since it was read (another writer's) stays in the log."""
    with store.transaction() as db:
        sql = db.dialect
        if touched is None:
            db.execute("DELETE FROM feature_entries")
            db.execute("DELETE FROM touched_entries")
        else:
            db.execute(f"DELETE FROM feature_entries WHERE entry IN ({sql.ids})", (_json([*read, *gone]),))
        db.executemany(
            "INSERT INTO feature_entries (entry, project, source, title, stamp) VALUES (?, ?, ?, ?, ?)",
            [(key, project, entry.release.source, entry.release.title, entry.release.stamp)
             for key, (project, entry) in read.items()],
        )
        if touched is not None:
            db.execute(
                f"""DELETE FROM touched_entries WHERE entry IN ({sql.ids}) AND entry NOT IN (
                        SELECT e.id FROM {_stamped(sql)} JOIN feature_entries AS f ON f.entry = e.id
                        WHERE e.id IN ({sql.ids}) AND f.stamp <> {_stamp(sql)})""",
                (_json(touched), _json(touched)),
            )


def _json(values: Iterable[int | str]) -> str:
    return json.dumps(list(values))
