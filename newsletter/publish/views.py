"""What the publishers show of an entry, as plain display-ready values.

The feed, the email and its plain-text twin all read the same view, so a post says the same
thing everywhere: its title and address, the other forms it exists in, its highlight bullets,
and its features grouped by section with their stability.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urljoin

from newsletter.languages import language_name, language_tag
from newsletter.models import STABILITIES, Entry, StoredPost
from newsletter.publish.sanitize import one_line, safe_url

# Bullets come from prose and may be long; past this they are cut with an ellipsis.
BULLET_LIMIT = 600


@dataclass(frozen=True)
class FormLink:
    """Another form of a post (a translation, a scrape) and where to read it."""

    url: str
    language: str | None
    # The language's own name ("Deutsch"), or None when the language is unknown.
    language_name: str | None


@dataclass(frozen=True)
class FeatureView:
    heading: str
    # "Stable", "Beta", "Prototype"...; None for a feature without a label.
    stability: str | None


@dataclass(frozen=True)
class SectionView:
    # None for features that sit under no section heading.
    title: str | None
    features: tuple[FeatureView, ...]


@dataclass(frozen=True)
class EntryView:
    title: str
    url: str | None
    language: str | None
    author: str | None
    published: datetime
    updated: datetime
    bullets: tuple[str, ...]
    sections: tuple[SectionView, ...]
    # Forms in other languages, each linked once.
    also_in: tuple[FormLink, ...]
    # Forms in a language already linked, at another address (a scrape, a mirror).
    related: tuple[FormLink, ...]
    # How many bullets and features `shortened` left out.
    more_bullets: int = 0
    more_features: int = 0

    @property
    def stabilities(self) -> tuple[str, ...]:
        """Each stability label present, in the order of models.STABILITIES."""
        present = {f.stability for s in self.sections for f in s.features if f.stability}
        order = [s.title() for s in STABILITIES]
        return tuple(sorted(present, key=lambda s: (order.index(s) if s in order else len(order), s)))

    @property
    def feature_count(self) -> int:
        return sum(len(s.features) for s in self.sections)

    def shortened(self, bullets: int | None, features: int | None) -> EntryView:
        """At most `bullets` bullets and `features` features (None: no limit), counting what
        was left out so a reader can be told "and N more"."""
        kept_bullets = self.bullets if bullets is None else self.bullets[:bullets]
        sections, left = [], self.feature_count if features is None else features
        for section in self.sections:
            if left <= 0:
                break
            sections.append(replace(section, features=section.features[:left]))
            left -= len(sections[-1].features)
        kept_sections = self.sections if features is None else tuple(sections)
        shortened = replace(self, bullets=kept_bullets, sections=kept_sections)
        return replace(
            shortened,
            more_bullets=self.more_bullets + len(self.bullets) - len(kept_bullets),
            more_features=self.more_features + self.feature_count - shortened.feature_count,
        )


def form_url(form: StoredPost) -> str | None:
    """Where a form can be read: its canonical address (resolved against the address it was
    read from, since a page may name itself relatively), else that address."""
    canonical = form.summary.canonical_url
    if canonical:
        resolved = safe_url(urljoin(form.url or "", canonical))
        if resolved:
            return resolved
    return safe_url(form.url)


@dataclass(frozen=True)
class EntryLink:
    """An entry as a list of posts names it: the archive page lists every digest's posts."""

    title: str
    url: str | None
    language: str | None


def entry_link(entry: Entry) -> EntryLink:
    summary = entry.primary.summary
    return EntryLink(
        title=one_line(summary.title) or entry.primary.location,
        url=form_url(entry.primary),
        language=language_tag(summary.language),
    )


def entry_view(entry: Entry) -> EntryView:
    summary = entry.primary.summary
    link = entry_link(entry)
    others = [form for form in _form_links(entry) if form.url != link.url]
    seen_languages = {link.language}
    also_in: list[FormLink] = []
    related: list[FormLink] = []
    for form in others:
        (related if form.language in seen_languages else also_in).append(form)
        seen_languages.add(form.language)
    return EntryView(
        title=link.title,
        url=link.url,
        language=link.language,
        author=one_line(summary.author) or None,
        published=entry.published,
        updated=entry.updated,
        bullets=tuple(b for b in (one_line(b, BULLET_LIMIT) for b in summary.summary_bullets) if b),
        sections=_sections(entry),
        also_in=tuple(also_in),
        related=tuple(related),
    )


def _form_links(entry: Entry) -> list[FormLink]:
    links, seen = [], set()
    for form in entry.forms:
        url = form_url(form)
        if url and url not in seen:
            seen.add(url)
            tag = language_tag(form.summary.language)
            links.append(FormLink(url, tag, language_name(tag) if tag else None))
    return links


def _sections(entry: Entry) -> tuple[SectionView, ...]:
    """Features grouped by section, sections in the order they first appear in the post."""
    grouped: dict[str | None, list[FeatureView]] = {}
    for feature in entry.primary.summary.features:
        heading = one_line(feature.heading)
        if not heading:
            continue
        stability = one_line(feature.stability).title() or None
        grouped.setdefault(one_line(feature.section) or None, []).append(FeatureView(heading, stability))
    return tuple(SectionView(title, tuple(features)) for title, features in grouped.items())


def date_text(moment: datetime) -> str:
    """"2 November 2026": unambiguous wherever the reader lives."""
    return f"{moment.day} {moment:%B %Y}"


def date_range_text(start: datetime, end: datetime) -> str:
    """"28 October – 2 November 2026", or one date when both fall on the same day."""
    if start.date() == end.date():
        return date_text(end)
    if start.year == end.year:
        first = f"{start.day} {start:%B}" if start.month != end.month else f"{start.day}"
        return f"{first} – {date_text(end)}"
    return f"{date_text(start)} – {date_text(end)}"
