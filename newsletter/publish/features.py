"""Feature histories -> a page per project (archive/features/<project>.html: a row per
feature, a column per release, a coloured mark per label), archive/features.html (a row per
project, linking its page) and archive/features.atom (an entry per change of label, newest
first). Each is byte-identical for the same histories.

A project's page is bounded: it shows its newest MAX_COLUMNS releases, and lists the
changes of label of the releases before them as text. The index and the feed are made from
plain rows and changes (ProjectRow, FeedChange) that the build keeps for each project, so
neither needs a history that did not change."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from markupsafe import Markup

from newsletter.config import Config
from newsletter.history import FeatureHistory, ProjectHistory, Release, Transition, normalized, title_version
from newsletter.languages import language_tag
from newsletter.models import STABILITIES, GraduatedLine, Graduation, Stability
from newsletter.publish.atom import EPOCH, new_feed
from newsletter.publish.digest import render_template
from newsletter.publish.paths import FEATURES_FEED, FEATURES_PAGE, feature_page_path, site_url
from newsletter.publish.sanitize import one_line
from newsletter.version import __version__

# The letter each label's mark carries, so the table reads without colour too.
MARKS: dict[Stability, str] = {
    "stable": "S", "beta": "B", "prototype": "P", "alpha": "A", "experimental": "E", "preview": "V", "deprecated": "D",
}


# Lines of a digest's Graduated block: a first build of a long history would otherwise fill
# the email with them.
MAX_GRADUATED = 12
# Releases a project's page shows as columns: a project with hundreds of releases would
# otherwise make a page no one reads and every build rewrites.
MAX_COLUMNS = 40


@dataclass(frozen=True)
class Cell:
    """A feature in one release: absent (None), or present with its label (which may be none)."""

    present: bool
    stability: Stability | None = None
    heading: str = ""


@dataclass(frozen=True)
class ProjectRow:
    """A project as features.html lists it."""

    name: str
    # Its page, relative to the archive folder.
    path: str
    features: int
    latest: str
    transitions: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProjectRow:
        return cls(**data)


@dataclass(frozen=True)
class InitialLink:
    """An initial as a paged features.html lists it: "k" (or "other": digits, other
    scripts), its page, how many projects it has."""

    initial: str
    path: str
    count: int
    # On the initial's own page.
    current: bool = False


@dataclass(frozen=True)
class FeedChange:
    """A change of label as an entry of features.atom."""

    id: str
    dated: datetime
    title: str
    content: str
    stability: Stability
    # The post that made it, if it has an address; the project's page.
    related: str | None
    page: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"dated": self.dated.isoformat()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FeedChange:
        return cls(**data | {"dated": datetime.fromisoformat(data["dated"])})


def settings(config: Config, templates: str) -> str:
    """Changes whenever the pages' bytes could for the same posts: the projects the sources
    name, the site, the templates, the program."""
    parts = [__version__, repr(config.site), repr(sorted(config.source_projects.items())), str(config.feed_size),
             templates]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def project_row(project: ProjectHistory) -> ProjectRow:
    transitions = sum(len(feature.transitions) for feature in project.features)
    return ProjectRow(project.project, feature_page_path(project.project), len(project.features),
                      project.releases[-1].title, transitions)


def render_row(config: Config, row: ProjectRow) -> str:
    """The project's row of features.html, kept with its record: the index is made of them."""
    return render_template(config, "feature-row.html.j2", {"project": row}).rstrip("\n")


def render_index(config: Config, rows: Sequence[str], initials: Sequence[InitialLink] = ()) -> str:
    """features.html, of these rows (as render_row made them), in order: passed as one piece
    of HTML, which a site of thousands of projects renders at once. Paged, features.html
    lists the `initials` and a page per initial shows its rows, its own initial marked."""
    return render_template(config, "features.html.j2", {
        "site": config.site, "language": language_tag(config.site.language) or "en",
        "rows": Markup("\n".join(rows)), "feed": FEATURES_FEED, "initials": initials,
        "initial": next((link.initial for link in initials if link.current), None),
    })


def render_page(config: Config, project: ProjectHistory) -> str:
    """The project's page: its newest MAX_COLUMNS releases as columns, the features they
    announced as rows, and the changes of label of the releases before them as lines."""
    shown = project.releases[-MAX_COLUMNS:]
    keys = {release.key for release in shown}
    rows = [f for f in _current_first(project.features) if any(s.release.key in keys for s in f.sightings)]
    earlier = [(t, f) for f in project.features for t in f.transitions if t.release.key not in keys]
    earlier.sort(key=lambda change: (change[0].release.dated, change[0].release.key), reverse=True)
    return render_template(config, "feature-project.html.j2", {
        "site": config.site, "language": language_tag(config.site.language) or "en", "name": project.project,
        "releases": [{"label": release_label(r), "title": r.title, "url": r.url} for r in shown],
        "hidden": len(project.releases) - len(shown),
        "features": [{"heading": f.heading, "current": f.current, "cells": _cells(shown, f)} for f in rows],
        "earlier": [f"{graduation(f, t)} in {t.release.title}" for t, f in earlier],
        "marks": MARKS, "stabilities": STABILITIES, "feed": "../" + FEATURES_FEED, "index": "../" + FEATURES_PAGE,
    })


def release_label(release: Release) -> str:
    """A column's short name: the version in its title, else its date."""
    version = title_version(release.title)
    return ".".join(map(str, version)) if version else f"{release.dated:%Y-%m-%d}"


def _current_first(features: Sequence[FeatureHistory]) -> list[FeatureHistory]:
    """By current label (stable first, deprecated last, none after), then by first appearance."""
    rank = {stability: number for number, stability in enumerate(STABILITIES)}
    return sorted(features, key=lambda f: rank.get(f.current, len(rank)) if f.current else len(rank) + 1)


def _cells(releases: Sequence[Release], feature: FeatureHistory) -> list[Cell]:
    by_release = {s.release.key: s for s in feature.sightings}
    return [Cell(True, by_release[r.key].stability, by_release[r.key].heading) if r.key in by_release else Cell(False)
            for r in releases]


def feed_changes(config: Config, project: ProjectHistory) -> list[FeedChange]:
    """The project's newest `feed_size` changes of label, newest first: no more of them can
    be in the feed. An entry's id depends only on its project, feature, labels and post, so
    it keeps it however many posts come after."""
    page = site_url(config, feature_page_path(project.project))
    changes = [
        FeedChange(
            _entry_id(config, t, f), t.release.dated, one_line(f"{f.project}: {graduation(f, t)}"),
            one_line(f"{t.release.title}: {graduation(f, t)}. Its history: "
                     + " → ".join(f"{s.stability or 'no label'} in {s.release.title}" for s in f.sightings), 2000),
            t.after, t.release.url, page,
        )
        for f in project.features for t in f.transitions
    ]
    return newest(config, changes)


def render_feed(config: Config, changes: Sequence[FeedChange]) -> bytes:
    """The newest `feed_size` of these changes."""
    shown = newest(config, changes)
    feed = new_feed(
        config, feed_id=site_url(config, FEATURES_FEED), title=f"{config.site.title}: features that changed",
        self_path=FEATURES_FEED, updated=max((c.dated for c in shown), default=EPOCH),
    )
    for change in shown:
        item = feed.add_entry(order="append")
        item.id(change.id)
        item.title(change.title)
        item.author({"name": one_line(config.site.author)})
        item.published(change.dated)
        item.updated(change.dated)
        item.content(change.content, type="text")
        item.category(term=change.stability, label=change.stability.capitalize())
        item.newsletter.language = language_tag(config.site.language)
        links = [{"href": change.page, "rel": "alternate", "type": "text/html"}]
        if change.related:
            links.insert(0, {"href": change.related, "rel": "related", "type": "text/html"})
        item.newsletter.links = links
    atom: bytes = feed.atom_str(pretty=True)
    return atom


def newest(config: Config, changes: Sequence[FeedChange]) -> list[FeedChange]:
    """The `feed_size` newest of these changes, newest first, as features.atom shows them."""
    return sorted(changes, key=lambda change: (change.dated, change.id), reverse=True)[: config.feed_size]


def graduation(feature: FeatureHistory, transition: Transition) -> str:
    """"ZeroRedundancyOptimizer: Beta → Stable"."""
    return f"{feature.heading}: {transition.before.capitalize()} → {transition.after.capitalize()}"


def _entry_id(config: Config, transition: Transition, feature: FeatureHistory) -> str:
    key = "\0".join([feature.project.casefold(), normalized(_heading_in(feature, transition)), transition.before,
                     transition.after, transition.release.entry_id])
    return f"{site_url(config, FEATURES_FEED)}#{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}"


def graduations(projects: Iterable[ProjectHistory], release_keys: Collection[int]) -> list[Graduation]:
    """The changes of label these releases (entries, by key) made."""
    return [Graduation(p.project, t.release.key, _heading_in(f, t), graduation(f, t))
            for p in projects for f in p.features for t in f.transitions if t.release.key in release_keys]


def graduated_lines(config: Config, changes: Sequence[Graduation]) -> list[GraduatedLine]:
    """The changes as a digest's Graduated block lists them, each linking its project's page:
    each names its project when they span more than one."""
    projects = {change.project for change in changes}
    lines = [GraduatedLine(f"{c.change} ({c.project})" if len(projects) > 1 else c.change,
                           site_url(config, feature_page_path(c.project))) for c in changes]
    if len(lines) <= MAX_GRADUATED:
        return lines
    # The one project's page, else the index of them.
    page = feature_page_path(changes[0].project) if len(projects) == 1 else FEATURES_PAGE
    more = GraduatedLine(f"and {len(lines) - MAX_GRADUATED + 1} more: see {page}", site_url(config, page))
    return [*lines[: MAX_GRADUATED - 1], more]


def _heading_in(feature: FeatureHistory, transition: Transition) -> str:
    return next(s.heading for s in feature.sightings if s.release == transition.release)
