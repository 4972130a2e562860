"""Writing the feature pages after a build: the page of each project whose releases changed,
then features.html and features.atom if their rows or changes did.

What a project's page depends on is read without its features (EntryIndex.feature_releases):
a build with one new post reads the history of that post's project only, and the index and
the feed are made from what the feature_projects table keeps of the others. A build in which
no post was saved or regrouped reads nothing more than one stamp.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from newsletter import history
from newsletter.config import Config
from newsletter.models import ReleaseStamp
from newsletter.publish import features, paths
from newsletter.publish.digest import templates_fingerprint
from newsletter.publish.output import remove, write_atomic
from newsletter.state import feature_projects
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store

# Projects whose histories are read (and pages written) at a time: a first build has one
# per post, and all their histories at once would hold every feature in memory.
_PROJECTS_AT_ONCE = 500
_STAMP_MARK = "features stamp"


@dataclass(frozen=True)
class ProjectReleases:
    """A project's releases as the build finds them, before any feature is read."""

    name: str
    keys: tuple[int, ...]
    # Changes whenever its history could.
    stamp: str


class FeatureHistories:
    """The feature histories of the projects a build asks for, each read from its own entries
    when asked: none is kept, so that a first build (whose digest carries every post) holds
    one turn of them at a time, not all (measured: 276-279 MB against 343 MB at 10,000 posts)."""

    def __init__(self, index: EntryIndex, source_projects: Mapping[str, str]) -> None:
        self.index = index
        self.source_projects = source_projects

    @cached_property
    def projects(self) -> dict[str, ProjectReleases]:
        """Every project, by casefolded name, named as its first entry names it (as
        history.histories does)."""
        grouped: dict[str, list[ReleaseStamp]] = {}
        for release in self.index.feature_releases():
            name = history.project_named(release.source, release.title, self.source_projects)
            grouped.setdefault(name.casefold(), []).append(release)
        return {key: _project_releases(releases, self.source_projects) for key, releases in grouped.items()}

    def of(self, projects: Iterable[str]) -> list[history.ProjectHistory]:
        """The histories of these projects (by casefolded name)."""
        keys = [key for project in projects for key in self.projects[project].keys]
        return history.histories(self.index.appearances(keys), self.source_projects) if keys else []

    def of_entries(self, entry_keys: Collection[int]) -> list[history.ProjectHistory]:
        """The histories of the projects these entries belong to."""
        wanted = set(entry_keys)
        return self.of([name for name, releases in self.projects.items() if not wanted.isdisjoint(releases.keys)])


def write(config: Config, store: Store, index: EntryIndex, histories: FeatureHistories) -> None:
    archive = config.archive_dir
    settings = features.settings(config, templates_fingerprint(config))
    stamp = hashlib.sha256(f"{settings}\n{index.features_stamp()}".encode()).hexdigest()
    outputs = (paths.FEATURES_PAGE, paths.FEATURES_FEED)
    if store.archive_mark(_STAMP_MARK) == stamp and all((archive / path).exists() for path in outputs):
        return
    written = feature_projects.written(store)
    fingerprints = {key: hashlib.sha256(f"{settings}\n{project.stamp}".encode()).hexdigest()
                    for key, project in histories.projects.items()}
    stale = [key for key, fingerprint in fingerprints.items()
             if key not in written or written[key].fingerprint != fingerprint
             or not (archive / written[key].summary["path"]).exists()]
    kept = dict(written)
    for turn in _turns(stale):
        pages = {}
        for project in histories.of(turn):
            row = features.project_row(project)
            write_atomic(archive / row.path, features.render_page(config, project))
            newest = [change.to_json() for change in features.feed_changes(config, project)]
            key = project.project.casefold()
            pages[key] = feature_projects.WrittenProject(fingerprints[key], row.to_json(), newest)
        feature_projects.record(store, pages)
        kept.update(pages)
    # A project no post names any more: its record, then its page (one name is one page).
    gone = set(written) - set(fingerprints)
    feature_projects.forget(store, gone)
    for key in sorted(gone):
        remove(archive / written[key].summary["path"])
    shown = [kept[key] for key in sorted(kept) if key not in gone]
    rows = [features.ProjectRow.from_json(project.summary) for project in shown]
    changes = features.newest(config, [features.FeedChange.from_json(change)
                                       for project in shown for change in project.changes])
    _write_if_changed(store, archive, paths.FEATURES_PAGE, [settings, *(project.summary for project in shown)],
                      lambda: features.render_index(config, rows))
    _write_if_changed(store, archive, paths.FEATURES_FEED, [settings, *(change.to_json() for change in changes)],
                      lambda: features.render_feed(config, changes))
    store.set_archive_marks({_STAMP_MARK: stamp})


def _write_if_changed(
    store: Store, archive: Path, path: str, shown: list[object], render: Callable[[], str | bytes],
) -> None:
    """Write the file at `path` if it is missing or what it shows changed."""
    fingerprint = hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()
    if store.page_fingerprints([path]).get(path) != fingerprint or not (archive / path).exists():
        write_atomic(archive / path, render())
        store.record_page(path, fingerprint)


def _project_releases(releases: list[ReleaseStamp], source_projects: Mapping[str, str]) -> ProjectReleases:
    name = history.project_named(releases[0].source, releases[0].title, source_projects)
    parts = [[r.key, r.source, r.title, r.stamp] for r in releases]
    return ProjectReleases(name, tuple(r.key for r in releases),
                           hashlib.sha256(json.dumps([name, parts]).encode()).hexdigest())


def _turns(projects: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(projects), _PROJECTS_AT_ONCE):
        yield projects[start: start + _PROJECTS_AT_ONCE]
