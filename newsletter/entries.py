"""The forms of one post (the original, a text scrape of it, a translation) -> one Entry.

Forms are joined when they name the same canonical URL, share most of their distinctive
links, or announce nearly the same features and highlights. Every join is found through an
index (canonical URL -> posts, link -> posts, feature -> posts), so grouping stays
near-linear in the number of posts.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import quote, urlsplit

from newsletter.models import Entry, StoredPost

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


def group_forms(
    posts: Sequence[StoredPost], *, site_url: str, site_language: str | None = None,
) -> list[Entry]:
    """One Entry per post, its forms grouped, newest first. A form in `site_language`
    leads its entry where there is one: it is what the site's readers read first."""
    groups = _Groups(len(posts))
    _join_same_canonical(posts, groups)
    _join_overlapping(posts, groups, _link_keys, _MIN_LINK_JACCARD)
    _join_overlapping(posts, groups, _content_keys, _MIN_CONTENT_JACCARD)
    members: dict[int, list[StoredPost]] = defaultdict(list)
    for index, post in enumerate(posts):
        members[groups.find(index)].append(post)
    host = urlsplit(site_url).hostname or "localhost"
    site_primary = site_language.split("-")[0].lower() if site_language else None
    entries = [_entry(forms, host, site_primary) for forms in members.values()]
    entries.sort(key=lambda entry: entry.id)
    entries.sort(key=lambda entry: entry.published, reverse=True)
    return entries


class _Groups:
    """Union-find over post indexes."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, index: int) -> int:
        root = index
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[index] != root:
            self.parent[index], index = root, self.parent[index]
        return root

    def join(self, first: int, second: int) -> None:
        self.parent[self.find(first)] = self.find(second)


# Scheme, user info, host, port, path and query of an absolute URL. A regular expression
# rather than urlsplit: grouping compares every link of every post on every build.
_URL_PARTS = re.compile(
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


def _canonical(post: StoredPost) -> str | None:
    return url_key(post.summary.canonical_url) or url_key(post.url)


def _join_same_canonical(posts: Sequence[StoredPost], groups: _Groups) -> None:
    holders: dict[str, list[int]] = defaultdict(list)
    for index, post in enumerate(posts):
        for key in {_canonical(post), url_key(post.url)}:
            if key is not None:
                holders[key].append(index)
    for indexes in holders.values():
        if len(indexes) <= _MAX_FORMS:
            for index in indexes[1:]:
                groups.join(index, indexes[0])


def _link_keys(post: StoredPost) -> set[str]:
    return {key for key in map(url_key, post.summary.links) if key}


def _text_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip(" .:;,!?")


def _content_keys(post: StoredPost) -> set[str]:
    summary = post.summary
    headings = (feature.heading for feature in summary.features)
    return {key for key in map(_text_key, (*headings, *summary.summary_bullets)) if key}


def _join_overlapping(posts: Sequence[StoredPost], groups: _Groups,
                      keys_of: Callable[[StoredPost], set[str]], min_jaccard: float) -> None:
    keys = [keys_of(post) for post in posts]
    holders: dict[str, list[int]] = defaultdict(list)
    for index, post_keys in enumerate(keys):
        for key in post_keys:
            holders[key].append(index)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for indexes in holders.values():
        if len(indexes) <= _MAX_SHARED_BY:
            for pair in _pairs(indexes):
                shared[pair] += 1
    for (first, second), count in shared.items():
        union = len(keys[first]) + len(keys[second]) - count
        if count >= _MIN_SHARED and count >= min_jaccard * union:
            groups.join(first, second)


def _pairs(indexes: list[int]) -> Iterable[tuple[int, int]]:
    for position, first in enumerate(indexes):
        for second in indexes[position + 1:]:
            yield first, second


def _names_another_original(post: StoredPost) -> bool:
    """A form that points at an original elsewhere (a translation, a repost)."""
    named = url_key(post.summary.canonical_url)
    return named is not None and named != url_key(post.url)


def _entry(forms: list[StoredPost], host: str, site_language: str | None) -> Entry:
    by_age = sorted(forms, key=lambda post: (post.first_seen, post.id))
    primary = min(by_age, key=lambda post: (
        _names_another_original(post),
        site_language is not None and post.summary.language != site_language,
        _FORMAT_RANK.get(post.summary.format, 1),
        -len(post.summary.features),
    ))
    alternates = tuple(post for post in by_age if post is not primary)
    return Entry(id=_entry_id(by_age[0], host), primary=primary, alternates=alternates)


def _entry_id(earliest: StoredPost, host: str) -> str:
    """Derived from the earliest-seen form only, so a form found later never changes it:
    its canonical URL when it names one, else a tag URI of where it was read."""
    canonical = earliest.summary.canonical_url or earliest.url
    if canonical and url_key(canonical):
        return canonical.strip()
    location = quote(f"{earliest.source}/{earliest.location}", safe="/:@-._~!$&'()*+,;=")
    return f"tag:{host},{earliest.first_seen:%Y-%m-%d}:{location}"
