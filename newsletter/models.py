"""The plain data passed between stages: sources -> Post -> Summary -> publishers.

Every type here is a frozen dataclass of plain values (CacheValidators a named tuple, for
speed); datetimes are timezone-aware UTC.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple, get_args

# Maturity labels a feature heading may carry, as written in the labeling rules.
Stability = Literal["stable", "beta", "prototype", "alpha", "experimental", "preview", "deprecated"]
STABILITIES: tuple[Stability, ...] = get_args(Stability)
# The shape the summarizer recognised a post in.
PostFormat = Literal["markdown", "asciidoc", "html", "text"]


@dataclass(frozen=True)
class Post:
    """One post as a source delivered it, before any interpretation."""

    source: str
    # Where the post was read: a path relative to its folder source, or a URL.
    location: str
    text: str
    # What the transport said the content is ("text/html"); None when nothing said it.
    media_type: str | None = None
    # The post's web address, when the source knows it (a page URL, a feed entry link).
    url: str | None = None
    # What the source says of the post beside its text (a feed entry's own title, author and
    # date): used where the text itself says nothing.
    published: datetime | None = None
    title: str | None = None
    author: str | None = None


@dataclass(frozen=True)
class Feature:
    heading: str
    stability: Stability | None
    # The heading of the part of the post that groups this feature, if any.
    section: str | None


@dataclass(frozen=True)
class Summary:
    """What the summarizer pulls out of one post."""

    title: str | None
    author: str | None
    language: str
    canonical_url: str | None
    summary_bullets: tuple[str, ...]
    features: tuple[Feature, ...]
    format: PostFormat
    published: datetime | None = None
    # Absolute http(s) links found in the post; shared links help group forms of one post.
    links: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "author": self.author,
            "language": self.language,
            "canonical_url": self.canonical_url,
            "published": self.published.isoformat() if self.published else None,
            "format": self.format,
            "summary_bullets": list(self.summary_bullets),
            "features": [
                {"heading": f.heading, "stability": f.stability, "section": f.section}
                for f in self.features
            ],
            "links": list(self.links),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Summary:
        published = data.get("published")
        return cls(
            title=data.get("title"),
            author=data.get("author"),
            language=data.get("language") or "en",
            canonical_url=data.get("canonical_url"),
            summary_bullets=tuple(data.get("summary_bullets") or ()),
            features=tuple(
                Feature(f["heading"], f.get("stability"), f.get("section"))
                for f in data.get("features") or ()
            ),
            format=data.get("format") or "text",
            published=datetime.fromisoformat(published) if published else None,
            links=tuple(data.get("links") or ()),
        )


class CacheValidators(NamedTuple):
    """What a web server said identifies the version of a document it sent (the HTTP
    ETag and Last-Modified headers); sent back, they ask "changed since?". A tuple: a build
    makes and compares two for each file of a folder source (20,000 at 10,000 posts), which a
    frozen dataclass makes three times slower."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True)
class SourceResult:
    """What collecting one source gave: its posts, or the one-line reason it failed.

    `not_modified` means the source answered "nothing changed" (HTTP 304): its posts
    already in the store stay as they are.

    `posts` may be read as it is iterated (a folder reads each file only then, so that one
    post's text at a time is in memory): iterate it once, and only after that read
    `skipped` and `validators`, which such a source completes as it reads.
    """

    source: str
    posts: Iterable[Post] = ()
    error: str | None = None
    not_modified: bool = False
    # Posts of this source that could not be read, as (location, reason).
    skipped: Sequence[tuple[str, str]] = ()
    # Locations of posts the web server said are unchanged (HTTP 304): their stored
    # versions stay as they are.
    unchanged: tuple[str, ...] = ()
    # The validators of each URL this source read in full, by URL, to be sent back on
    # the next collection.
    validators: Mapping[str, CacheValidators] = field(default_factory=dict)
    # The locations a folder had at its last collection and lists no more: their posts are
    # gone (their files deleted or renamed). None for a source that cannot tell (a feed drops
    # old entries).
    gone: frozenset[str] | None = None


@dataclass(frozen=True)
class SourceStatus:
    """How collecting a source went, as the state database remembers it."""

    source: str
    last_success: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    # Posts of this source in the state database.
    posts: int


@dataclass(frozen=True)
class StoredPost:
    """A post as the state database knows it."""

    id: int
    source: str
    location: str
    url: str | None
    content_hash: str
    first_seen: datetime
    last_seen: datetime
    # When the post's content last changed (its first sighting, or a later edit).
    changed: datetime
    summary: Summary
    # Where it was first read, when its file was renamed since: its entry's id names that.
    first_location: str | None = None


@dataclass(frozen=True)
class ReleaseStamp:
    """An entry as the feature pages decide what changed: its project follows from its
    source and title, and `stamp` changes whenever its appearance could."""

    key: int
    source: str
    title: str | None
    stamp: str


@dataclass(frozen=True)
class Appearance:
    """One post (an entry: all its forms count once) as the feature histories read it: the
    features of its primary form, without its bullets."""

    # The entry's lowest post id.
    key: int
    # Its Atom id, and the address of its primary form, if it has one.
    entry_id: str
    url: str | None
    source: str
    title: str | None
    published: datetime | None
    # When its file was last modified (a folder's post), else when it was first seen.
    seen: datetime
    features: tuple[Feature, ...]


# The kinds of keys that can join the forms of one post (entries.py says how).
KeyKind = Literal["same", "link", "content"]
KEY_KINDS: tuple[KeyKind, ...] = get_args(KeyKind)


@dataclass(frozen=True)
class FormKeys:
    """What can join a post to its other forms: the addresses it goes by (one shared is
    enough), its distinctive links, and its feature headings and bullets (most must be shared)."""

    same: frozenset[str] = frozenset()
    link: frozenset[str] = frozenset()
    content: frozenset[str] = frozenset()

    def of(self, kind: KeyKind) -> frozenset[str]:
        match kind:
            case "same":
                return self.same
            case "link":
                return self.link
            case "content":
                return self.content


@dataclass(frozen=True)
class Entry:
    """One post with all its forms (original, scrape, translations): a feed entry,
    a digest section."""

    id: str
    primary: StoredPost
    # The other forms of the same post, e.g. a translation.
    alternates: tuple[StoredPost, ...] = ()

    @property
    def forms(self) -> tuple[StoredPost, ...]:
        return (self.primary, *self.alternates)

    @property
    def published(self) -> datetime:
        return self.primary.summary.published or min(p.first_seen for p in self.forms)

    @property
    def updated(self) -> datetime:
        return max(p.changed for p in self.forms)


@dataclass(frozen=True)
class Regrouping:
    """A change to the grouping of posts into entries, as the state database records it."""

    # The entries of every post regrouped, as they are now.
    entries: tuple[Entry, ...]
    # The entries they replace, by their lowest post id (how the database names an entry).
    replaced: frozenset[int]
    # The keys of each post saved since its last grouping, and the keys it was last grouped
    # with (none for a new post).
    keys: Mapping[int, FormKeys]
    old_keys: Mapping[int, FormKeys] = field(default_factory=dict)


@dataclass(frozen=True)
class Waiting:
    """A post saved (or skipped, or let in by a filter) since its last grouping."""

    post: StoredPost
    # The version of it last grouped, whose keys the index holds; None if never grouped.
    last_grouped: StoredPost | None
    # Whether a source's filter skips it: it leaves the grouping.
    leaving: bool = False


@dataclass(frozen=True)
class EntryStamp:
    """What an entry's feed entry depends on, read without its forms' summaries: a feed page
    whose stamps have not changed has the same bytes."""

    # The lowest post id among its forms: how the database names an entry.
    key: int
    id: str
    updated: datetime
    # Post ids of its forms, primary first, as Entry.forms orders them.
    forms: tuple[int, ...]


@dataclass(frozen=True)
class RenderedDigest:
    """A digest as an email: its HTML, its plain-text twin, and its subject."""

    html: str
    text: str
    subject: str
    # Where each message puts its own unsubscribe address: random for each rendering, so
    # no post text can hold it and be turned into a reader's personal link.
    unsubscribe_slot: str
    # Where each message puts its own preferences page, likewise; None without [web], which
    # serves the page.
    preferences_slot: str | None = None


@dataclass(frozen=True)
class Graduation:
    """A feature whose label a digest's post changed: a line of its Graduated block."""

    project: str
    # The entry of the post that changed it (its lowest post id), and the feature's heading there.
    release: int
    heading: str
    # "Streaming Reader: Beta → Stable".
    change: str


@dataclass(frozen=True)
class GraduatedLine:
    """A line of a digest's Graduated block, linking the page of the feature's project."""

    text: str
    url: str

    def __str__(self) -> str:
        # A template written when the lines were plain text shows them as before.
        return self.text


# The least maturity a subscriber may ask for; a slice without one takes every feature.
MinStability = Literal["stable", "beta"]
MIN_STABILITIES: tuple[MinStability, ...] = get_args(MinStability)


@dataclass(frozen=True)
class Slice:
    """What of each digest one subscriber asked for (publish/slices.py says what it keeps).
    Names keep the spelling they were given and are compared without case; empty is all."""

    min_stability: MinStability | None = None
    projects: frozenset[str] = frozenset()
    sections: frozenset[str] = frozenset()

    @property
    def everything(self) -> bool:
        return self.min_stability is None and not self.projects and not self.sections

    def key(self) -> str:
        """The same for slices that keep the same things: names case-folded, in order."""
        return json.dumps([self.min_stability, sorted({p.casefold() for p in self.projects}),
                           sorted({s.casefold() for s in self.sections})], ensure_ascii=False)

    def to_json(self) -> str:
        return json.dumps({"min_stability": self.min_stability, "projects": sorted(self.projects),
                           "sections": sorted(self.sections)}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> Slice:
        data = json.loads(text) if text else {}
        return cls(data.get("min_stability"), frozenset(data.get("projects", ())), frozenset(data.get("sections", ())))


@dataclass(frozen=True)
class DigestHead:
    """A digest without its entries: what the mailer, the digests feed and the archive's
    index pages need of it."""

    id: int
    name: str
    created: datetime
    # How many entries it carries.
    entry_count: int


@dataclass(frozen=True)
class Digest:
    id: int
    # "<date>-<n>": the n-th digest made on that date; names its files in the archive.
    name: str
    created: datetime
    entries: Sequence[Entry] = field(default=())
