"""The archive's layout: where each output lives in the archive folder, and its public URL.

Paths are relative to the archive folder, with "/" separators, so the same string names a
file on disk and a page on the site.
"""

from __future__ import annotations

import hashlib
import re

from newsletter import lazy_re
from newsletter.config import Config

POSTS_FEED = "posts.atom"
# The same entries as a JSON Feed 1.1, and the media type it is served as.
POSTS_JSON_FEED = "posts.json"
JSON_FEED_TYPE = "application/feed+json"
DIGESTS_FEED = "digests.atom"
INDEX = "index.html"
# Every feature's labels across its project's releases: an index of the projects, a page
# for each (features/<slug>.html), and a feed of the changes of label. An index of many
# projects lists their initials, and each initial's projects on a page beside it
# (features-<initial>.html, beside it so that the rows' links hold on either).
FEATURES_PAGE = "features.html"
FEATURES_FEED = "features.atom"
FEATURES_FOLDER = "features"
# Full pages of the index, beside it: index-<n>.html.
INDEX_PAGES_GLOB = "index-*.html"
# RFC 5005 archive pages of posts.atom.
FEED_PAGES_FOLDER = "feeds"
FEED_PAGES_GLOB = "posts-*.atom"
DIGESTS_FOLDER = "digests"
# A page for every post: posts/<slug>.html.
POSTS_FOLDER = "posts"
# Every folder of the archive that a build writes files in.
OUTPUT_FOLDERS = ("", FEED_PAGES_FOLDER, DIGESTS_FOLDER, POSTS_FOLDER, FEATURES_FOLDER)
_SOURCE_SUFFIX = lazy_re.compile(r"\.(?:md|markdown|mdx|txt|text|html?|adoc|asciidoc|rst)$", re.IGNORECASE)


def feed_page_path(number: int) -> str:
    return f"{FEED_PAGES_FOLDER}/posts-{number}.atom"


def features_initial_path(initial: str) -> str:
    return f"features-{initial}.html"


def index_page_path(number: int) -> str:
    return f"index-{number}.html"


def digest_path(name: str, suffix: str = "html") -> str:
    """A digest's file: its email HTML, its plain-text twin ("txt") or its message ("eml")."""
    return f"{DIGESTS_FOLDER}/{name}.{suffix}"


def post_page_path(source: str, location: str) -> str:
    """A post's page, named after where it was read (which never changes, unlike its title),
    with a hash of its source and location to keep two posts of one name apart."""
    stem = _SOURCE_SUFFIX.sub("", location.rstrip("/").rsplit("/", 1)[-1])
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")[:60].rstrip("-") or "post"
    unique = hashlib.sha256(f"{source}\0{location}".encode()).hexdigest()[:8]
    return f"{POSTS_FOLDER}/{slug}-{unique}.html"


def feature_page_path(project: str) -> str:
    """A project's feature page, named after the project ("Kite Data" -> kite_data.html); a
    name that does not fit in a plain file name ("C++") gets a slug and a hash of it after a
    dot, which no plain name has, so two projects never share a page. A name that has an
    underscore of its own is hashed too: "foo_bar" must not take "Foo Bar"'s page."""
    key = project.casefold()
    plain = key.replace(" ", "_")
    if "_" in key or not re.fullmatch(r"[a-z0-9_-]{1,60}", plain):
        slug = re.sub(r"[^a-z0-9]+", "-", key).strip("-")[:40].rstrip("-") or "project"
        plain = f"{slug}.{hashlib.sha256(key.encode()).hexdigest()[:8]}"
    return f"{FEATURES_FOLDER}/{plain}.html"


def site_url(config: Config, path: str) -> str:
    """The public address of a file of the archive folder."""
    return config.site.url.rstrip("/") + "/" + path
