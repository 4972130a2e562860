"""The feature_projects table (see schema.py): what each project's feature page was last
written from, with the row and the feed entries that page gives features.html and
features.atom."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from newsletter.state.store import Store


@dataclass(frozen=True)
class WrittenProject:
    fingerprint: str
    # Plain JSON values, as publish/features.py makes and reads them.
    summary: dict[str, Any]
    changes: list[dict[str, Any]]


def written(store: Store) -> dict[str, WrittenProject]:
    """Every project's record, by casefolded name."""
    return {
        project: WrittenProject(fingerprint, json.loads(summary), json.loads(changes))
        for project, fingerprint, summary, changes in store.db.execute(
            "SELECT project, fingerprint, summary, changes FROM feature_projects ORDER BY project")
    }


def record(store: Store, pages: Mapping[str, WrittenProject]) -> None:
    """Called once these projects' pages (by casefolded name) are written."""
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO feature_projects (project, fingerprint, summary, changes) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (project) DO UPDATE SET fingerprint = excluded.fingerprint,"
            " summary = excluded.summary, changes = excluded.changes",
            [(project, page.fingerprint, json.dumps(page.summary, sort_keys=True),
              json.dumps(page.changes, sort_keys=True)) for project, page in pages.items()],
        )


def forget(store: Store, projects: Collection[str]) -> None:
    with store.transaction() as db:
        db.execute(f"DELETE FROM feature_projects WHERE project IN ({db.dialect.texts})",
                   (json.dumps(sorted(projects)),))
