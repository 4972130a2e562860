"""Writing the feature pages after a build: the page of each project whose releases changed,
then features.html and features.atom if their rows or changes did.

What a project's page depends on is read without its features, and kept per entry in the
feature_entries table: a build reads the summaries of the entries whose stamp moved only,
their projects' releases from that table, and the history of those projects only. The index
is made of the rows kept with each project's record, and the feed of the changes kept there.
A build compares the stamps of the entries logged as touched since (feature_entries.touched)
only, and reads nothing more when none of them moved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path

from newsletter import history
from newsletter.config import Config
from newsletter.models import ReleaseStamp
from newsletter.publish import features, paths
from newsletter.publish.digest import templates_fingerprint
from newsletter.publish.output import remove, write_atomic
from newsletter.state import feature_entries, feature_projects
from newsletter.state.entry_index import EntryIndex
from newsletter.state.feature_entries import EntryRead
from newsletter.state.store import Store

# Projects whose histories are read (and pages written) at a time: a first build has one
# per post, and all their histories at once would hold every feature in memory.
_PROJECTS_AT_ONCE = 500
# The settings feature_entries was recorded under: other settings may name other projects.
_ENTRIES_MARK = "feature entries settings"
# features.html lists every project's row up to this many projects (~130 KB of rows), their
# initials past it: 10,000 projects' rows make 2.6 MB, to read and write at every change.
PAGE_PROJECTS = 500
# What the pages of initials were last written under (_InitialsWritten).
_INITIALS_MARK = "feature initials"


@dataclass(frozen=True)
class ProjectReleases:
    """A project's releases as the build finds them, before any feature is read."""

    name: str
    keys: tuple[int, ...]
    # Changes whenever its history could.
    stamp: str


@dataclass(frozen=True)
class EntriesMoved:
    """What changed among the entries since feature_entries was recorded."""

    # The entries read again, by key, with their project (casefolded; None: they name no
    # feature): those whose stamp moved, or every entry when `every_entry`.
    read: dict[int, tuple[str | None, EntryRead]]
    # Entries recorded that are no entries any more.
    gone: frozenset[int]
    # The entries the log named when read (None when `every_entry`, which reads them all):
    # taken out of it once recorded. `read` and `gone` are among them.
    touched: frozenset[int] | None
    # The projects whose releases may differ from those recorded: those the entries read
    # or gone were or are in; every project when `every_entry`.
    projects: frozenset[str]

    @property
    def every_entry(self) -> bool:
        return self.touched is None


class FeatureHistories:
    """The feature histories of the projects a build asks for, each read from its own entries
    when asked. The pages ask again for the projects of the digest's posts: the digest's first
    turn of histories is kept for them, and let go as they take it, so an archive of up to a
    turn of projects reads each history once a build. No more is kept: a first build (whose
    digest carries every post) would hold every feature of every post (at 10,000 posts, 343 MB
    against 276-279 MB when measured with one turn held)."""

    def __init__(self, index: EntryIndex, config: Config) -> None:
        self.index, self.store = index, index.store
        self.source_projects = config.source_projects
        self.settings = features.settings(config, templates_fingerprint(config))
        self._kept: dict[str, history.ProjectHistory] = {}

    @cached_property
    def moved(self) -> EntriesMoved:
        every_entry = self.store.archive_mark(_ENTRIES_MARK) != self.settings
        touched = None if every_entry else feature_entries.touched(self.store)
        read = {entry.release.key: (self._project_of(entry), entry)
                for entry in feature_entries.changed(self.store, touched)}
        gone = {} if touched is None else feature_entries.gone(self.store, touched)
        before = {} if touched is None else feature_entries.projects_of(self.store, read)
        projects = {*gone.values(), *before.values(), *(project for project, _ in read.values())}
        return EntriesMoved(read, frozenset(gone), None if touched is None else frozenset(touched),
                            frozenset(p for p in projects if p is not None))

    def releases(self, projects: Collection[str]) -> dict[str, ProjectReleases]:
        """The releases of these projects (by casefolded name) now; one with none is left out."""
        moved, wanted = self.moved, set(projects)
        grouped: dict[str, list[ReleaseStamp]] = {}
        if not moved.every_entry:
            for project, release in feature_entries.releases_of(self.store, wanted):
                if release.key not in moved.read and release.key not in moved.gone:
                    grouped.setdefault(project, []).append(release)
        for now_in, entry in moved.read.values():
            if now_in in wanted:
                grouped.setdefault(now_in, []).append(entry.release)
        return {project: _project_releases(sorted(releases, key=lambda r: r.key), self.source_projects)
                for project, releases in sorted(grouped.items())}

    def of(self, projects: Iterable[str]) -> list[history.ProjectHistory]:
        """The histories of these projects (by casefolded name), sorted by that name."""
        wanted = set(projects)
        kept = {key: self._kept.pop(key) for key in wanted & self._kept.keys()}
        found = kept | self._read(wanted - kept.keys())
        return [found[key] for key in sorted(found)]

    def of_entries(self, entry_keys: Collection[int]) -> Iterator[history.ProjectHistory]:
        """The histories of the projects these entries belong to, sorted by name, read a turn
        of projects at a time: a first build's digest carries every post."""
        read = self.moved.read
        recorded = feature_entries.projects_of(self.store, [key for key in entry_keys if key not in read])
        projects = {*(read[key][0] for key in entry_keys if key in read), *recorded.values()}
        for number, turn in enumerate(_turns(sorted(project for project in projects if project is not None))):
            histories = self._read(set(turn))
            if number == 0:
                self._kept = dict(histories)
            yield from histories.values()

    def _read(self, projects: Collection[str]) -> dict[str, history.ProjectHistory]:
        """The histories of these projects read from their entries, by casefolded name, in its order."""
        # None left to read when the pages take every history kept: no query for nothing.
        keys = [key for releases in self.releases(projects).values() for key in releases.keys] if projects else []
        if not keys:
            return {}
        return {project.project.casefold(): project
                for project in history.histories(self.index.appearances(keys), self.source_projects)}

    def _project_of(self, entry: EntryRead) -> str | None:
        if not entry.names_features:
            return None
        return history.project_named(entry.release.source, entry.release.title, self.source_projects).casefold()


def write(config: Config, index: EntryIndex, histories: FeatureHistories) -> None:
    archive, store, settings = config.archive_dir, index.store, histories.settings
    moved = histories.moved
    initials = _InitialsWritten.read(store)
    outputs = [paths.FEATURES_PAGE, paths.FEATURES_FEED, *map(paths.features_initial_path, initials.initials)]
    # No entry read again or gone: the records hold, and so do the pages written from them
    # (the records are kept last, once every file is written), unless a build stopped
    # before writing the pages of initials it had changed.
    if (not (moved.every_entry or moved.read or moved.gone or initials.waiting)
            and all((archive / path).exists() for path in outputs)):
        if moved.touched:
            feature_entries.record(store, {}, (), moved.touched)
        return
    written = feature_projects.fingerprints(store, None if moved.every_entry else moved.projects)
    current = histories.releases(written.keys() | moved.projects)
    fingerprints = {key: hashlib.sha256(f"{settings}\n{project.stamp}".encode()).hexdigest()
                    for key, project in current.items()}
    stale = [key for key, fingerprint in fingerprints.items()
             if written.get(key) != fingerprint or not (archive / paths.feature_page_path(current[key].name)).exists()]
    # Kept before the projects' records change, which tell the next build of them no more;
    # while features.html is one page, which reads every row, there are no such pages.
    if initials.initials and (changed := {*stale, *(written.keys() - current.keys())}):
        initials = initials.with_changed(changed)
        initials.keep(store)
    for turn in _turns(stale):
        pages = {}
        for project in histories.of(turn):
            row = features.project_row(project)
            write_atomic(archive / row.path, features.render_page(config, project))
            newest = [change.to_json() for change in features.feed_changes(config, project)]
            key = project.project.casefold()
            pages[key] = feature_projects.WrittenProject(fingerprints[key], row.to_json(), newest,
                                                         features.render_row(config, row))
        feature_projects.record(store, pages)
    # A project no post names any more: its record, then its page (one name is one page).
    gone = feature_projects.summaries(store, set(written) - set(current))
    feature_projects.forget(store, gone)
    for key in sorted(gone):
        remove(archive / gone[key]["path"])
    _write_index(config, store, settings, initials)
    changes = features.newest(config, [features.FeedChange.from_json(change)
                                       for change in feature_projects.changes(store)])
    _write_if_changed(store, archive, paths.FEATURES_FEED,
                      json.dumps([settings, *(change.to_json() for change in changes)], sort_keys=True),
                      lambda: features.render_feed(config, changes))
    feature_entries.record(store, moved.read, moved.gone, moved.touched)
    store.set_archive_marks({_ENTRIES_MARK: settings})


def _write_index(config: Config, store: Store, settings: str, before: _InitialsWritten) -> None:
    """features.html: every project's row, or past PAGE_PROJECTS projects, their initials,
    each linking a page of its projects' rows. Then a build that changed a few projects
    writes the pages of their initials only, where one page of all would be read and written
    whole (2.6 MB at 10,000 projects). The pages of initials go first: features.html never
    links one not written yet."""
    archive = config.archive_dir
    counts = feature_projects.initials(store)
    paged = list(counts) if sum(counts.values()) > PAGE_PROJECTS else []
    if (before.settings, before.initials) != (settings, paged):
        again = set(paged)
    else:
        # Under the same settings and initials, which every page lists, only the pages of
        # projects changed since, or deleted by hand, differ.
        again = {initial for initial in paged
                 if initial in before.waiting or not (archive / paths.features_initial_path(initial)).exists()}
    for initial in sorted(again):
        rows = _rows_html(config, store, initial)
        _write_if_changed(store, archive, paths.features_initial_path(initial), "\n".join([settings, *paged, *rows]),
                          partial(features.render_index, config, rows, _initial_links(counts, initial)))
    if paged:
        _write_if_changed(store, archive, paths.FEATURES_PAGE, json.dumps([settings, counts]),
                          lambda: features.render_index(config, [], _initial_links(counts)))
    else:
        rows = _rows_html(config, store)
        _write_if_changed(store, archive, paths.FEATURES_PAGE, "\n".join([settings, *rows]),
                          lambda: features.render_index(config, rows))
    for initial in sorted(set(before.initials) - set(paged)):
        remove(archive / paths.features_initial_path(initial))
    done = _InitialsWritten(settings, paged, [])
    if done != before:
        done.keep(store)


def _initial_links(counts: Mapping[str, int], current: str | None = None) -> list[features.InitialLink]:
    return [features.InitialLink(initial, paths.features_initial_path(initial), count, initial == current)
            for initial, count in counts.items()]


@dataclass(frozen=True)
class _InitialsWritten:
    """What the pages of initials were last written under: settings and initials (none
    while features.html is one page), and the initials whose projects changed since."""

    settings: str | None
    initials: list[str]
    waiting: list[str]

    @classmethod
    def read(cls, store: Store) -> _InitialsWritten:
        return cls(*json.loads(store.archive_mark(_INITIALS_MARK) or "[null, [], []]"))

    def with_changed(self, projects: Iterable[str]) -> _InitialsWritten:
        """The same, with the initials of these projects (by casefolded name) waiting."""
        return replace(self, waiting=sorted({*self.waiting, *map(feature_projects.initial_of, projects)}))

    def keep(self, store: Store) -> None:
        store.set_archive_marks({_INITIALS_MARK: json.dumps([self.settings, self.initials, self.waiting])})


def _rows_html(config: Config, store: Store, initial: str | None = None) -> list[str]:
    """Every project's row of features.html (listed under `initial`, if given), in order; a
    record kept before rows were kept as HTML gets its row now."""
    rows = feature_projects.rows_html(store, initial)
    missing = [project for project, row in rows.items() if row is None]
    if missing:
        made = {project: features.render_row(config, features.ProjectRow.from_json(summary))
                for project, summary in feature_projects.summaries(store, missing).items()}
        feature_projects.record_rows_html(store, made)
        rows.update(made)
    return [row for row in rows.values() if row is not None]


def _write_if_changed(store: Store, archive: Path, path: str, shown: str,
                      render: Callable[[], str | bytes]) -> None:
    """Write the file at `path` if it is missing or what it shows changed."""
    fingerprint = hashlib.sha256(shown.encode()).hexdigest()
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
