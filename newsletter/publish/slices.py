"""A subscriber's slice of a digest: the posts, features and graduations they asked for.

What a slice (models.Slice) keeps:
- a feature whose label reaches the least maturity asked for, and which sits under one of
  the sections named, if any are. Labels rank in three steps: stable, and deprecated (news
  of a stable feature going away); then beta and preview; then alpha, prototype and
  experimental. A feature without a label counts as stable: release notes label what is
  not stable yet, and an unlabeled feature ships with the release as it is.
- a highlight of a post kept, unless it names a feature left out (every word of the
  feature's heading, as the feature histories compare headings, is in it): "Streaming
  queries that emit results early" goes with a beta "Streaming queries".
- a post of a project named, if any are (the project as the features page names it:
  history.project_named), which keeps a feature; or which had none to begin with and has
  highlights, unless the slice names sections (such a post has none to match). A post
  whose features were all left out goes with its highlights, which tell of those features.
  So no post is left with neither a feature nor a highlight (but in the whole digest).
- a graduation (a line of the Graduated block) whose post is kept with that feature.

The slice that asks for nothing in particular is the digest itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace

from newsletter.config import Config
from newsletter.history import normalized, project_named
from newsletter.models import Digest, DigestHead, Entry, Feature, RenderedDigest, Slice, Stability
from newsletter.publish.digest import render_digest
from newsletter.publish.features import graduated_lines
from newsletter.publish.sanitize import one_line
from newsletter.state.digest_copies import DigestSnapshot

RANK: dict[Stability | None, int] = {
    None: 2, "stable": 2, "deprecated": 2, "beta": 1, "preview": 1, "alpha": 0, "prototype": 0, "experimental": 0,
}
LEAST = {"stable": 2, "beta": 1, None: 0}


def render_slice(config: Config, head: DigestHead, snapshot: DigestSnapshot, chosen: Slice) -> RenderedDigest | None:
    """The digest's copy for `chosen`, rendered as the build renders a digest; None when the
    slice holds nothing."""
    kept = sliced(snapshot, chosen, config.source_projects)
    if not kept.entries:
        return None
    digest = Digest(head.id, head.name, head.created, kept.entries)
    return render_digest(config, digest, graduated_lines(config, kept.graduations))


def sliced(snapshot: DigestSnapshot, chosen: Slice, projects: Mapping[str, str]) -> DigestSnapshot:
    """What of `snapshot` the slice keeps; `projects` names the project of a source that says."""
    if chosen.everything:
        return snapshot
    entries = [kept for kept in (_entry(entry, chosen, projects) for entry in snapshot.entries) if kept]
    headings = {_key(entry): {f.heading for f in entry.primary.summary.features} for entry in entries}
    graduations = tuple(g for g in snapshot.graduations if g.heading in headings.get(g.release, ()))
    return DigestSnapshot(tuple(entries), graduations)


def names_in(entries: Iterable[Entry], projects: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The projects and the sections the posts name, each in order, once whatever its case."""
    named: dict[str, str] = {}
    sections: dict[str, str] = {}
    for entry in entries:
        name = entry_project(entry, projects)
        named.setdefault(name.casefold(), name)
        for feature in entry.primary.summary.features:
            section = one_line(feature.section)
            if section:
                sections.setdefault(section.casefold(), section)
    return sorted(named.values(), key=str.casefold), sorted(sections.values(), key=str.casefold)


def slice_text(chosen: Slice) -> str:
    """"beta and stable features; projects: Kite, Lumen", or "everything"."""
    parts = [{"stable": "stable features only", "beta": "beta and stable features"}[chosen.min_stability]
             ] if chosen.min_stability else []
    for label, names in (("projects", chosen.projects), ("sections", chosen.sections)):
        if names:
            parts.append(f"{label}: {', '.join(sorted(names, key=str.casefold))}")
    return "; ".join(parts) or "everything"


def entry_project(entry: Entry, projects: Mapping[str, str]) -> str:
    return project_named(entry.primary.source, entry.primary.summary.title, projects)


def _entry(entry: Entry, chosen: Slice, projects: Mapping[str, str]) -> Entry | None:
    if chosen.projects and entry_project(entry, projects).casefold() not in _folded(chosen.projects):
        return None
    summary = entry.primary.summary
    features = tuple(f for f in summary.features if _keeps(chosen, f))
    if not features and (summary.features or chosen.sections or not summary.summary_bullets):
        return None
    left_out = [set(normalized(f.heading).split()) for f in summary.features if f not in features]
    bullets = tuple(b for b in summary.summary_bullets if not any(words <= _words(b) for words in left_out))
    return replace(entry, primary=replace(entry.primary, summary=replace(summary, features=features,
                                                                          summary_bullets=bullets)))


def _words(text: str) -> set[str]:
    return set(re.sub(r"[^\w\s]|_", " ", unicodedata.normalize("NFKC", text).casefold()).split())


def _keeps(chosen: Slice, feature: Feature) -> bool:
    if RANK.get(feature.stability, 2) < LEAST[chosen.min_stability]:
        return False
    return not chosen.sections or one_line(feature.section).casefold() in _folded(chosen.sections)


def _folded(names: frozenset[str]) -> set[str]:
    return {name.casefold() for name in names}


def _key(entry: Entry) -> int:
    """How the feature histories name an entry: its lowest post id."""
    return min(form.id for form in entry.forms)
