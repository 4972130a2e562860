"""The forms of one post (the original, a text scrape of it, a translation) -> one Entry.

Forms are joined when they name the same canonical URL or have the very same text, or,
within one source, share most of their distinctive links or announce nearly the same
features and highlights. Content is never enough across sources: anyone can copy another
source's headings and add their own. Every join is found through an index of keys
(canonical URL -> posts, link -> posts, feature -> posts): over all posts in memory here, or
over the state database's when a build regroups only what a new or changed post touches
(regroup.py), which gives the same entries.

An entry belongs to the source that first brought it: only that source's forms can lead it
(give it its link and features), so a form another source brings later never takes over an
entry already published.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol
from urllib.parse import quote, urlsplit

from newsletter import lazy_re
from newsletter.models import KEY_KINDS, Entry, FormKeys, KeyKind, StoredPost

# A link or heading found in more posts than this is site furniture (a project's home page,
# its social accounts), not evidence that two posts are one. Likewise an address that more
# posts than this call canonical is a site's front page, not one post's.
_MAX_SHARED_BY = 50
_MAX_FORMS = 20
# Two forms are one post when most of their keys are shared (Jaccard index): a translation
# keeps nearly all links, a scrape nearly all headings, while two posts of one project
# share only the links in its footer and a few stock headings...
_MIN_LINK_JACCARD = 0.5
_MIN_CONTENT_JACCARD = 0.6
# ...and at least this many keys, so a couple of common links do not join two short posts.
_MIN_SHARED = 3
_FORMAT_RANK = {"markdown": 0, "asciidoc": 0, "html": 0, "text": 1}
# Per kind of key: how many posts may hold a key for it to join them, and the share of keys
# two posts must have in common (None: one shared address is enough).
HOLDERS_LIMIT: dict[KeyKind, int] = {"same": _MAX_FORMS, "link": _MAX_SHARED_BY, "content": _MAX_SHARED_BY}
_MIN_JACCARD: dict[KeyKind, float | None] = {"same": None, "link": _MIN_LINK_JACCARD, "content": _MIN_CONTENT_JACCARD}


class KeyIndex(Protocol):
    """Which posts hold which keys."""

    def holders(self, kind: KeyKind, key: str, limit: int) -> Collection[int] | None:
        """The posts holding `key`, or None when more than `limit` do."""

    def keys_of(self, post_ids: Collection[int]) -> dict[int, FormKeys]: ...


def group_forms(
    posts: Sequence[StoredPost], keys: Mapping[int, FormKeys] | None = None, *,
    site_url: str, site_language: str | None = None,
) -> list[Entry]:
    """One Entry per post, its forms grouped, newest first. A form in `site_language`
    leads its entry where there is one: it is what the site's readers read first.
    `keys` are the posts' form_keys, by post id, when the caller has them already."""
    index = _MemoryIndex(dict(keys) if keys is not None else {post.id: form_keys(post) for post in posts})
    groups = Groups()
    for post in posts:
        groups.add(post.id)
        for partner in partners(post.id, index.keys[post.id], index):
            groups.join(post.id, partner)
    by_id = {post.id: post for post in posts}
    entries = [make_entry([by_id[i] for i in members], site_url, site_language) for members in groups.members()]
    entries.sort(key=lambda entry: entry.id)
    entries.sort(key=lambda entry: entry.published, reverse=True)
    return entries


def partners(post_id: int, keys: FormKeys, index: KeyIndex) -> set[int]:
    """The posts that `post_id`, holding `keys`, is joined to directly: through an address
    both go by, or through enough links or content in common. Keys held by too many posts
    join none."""
    found: set[int] = set()
    for kind in KEY_KINDS:
        shared: dict[int, int] = {}
        for key in keys.of(kind):
            for other in index.holders(kind, key, HOLDERS_LIMIT[kind]) or ():
                if other != post_id:
                    shared[other] = shared.get(other, 0) + 1
        min_jaccard = _MIN_JACCARD[kind]
        if min_jaccard is None:
            found.update(shared)
            continue
        others = index.keys_of([other for other, count in shared.items() if count >= _MIN_SHARED])
        for other, other_keys in others.items():
            count = shared[other]
            if count >= min_jaccard * (len(keys.of(kind)) + len(other_keys.of(kind)) - count):
                found.add(other)
    return found


class _MemoryIndex:
    def __init__(self, keys: dict[int, FormKeys]) -> None:
        self.keys = keys
        self.held: dict[KeyKind, dict[str, list[int]]] = {kind: {} for kind in KEY_KINDS}
        for kind, held in self.held.items():
            for post_id, post_keys in keys.items():
                for key in post_keys.of(kind):
                    if key in held:
                        held[key].append(post_id)
                    else:
                        held[key] = [post_id]

    def holders(self, kind: KeyKind, key: str, limit: int) -> list[int] | None:
        held = self.held[kind][key]
        return held if len(held) <= limit else None

    def keys_of(self, post_ids: Collection[int]) -> dict[int, FormKeys]:
        return {post_id: self.keys[post_id] for post_id in post_ids}


class Groups:
    """Union-find over post ids; groups come out in the order their first post was added."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def add(self, post_id: int) -> None:
        self.parent.setdefault(post_id, post_id)

    def find(self, post_id: int) -> int:
        root = post_id
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[post_id] != root:
            self.parent[post_id], post_id = root, self.parent[post_id]
        return root

    def join(self, first: int, second: int) -> None:
        self.add(second)
        self.parent[self.find(first)] = self.find(second)

    def members(self) -> list[list[int]]:
        groups: dict[int, list[int]] = {}
        for post_id in self.parent:
            groups.setdefault(self.find(post_id), []).append(post_id)
        return list(groups.values())


# Scheme, user info, host, port, path and query of an absolute URL. A regular expression
# rather than urlsplit: grouping compares every link of every post on every build.
_URL_PARTS = lazy_re.compile(
    r"\s*(?:[A-Za-z][A-Za-z0-9+.-]*:)?//(?:[^/?#@]*@)?(\[[^\]/?#]*\]|[^/?#:]*)(?::[0-9]*)?"
    r"([^?#]*)(?:\?([^#]*))?")


def url_key(url: str | None) -> str | None:
    """A URL as compared between forms: no scheme, "www.", fragment or trailing slash."""
    parts = _URL_PARTS.match(url) if url else None
    if parts is None:
        return None
    host, path, query = parts.groups()
    host = host.strip("[]").lower().removeprefix("www.")
    if not host:
        return None
    return f"{host}{path.rstrip('/')}?{query}" if query else f"{host}{path.rstrip('/')}"


def form_keys(post: StoredPost) -> FormKeys:
    """Addresses and the text's hash join across sources; links and content are keyed by
    source, so they join only the forms of one source."""
    summary = post.summary
    own = url_key(post.url)
    addresses = {url_key(summary.canonical_url) or own, own}
    headings = (feature.heading for feature in summary.features)
    return FormKeys(
        # The same text under another source name is the same post (a source renamed). No
        # address key starts with "/": it starts with its host.
        same=frozenset({*(key for key in addresses if key), f"/text/{post.content_hash}"}),
        link=frozenset(f"{post.source}\n{key}" for key in map(url_key, summary.links) if key),
        content=frozenset(f"{post.source}\n{key}"
                          for key in map(_text_key, (*headings, *summary.summary_bullets)) if key),
    )


def _text_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip(" .:;,!?")


def _names_another_original(post: StoredPost) -> bool:
    """A form that points at an original elsewhere (a translation, a repost)."""
    named = url_key(post.summary.canonical_url)
    return named is not None and named != url_key(post.url)


def make_entry(forms: Iterable[StoredPost], site_url: str, site_language: str | None) -> Entry:
    """The entry of a group of forms: its primary form, from the source that first brought
    it, and its id. `site_url` is the one entry ids are made under (the state keeps the
    first one built with: ids must not move with the site)."""
    site_primary = site_language.split("-")[0].lower() if site_language else None
    by_age = sorted(forms, key=lambda post: (post.first_seen, post.id))
    owner = by_age[0].source
    primary = min((post for post in by_age if post.source == owner), key=lambda post: (
        _names_another_original(post),
        site_primary is not None and post.summary.language != site_primary,
        _FORMAT_RANK.get(post.summary.format, 1),
        -len(post.summary.features),
    ))
    alternates = tuple(post for post in by_age if post is not primary)
    host = urlsplit(site_url).hostname or "localhost"
    return Entry(id=_entry_id(by_age[0], host), primary=primary, alternates=alternates)


def _entry_id(earliest: StoredPost, host: str) -> str:
    """Derived from the earliest-seen form only, so a form found later never changes it:
    its canonical URL when it names one, else a tag URI of where it was first read."""
    canonical = earliest.summary.canonical_url or earliest.url
    if canonical and url_key(canonical):
        return canonical.strip()
    location = quote(f"{earliest.source}/{earliest.first_location or earliest.location}", safe="/:@-._~!$&'()*+,;=")
    return f"tag:{host},{earliest.first_seen:%Y-%m-%d}:{location}"
