"""The feature_entries table (see schema.py): what the feature pages last read of each entry
(the project of its primary form, casefolded, and the stamp that changes whenever its
appearance could), so that a build reads again the summaries of the entries whose stamp
moved only, and finds a project's releases without reading any summary.

Entry keys and project names travel to the database as one JSON list (the dialect's `ids`
and `texts`), so a list of any length is one parameter.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from newsletter.models import ReleaseStamp
from newsletter.state.store import Store


@dataclass(frozen=True)
class EntryRead:
    """An entry as the feature pages read it from its primary form."""

    release: ReleaseStamp
    # Whether its primary form names features (an entry naming none has no project).
    names_features: bool


def changed(store: Store, *, every_entry: bool) -> list[EntryRead]:
    """The entries whose stamp differs from the one recorded, or that have none recorded;
    every entry with `every_entry`. Only these rows' summaries are read."""
    sql = store.db.dialect
    stamp = sql.json_list("e.entry_id", "e.updated", "e.forms", "p.url", "p.changed", "p.first_seen", "v.etag")
    recorded = "" if every_entry else "LEFT JOIN feature_entries AS f ON f.entry = e.id"
    moved = "" if every_entry else f"WHERE f.stamp IS NULL OR f.stamp <> {stamp}"
    rows = store.db.execute(
        f"""SELECT e.id, p.source, {sql.json_text('p.summary', 'title')},
                  coalesce({sql.list_length('p.summary', 'features')}, 0), {stamp}
           FROM entries AS e JOIN posts AS p ON p.id = {sql.first_id('e.forms')}
           LEFT JOIN validators AS v ON v.source = p.source AND v.location = p.location
           {recorded} {moved} ORDER BY e.id"""
    )
    return [EntryRead(ReleaseStamp(key, source, title, stamp), features > 0)
            for key, source, title, features, stamp in rows]


def gone(store: Store) -> dict[int, str | None]:
    """The entries recorded that are no entries any more, with their recorded project."""
    return dict(store.db.execute(
        "SELECT entry, project FROM feature_entries WHERE entry NOT IN (SELECT id FROM entries)"))


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


def record(store: Store, read: Mapping[int, tuple[str | None, EntryRead]], gone: Collection[int], *,
           every_entry: bool) -> None:
    """Record what was read of these entries (with their project) and forget the entries
    gone, in one transaction; with `every_entry`, `read` replaces every record."""
    with store.transaction() as db:
        if every_entry:
            db.execute("DELETE FROM feature_entries")
        else:
            db.execute(f"DELETE FROM feature_entries WHERE entry IN ({db.dialect.ids})", (_json([*read, *gone]),))
        db.executemany(
            "INSERT INTO feature_entries (entry, project, source, title, stamp) VALUES (?, ?, ?, ?, ?)",
            [(key, project, entry.release.source, entry.release.title, entry.release.stamp)
             for key, (project, entry) in read.items()],
        )


def _json(values: Iterable[int | str]) -> str:
    return json.dumps(list(values))
