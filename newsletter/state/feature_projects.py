"""The feature_projects table (see schema.py): what each project's feature page was last
written from, with the row (as JSON and as HTML) and the feed entries that page gives
features.html and features.atom. Each is read alone, so that a build reads the whole of a
project's record only when its page changes."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from newsletter.state.store import Store

# The initial of projects whose name starts with no letter from a to z: a digit, another script.
OTHER_INITIAL = "other"


@dataclass(frozen=True)
class WrittenProject:
    fingerprint: str
    # Plain JSON values, as publish/features.py makes and reads them.
    summary: dict[str, Any]
    changes: list[dict[str, Any]]
    # Its row of features.html.
    row_html: str


def fingerprints(store: Store, projects: Collection[str] | None = None) -> dict[str, str]:
    """The fingerprint of each project recorded (of these, by casefolded name, if given)."""
    chosen = "" if projects is None else f"WHERE project IN ({store.db.dialect.texts})"
    return dict(store.db.execute(f"SELECT project, fingerprint FROM feature_projects {chosen}",
                                 () if projects is None else (json.dumps(sorted(projects)),)))


def summaries(store: Store, projects: Collection[str] | None = None) -> dict[str, dict[str, Any]]:
    """The row of features.html each of these projects (every project, if None) was last
    written with, as JSON, by casefolded name."""
    chosen = "" if projects is None else f"WHERE project IN ({store.db.dialect.texts})"
    return {project: json.loads(summary) for project, summary in store.db.execute(
        f"SELECT project, summary FROM feature_projects {chosen}",
        () if projects is None else (json.dumps(sorted(projects)),))}


def rows_html(store: Store, initial: str | None = None) -> dict[str, str | None]:
    """Every project's row of features.html (of those listed under `initial`, if given), by
    casefolded name in order; None for a record written before rows were kept as HTML."""
    chosen, values = ("", ()) if initial is None else _initial_range(initial)
    return dict(store.db.execute(f"SELECT project, row_html FROM feature_projects {chosen} ORDER BY project", values))


def initials(store: Store) -> dict[str, int]:
    """How many projects each initial lists (see `initial_of`), in order."""
    listed = dict(store.db.execute(
        f"SELECT CASE WHEN project >= 'a' AND project < '{{' THEN substr(project, 1, 1) ELSE '{OTHER_INITIAL}' END"
        " AS initial, count(*) FROM feature_projects GROUP BY initial"))
    return {initial: listed[initial] for initial in sorted(listed, key=lambda i: (i == OTHER_INITIAL, i))}


def initial_of(project: str) -> str:
    """The initial a project (by casefolded name) is listed under once features.html is paged."""
    return project[:1] if "a" <= project[:1] <= "z" else OTHER_INITIAL


def _initial_range(initial: str) -> tuple[str, tuple[str, ...]]:
    """The WHERE clause choosing the projects listed under `initial`, and its values: a range
    of names, as both databases compare these names by code point ('{' follows 'z')."""
    if initial == OTHER_INITIAL:
        return "WHERE project < ? OR project >= ?", ("a", "{")
    return "WHERE project >= ? AND project < ?", (initial, chr(ord(initial) + 1))


def changes(store: Store) -> list[dict[str, Any]]:
    """The changes every project gives features.atom."""
    return [change for (listed,) in store.db.execute("SELECT changes FROM feature_projects WHERE changes <> '[]'")
            for change in json.loads(listed)]


def record(store: Store, pages: Mapping[str, WrittenProject]) -> None:
    """Called once these projects' pages (by casefolded name) are written."""
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO feature_projects (project, fingerprint, summary, changes, row_html) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (project) DO UPDATE SET fingerprint = excluded.fingerprint,"
            " summary = excluded.summary, changes = excluded.changes, row_html = excluded.row_html",
            [(project, page.fingerprint, json.dumps(page.summary, sort_keys=True),
              json.dumps(page.changes, sort_keys=True), page.row_html) for project, page in pages.items()],
        )


def record_rows_html(store: Store, rows: Mapping[str, str]) -> None:
    with store.transaction() as db:
        db.executemany("UPDATE feature_projects SET row_html = ? WHERE project = ?",
                       [(html, project) for project, html in rows.items()])


def forget(store: Store, projects: Collection[str]) -> None:
    with store.transaction() as db:
        db.execute(f"DELETE FROM feature_projects WHERE project IN ({db.dialect.texts})",
                   (json.dumps(sorted(projects)),))
