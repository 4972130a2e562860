"""Every feature's maturity over a project's releases: the posts that announced it, with the
label and section each gave it, and the changes of label between them.

It reads one Appearance per entry (a translation or a scrape of a post is the same
appearance) and nothing else: no summary is made again, no bullet is decoded.

A wrong merge (two features shown as one) misleads a reader; a missed one (one feature on
two rows) only costs a row. So features are joined within one project only: on their
normalized headings, then on a close spelling with the same numbers that no other candidate
comes near, then on a code name one heading is and the other spells out ("kite.linalg" /
"Linear algebra functions via kite.linalg"), and never two features of one post.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any, NamedTuple

from newsletter import lazy_re
from newsletter.models import Appearance, Stability
from newsletter.summarize.labels import split_label

# A version in a title: "2.0", "v1.12.1"; a lone number ("Top 10") is not one.
_VERSION = lazy_re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)(?![\w.])", re.IGNORECASE)
# Words that open a title before the product's name ("Announcing Kite 2.0").
_OPENING_WORDS = {"announcing", "introducing", "releasing", "welcome", "welcoming", "new", "what's", "whats"}
# Words that add nothing to a feature's name at its ends ("Streaming API", "New X", "Support for X").
_LEADING_WORDS = ("new", "introducing", "the")
_LEADING_PHRASES = (("support", "for"), ("support", "of"))
_TRAILING_WORDS = {"api", "apis", "support", "feature", "features"}
# How alike two normalized headings of one project must be to name one feature, and how far
# ahead of the next candidate the best one must be; short names are compared exactly only.
_MIN_SIMILARITY = 0.92
_MIN_LEAD = 0.03
_MIN_FUZZY_LENGTH = 10
_END_LETTERS = 4
_DIGITS = lazy_re.compile(r"\d+")
# A code name: a dotted path of identifiers ("kite.linalg"), not a version or a sentence's
# end; a longer path ("kite.linalg.solve") is another name, not this one.
# The words before a code name that may spell it out, and the longest part spelled out.
_SPELLING_WORDS = 12
_MAX_SPELLED = 24
_CODE_NAME = lazy_re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?!\.?\w)")


@dataclass(frozen=True)
class Release:
    """A post of the project: a column of its table."""

    key: int
    entry_id: str
    url: str | None
    title: str
    published: datetime | None
    # When it was published, else when its file changed or it was first seen.
    dated: datetime


@dataclass(frozen=True)
class Sighting:
    """A feature in one post."""

    release: Release
    heading: str
    stability: Stability | None
    section: str | None


@dataclass(frozen=True)
class Transition:
    before: Stability
    after: Stability
    # The post that gave the new label.
    release: Release


@dataclass(frozen=True)
class FeatureHistory:
    project: str
    # As its latest post names it.
    heading: str
    sightings: tuple[Sighting, ...]
    transitions: tuple[Transition, ...]

    @property
    def current(self) -> Stability | None:
        """The last label any post gave it."""
        return next((s.stability for s in reversed(self.sightings) if s.stability), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "heading": self.heading,
            "history": [
                {"title": s.release.title, "published": _iso(s.release.published), "stability": s.stability,
                 "section": s.section}
                for s in self.sightings
            ],
            "transitions": [
                {"from": t.before, "to": t.after, "title": t.release.title, "published": _iso(t.release.published)}
                for t in self.transitions
            ],
        }


@dataclass(frozen=True)
class ProjectHistory:
    project: str
    releases: tuple[Release, ...]
    features: tuple[FeatureHistory, ...]


def histories(appearances: Iterable[Appearance], projects: Mapping[str, str]) -> list[ProjectHistory]:
    """Every project's features, projects by name; `projects` names the project of a source
    that says which it is."""
    grouped: dict[str, list[Appearance]] = {}
    names: dict[str, str] = {}
    for appearance in appearances:
        if not appearance.features:
            continue
        name = project_of(appearance, projects)
        names.setdefault(name.casefold(), name)
        grouped.setdefault(name.casefold(), []).append(appearance)
    return [_project_history(names[key], grouped[key]) for key in sorted(grouped)]


def project_of(appearance: Appearance, projects: Mapping[str, str]) -> str:
    return project_named(appearance.source, appearance.title, projects)


def project_named(source: str, title: str | None, projects: Mapping[str, str]) -> str:
    """The source's project, else the product its title names before the version, else the source."""
    return projects.get(source) or title_product(title) or source


def title_product(title: str | None) -> str | None:
    """"New library updates in Kite 1.12" -> "Kite": the words just before the first version
    that carry a capital (or the one word there), without an opening verb."""
    found = _VERSION.search(title or "")
    if not found or title is None:
        return None
    words = title[: found.start()].split()
    product: list[str] = []
    for word in reversed(words):
        if word[-1] in ":,;|–—-" or (product and word == word.lower()):
            break
        product.insert(0, word)
    while product and product[0].casefold() in _OPENING_WORDS:
        product.pop(0)
    return " ".join(product) or None


def title_version(title: str | None) -> tuple[int, ...] | None:
    found = _VERSION.search(title or "")
    return tuple(int(part) for part in found.group(1).split(".")) if found else None


def normalized(heading: str) -> str:
    """What is left of a heading once its label, markup, case, punctuation and filler words
    are gone: "**(Beta) New Streaming API**" -> "streaming"."""
    return _normalized_name(split_label(heading)[0])


def _normalized_name(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold()
    words = re.sub(r"[^\w\s]|_", " ", text).split()
    while len(words) > 1 and (words[0] in _LEADING_WORDS or tuple(words[:2]) in _LEADING_PHRASES):
        words = words[2:] if tuple(words[:2]) in _LEADING_PHRASES else words[1:]
    while len(words) > 1 and words[-1] in _TRAILING_WORDS:
        words.pop()
    return " ".join(words) or text.strip()


def _ordered(appearances: list[Appearance]) -> list[Appearance]:
    """By publication date when every post has one, else by the version in the titles when
    every title has one, else by file time; ties by the next of these."""
    def version(a: Appearance) -> tuple[int, ...]:
        return title_version(a.title) or ()

    if all(a.published for a in appearances):
        return sorted(appearances, key=lambda a: (a.published, version(a), a.seen, a.key))
    if all(title_version(a.title) for a in appearances):
        return sorted(appearances, key=lambda a: (version(a), a.seen, a.key))
    return sorted(appearances, key=lambda a: (a.seen, a.key))


class _Heading(NamedTuple):
    """What the matcher compares of a feature's heading, worked out once: a project of
    thousands of features asks it of each heading several times."""

    key: str
    compact: str
    # The code name the heading is; else (and only then) the one it spells out, if any.
    named: str | None
    spelled: str | None

    @classmethod
    def of(cls, heading: str) -> _Heading:
        name = split_label(heading)[0]
        key = _normalized_name(name)
        named = _code_name(name)
        return cls(key, key.replace(" ", ""), named, None if named is not None else _spelled_code_name(name))


class _Matcher:
    """The features found so far in one project, by normalized heading; for close spellings,
    also by the numbers and the first or last letters they share, so a project of thousands
    of features compares a new heading with a handful, not with all."""

    def __init__(self) -> None:
        self.by_key: dict[str, int] = {}
        self.by_compact: dict[str, int] = {}
        self.by_ends: dict[tuple[str, ...], list[str]] = {}
        # Features by the code name their heading is, and by the one it spells out.
        self.named: dict[str, set[int]] = {}
        self.spelling: dict[str, set[int]] = {}
        # A difflib matcher per compact heading compared with, which indexes that heading once
        # rather than once for every new heading compared with it (most of the time in a
        # project of many). ~4 KB each, held while this one project's history is read.
        self.matchers: dict[str, SequenceMatcher] = {}

    def find(self, heading: _Heading, taken: set[int]) -> int | None:
        """The feature `heading` names, if one not in `taken` (the post's others) is surely it."""
        compact = heading.compact
        for found in (self.by_key.get(heading.key), self.by_compact.get(compact)):
            if found is not None and found not in taken:
                return found
        if heading.named is not None:
            # The one feature whose heading spells out the code name this heading is...
            return _only(self.spelling.get(heading.named, set()) - taken)
        if heading.spelled is not None:
            # ...or the one feature that is the code name this heading spells out.
            return _only(self.named.get(heading.spelled, set()) - taken)
        if len(compact) < _MIN_FUZZY_LENGTH:
            return None
        # Only a candidate this close could be the best one or come near it.
        near = _MIN_SIMILARITY - _MIN_LEAD
        scores = []
        for other in {other for ends in _ends(compact) for other in self.by_ends.get(ends, ())}:
            feature = self.by_compact[other]
            if feature in taken:
                continue
            matcher = self.matchers.get(other)
            if matcher is None:
                matcher = self.matchers[other] = SequenceMatcher(None, b=other)
            matcher.set_seq1(compact)
            if matcher.real_quick_ratio() >= near and matcher.quick_ratio() >= near:
                scores.append((matcher.ratio(), feature))
        scores.sort(reverse=True)
        if not scores or scores[0][0] < _MIN_SIMILARITY:
            return None
        if len(scores) > 1 and scores[0][0] - scores[1][0] < _MIN_LEAD and scores[1][1] != scores[0][1]:
            return None
        return scores[0][1]

    def add(self, heading: _Heading, feature: int) -> None:
        if heading.named is not None:
            self.named.setdefault(heading.named, set()).add(feature)
        elif heading.spelled is not None:
            self.spelling.setdefault(heading.spelled, set()).add(feature)
        self.by_key.setdefault(heading.key, feature)
        compact = heading.compact
        if compact not in self.by_compact:
            self.by_compact[compact] = feature
            for ends in _ends(compact):
                self.by_ends.setdefault(ends, []).append(compact)


def _only(features: set[int]) -> int | None:
    return next(iter(features)) if len(features) == 1 else None


def _code_name(name: str) -> str | None:
    """The code name a heading's name (its label gone) is, alone or with a trailing
    "API"/"support": "kite.linalg"."""
    words = name.split()
    while len(words) > 1 and words[-1].casefold() in _TRAILING_WORDS:
        words.pop()
    return words[0].casefold() if len(words) == 1 and _CODE_NAME.fullmatch(words[0]) else None


def _spelled_code_name(text: str) -> str | None:
    """The code name ending a heading's name (but for a trailing "API"/"support") whose last
    part words before it spell out, two or more of them each giving its first letters:
    "Linear algebra functions via kite.linalg" -> "kite.linalg". A heading that merely
    uses a module ("Graph mode quantization via kite.fx", "Faster kite.fx tracing")
    spells out nothing."""
    names = list(_CODE_NAME.finditer(text))
    if len(names) != 1:
        return None
    found = names[0]
    if any(word.casefold() not in _TRAILING_WORDS for word in text[found.end():].split()):
        return None
    last = found.group().rsplit(".", 1)[1].casefold()
    words = [re.sub(r"\W|_", "", word).casefold() for word in text[: found.start()].split()]
    if not (last.isalpha() and len(last) <= _MAX_SPELLED) or not _spells(last, words[-_SPELLING_WORDS:]):
        return None
    return found.group().casefold()


def _spells(name: str, words: list[str]) -> bool:
    """Whether `name` is the first letters of two or more consecutive `words`."""
    for start in range(len(words)):
        # Where in `name` the words from `start` on can have reached, each giving a prefix.
        reached = {0}
        for used, word in enumerate(words[start:], 1):
            reached = {at + size for at in reached for size in range(1, len(word) + 1)
                       if name.startswith(word[:size], at)}
            if used >= 2 and len(name) in reached:
                return True
            if not reached:
                break
    return False


def _ends(compact: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Its numbers with its first letters, and with its last: two spellings this close share one or the other."""
    digits = tuple(_DIGITS.findall(compact))
    return (*digits, "^", compact[:_END_LETTERS]), (*digits, "$", compact[-_END_LETTERS:])


def _project_history(project: str, appearances: list[Appearance]) -> ProjectHistory:
    releases: list[Release] = []
    sightings: list[list[Sighting]] = []
    matcher = _Matcher()
    for appearance in _ordered(appearances):
        release = Release(appearance.key, appearance.entry_id, appearance.url, appearance.title or appearance.source,
                          appearance.published, appearance.published or appearance.seen)
        releases.append(release)
        taken: set[int] = set()
        for feature in appearance.features:
            heading = _Heading.of(feature.heading)
            found = matcher.find(heading, taken)
            if found is None:
                found = len(sightings)
                sightings.append([])
            matcher.add(heading, found)
            taken.add(found)
            sightings[found].append(Sighting(release, feature.heading, feature.stability, feature.section))
    features = [_feature_history(project, seen) for seen in sightings]
    return ProjectHistory(project, tuple(releases), tuple(features))


def _feature_history(project: str, sightings: list[Sighting]) -> FeatureHistory:
    transitions = []
    label: Stability | None = None
    for sighting in sightings:
        # A post that gives no label says nothing of it: the next label is compared with the last one given.
        if sighting.stability is None:
            continue
        if label is not None and sighting.stability != label:
            transitions.append(Transition(label, sighting.stability, sighting.release))
        label = sighting.stability
    return FeatureHistory(project, sightings[-1].heading, tuple(sightings), tuple(transitions))


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None
