"""What the publishers show of an entry, as plain display-ready values.

The feed, the email and its plain-text twin all read the same view, so a post says the same
thing everywhere: its title and address, the other forms it exists in, its highlight bullets,
and its features grouped by section with their stability.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import overload
from urllib.parse import urljoin

from newsletter import lazy_re
from newsletter.languages import language_name, language_tag
from newsletter.models import STABILITIES, Entry, PostFormat, StoredPost
from newsletter.publish.paths import post_page_path
from newsletter.publish.sanitize import one_line, safe_url

# Bullets come from prose and may be long; past this they are cut with an ellipsis.
BULLET_LIMIT = 600
# A release in a title: a capitalised name and the version after it ("Lumen 2.0", "Tern v0.9").
_RELEASE = lazy_re.compile(r"(?P<project>[A-Z][\w.+#-]*)\s+(?P<version>v?\d+(?:\.\d+)+(?:[-.]?\w+)?)")


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
    # What a reader sees above the list: the title, or a heading of their own for features
    # under no section, so that they never read as part of the list before them.
    heading: str = "Features"


@dataclass(frozen=True)
class EntryView:
    title: str
    # The post's address, or its page in the archive when it has none.
    url: str | None
    language: str | None
    author: str | None
    # When the post says it was published; else when it was first seen, and `dated` is false.
    published: datetime
    dated: bool
    updated: datetime
    # The release the title names ("Lumen 2.0"), else the title; and the project it is of.
    name: str
    project: str | None
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

    def shortened(self, bullets: int | None, features: int | None, bullet_length: int | None = None) -> EntryView:
        """At most `bullets` bullets and `features` features (None: no limit), each bullet cut
        to `bullet_length` characters, counting what was left out so a reader can be told
        "and N more"."""
        kept_bullets = self.bullets if bullets is None else self.bullets[:bullets]
        if bullet_length is not None:
            kept_bullets = tuple(one_line(bullet, bullet_length) for bullet in kept_bullets)
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


def release_name(title: str) -> tuple[str, str | None]:
    """"Lumen 2.0: streaming queries" -> ("Lumen 2.0", "Lumen"); a title naming no release is
    its own name, cut at its first colon."""
    found = _RELEASE.search(title)
    if found:
        return f"{found['project']} {found['version']}", found["project"]
    return title.split(": ", 1)[0], None


def page_url(form: StoredPost, pages_at: str) -> str:
    """The form's page in the archive; `pages_at` is what leads there from where the link is
    written: the site's URL and "/", "" beside the index, "../" from another post's page."""
    return pages_at + post_page_path(form.source, form.location)


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
    url: str
    language: str | None


def entry_link(entry: Entry, pages_at: str) -> EntryLink:
    """The entry's title and its address, or its page in the archive when it has none."""
    summary = entry.primary.summary
    return EntryLink(
        title=one_line(summary.title) or entry.primary.location,
        url=form_url(entry.primary) or page_url(entry.primary, pages_at),
        language=language_tag(summary.language),
    )


class EntryViews(Sequence[EntryView]):
    """The views of these entries, each made as it is read and not kept: a first build's
    digest lists every post on the index page."""

    def __init__(self, entries: Sequence[Entry], pages_at: str) -> None:
        self.entries, self.pages_at = entries, pages_at

    def __len__(self) -> int:
        return len(self.entries)

    @overload
    def __getitem__(self, at: int) -> EntryView: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[EntryView]: ...

    def __getitem__(self, at: int | slice) -> EntryView | Sequence[EntryView]:
        if isinstance(at, slice):
            return [entry_view(entry, self.pages_at) for entry in self.entries[at]]
        return entry_view(self.entries[at], self.pages_at)

    def __iter__(self) -> Iterator[EntryView]:
        return (entry_view(entry, self.pages_at) for entry in self.entries)


def entry_view(entry: Entry, pages_at: str) -> EntryView:
    """What every publisher shows of the entry; `pages_at` as for page_url."""
    summary = entry.primary.summary
    link = entry_link(entry, pages_at)
    name, project = release_name(link.title)
    others = [form for form in _form_links(entry, link.url, pages_at) if form.url != link.url]
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
        dated=summary.published is not None,
        updated=entry.updated,
        name=name,
        project=project,
        bullets=tuple(b for b in (one_line(b, BULLET_LIMIT) for b in summary.summary_bullets) if b),
        sections=_sections(entry),
        also_in=tuple(also_in),
        related=tuple(related),
    )


def _form_links(entry: Entry, main_url: str, pages_at: str) -> list[FormLink]:
    """Where each form is read, each address once."""
    links, seen = [], set()
    for form in entry.forms:
        link = _own_link(entry, form, main_url, pages_at)
        if link.url not in seen:
            seen.add(link.url)
            links.append(link)
    return links


def _own_link(entry: Entry, form: StoredPost, main_url: str, pages_at: str) -> FormLink:
    """Where a form is read: its address, or its page. A translation that names the original
    as its canonical address links to where it was fetched from, never the original's."""
    url = form_url(form) or page_url(form, pages_at)
    if url == main_url and form is not entry.primary:
        fetched = safe_url(form.url)
        url = fetched if fetched and fetched != main_url else page_url(form, pages_at)
    tag = language_tag(form.summary.language)
    return FormLink(url, tag, language_name(tag) if tag else None)


@dataclass(frozen=True)
class PostPage:
    """A form's page in the archive: its own highlights and features, where it is read (None
    when its page shows its text), and every form of its entry, marked if it is this one."""

    post: EntryView
    forms: tuple[tuple[FormLink, bool], ...]
    # How the form's own text is written, for showing it.
    text_format: PostFormat


def post_page(entry: Entry, form: StoredPost) -> PostPage:
    """The page of `form`, one of the entry's forms; its links lead from the posts folder."""
    pages_at = "../"
    main_url = entry_link(entry, pages_at).url
    links = [(_own_link(entry, other, main_url, pages_at), other is form) for other in entry.forms]
    own = next(link for link, current in links if current)
    rooted = Entry(entry.id, primary=form, alternates=tuple(other for other in entry.forms if other is not form))
    address = None if own.url == page_url(form, pages_at) else own.url
    return PostPage(replace(entry_view(rooted, pages_at), url=address), tuple(links), form.summary.format)


def _sections(entry: Entry) -> tuple[SectionView, ...]:
    """Features grouped by section, sections in the order they first appear in the post."""
    grouped: dict[str | None, list[FeatureView]] = {}
    for feature in entry.primary.summary.features:
        heading = one_line(feature.heading)
        if not heading:
            continue
        stability = one_line(feature.stability).title() or None
        grouped.setdefault(one_line(feature.section) or None, []).append(FeatureView(heading, stability))
    unsectioned = "Other features" if len(grouped) > 1 else "Features"
    return tuple(SectionView(title, tuple(features), title or unsectioned) for title, features in grouped.items())


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
