"""Feature histories -> archive/features.html (one table per project: a row per feature, a
column per release, a coloured mark per label) and archive/features.atom (an entry per
change of label). Both are byte-identical for the same histories."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from newsletter.config import Config
from newsletter.history import FeatureHistory, ProjectHistory, Release, Transition, normalized, title_version
from newsletter.languages import language_tag
from newsletter.models import STABILITIES, Graduation, Stability
from newsletter.publish.atom import EPOCH, new_feed
from newsletter.publish.digest import render_template
from newsletter.publish.paths import FEATURES_FEED, FEATURES_PAGE, site_url
from newsletter.publish.sanitize import one_line
from newsletter.version import __version__

# The letter each label's mark carries, so the table reads without colour too.
MARKS: dict[Stability, str] = {
    "stable": "S", "beta": "B", "prototype": "P", "alpha": "A", "experimental": "E", "preview": "V", "deprecated": "D",
}


# Lines of a digest's Graduated block: a first build of a long history would otherwise fill
# the email with them.
MAX_GRADUATED = 12


@dataclass(frozen=True)
class Cell:
    """A feature in one release: absent (None), or present with its label (which may be none)."""

    present: bool
    stability: Stability | None = None
    heading: str = ""


def fingerprint(config: Config, stamp: str, templates: str) -> str:
    """Changes whenever the two files' bytes could: the posts and their grouping (`stamp`),
    the projects the sources name, the site, the templates, the program."""
    parts = [__version__, repr(config.site), repr(sorted(config.source_projects.items())), stamp, templates]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def render_page(config: Config, projects: Sequence[ProjectHistory]) -> str:
    shown = [
        {
            "name": project.project,
            "anchor": f"project-{index}",
            "releases": [{"label": release_label(r), "title": r.title, "url": r.url} for r in project.releases],
            "features": [
                {"heading": f.heading, "current": f.current, "cells": _cells(project.releases, f)}
                for f in _current_first(project.features)
            ],
        }
        for index, project in enumerate(projects, start=1)
    ]
    return render_template(config, "features.html.j2", {
        "site": config.site, "language": language_tag(config.site.language) or "en", "projects": shown,
        "marks": MARKS, "stabilities": STABILITIES, "feed": FEATURES_FEED,
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


def render_feed(config: Config, projects: Sequence[ProjectHistory]) -> bytes:
    """One entry per transition, newest first; an entry's id depends only on its project,
    feature, labels and post, so it keeps it however many posts come after."""
    changes = [(t, f) for project in projects for f in project.features for t in f.transitions]
    changes.sort(key=lambda change: (change[0].release.dated, _entry_id(config, *change)), reverse=True)
    feed = new_feed(
        config, feed_id=site_url(config, FEATURES_FEED), title=f"{config.site.title}: features that changed",
        self_path=FEATURES_FEED, updated=max((t.release.dated for t, _ in changes), default=EPOCH),
    )
    for transition, feature in changes:
        item = feed.add_entry(order="append")
        item.id(_entry_id(config, transition, feature))
        item.title(one_line(f"{feature.project}: {graduation(feature, transition)}"))
        item.author({"name": one_line(config.site.author)})
        item.published(transition.release.dated)
        item.updated(transition.release.dated)
        history = " → ".join(f"{s.stability or 'no label'} in {s.release.title}" for s in feature.sightings)
        item.content(one_line(f"{transition.release.title}: {graduation(feature, transition)}. Its history: {history}",
                              2000), type="text")
        item.category(term=transition.after, label=transition.after.capitalize())
        item.newsletter.language = language_tag(config.site.language)
        links = [{"href": site_url(config, FEATURES_PAGE), "rel": "alternate", "type": "text/html"}]
        if transition.release.url:
            links.insert(0, {"href": transition.release.url, "rel": "related", "type": "text/html"})
        item.newsletter.links = links
    atom: bytes = feed.atom_str(pretty=True)
    return atom


def graduation(feature: FeatureHistory, transition: Transition) -> str:
    """"ZeroRedundancyOptimizer: Beta → Stable"."""
    return f"{feature.heading}: {transition.before.capitalize()} → {transition.after.capitalize()}"


def _entry_id(config: Config, transition: Transition, feature: FeatureHistory) -> str:
    key = "\0".join([feature.project.casefold(), normalized(_heading_in(feature, transition)), transition.before,
                     transition.after, transition.release.entry_id])
    return f"{site_url(config, FEATURES_FEED)}#{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}"


def graduations(projects: Sequence[ProjectHistory], release_keys: Collection[int]) -> list[Graduation]:
    """The changes of label these releases (entries, by key) made."""
    return [Graduation(p.project, t.release.key, _heading_in(f, t), graduation(f, t))
            for p in projects for f in p.features for t in f.transitions if t.release.key in release_keys]


def graduated_lines(changes: Sequence[Graduation]) -> list[str]:
    """The changes as a digest's Graduated block lists them: each names its project when they
    span more than one."""
    several = len({change.project for change in changes}) > 1
    lines = [f"{c.change} ({c.project})" if several else c.change for c in changes]
    if len(lines) <= MAX_GRADUATED:
        return lines
    return [*lines[: MAX_GRADUATED - 1], f"and {len(lines) - MAX_GRADUATED + 1} more: see {FEATURES_PAGE}"]


def _heading_in(feature: FeatureHistory, transition: Transition) -> str:
    return next(s.heading for s in feature.sightings if s.release == transition.release)
