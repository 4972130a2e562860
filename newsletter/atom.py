"""Entries and digests -> Atom feeds (feedgen), byte-identical across rebuilds of the same input."""

from __future__ import annotations

from datetime import datetime
from html import escape
from itertools import groupby

from feedgen.feed import FeedGenerator

from newsletter.config import Config
from newsletter.models import Digest, Entry
from newsletter.sanitize import clean_html, one_line, safe_url

# The feeds' `updated` when there is no entry at all: a fixed instant, never the build time,
# so that an empty feed is byte-identical across rebuilds too.
EPOCH = datetime.fromisoformat("1970-01-01T00:00:00+00:00")


def entry_html(entry: Entry) -> str:
    """The bullets and the features grouped by section, as sanitized HTML."""
    summary = entry.primary.summary
    parts = []
    if summary.summary_bullets:
        items = "".join(f"<li>{escape(b)}</li>" for b in summary.summary_bullets)
        parts.append(f"<ul>{items}</ul>")
    for section, features in groupby(summary.features, key=lambda f: f.section):
        if section:
            parts.append(f"<h3>{escape(section)}</h3>")
        items = "".join(
            f"<li>{escape(f.heading)}" + (f" <b>[{escape(f.stability.title())}]</b>" if f.stability else "")
            + "</li>"
            for f in features
        )
        parts.append(f"<ul>{items}</ul>")
    return clean_html("".join(parts))


def entry_title(entry: Entry) -> str:
    return one_line(entry.primary.summary.title) or entry.primary.location


def entry_link(entry: Entry) -> str | None:
    summary = entry.primary.summary
    return safe_url(summary.canonical_url) or safe_url(entry.primary.url)


def _new_feed(config: Config, feed_id: str, title: str, self_url: str, updated: datetime) -> FeedGenerator:
    feed = FeedGenerator()
    feed.id(feed_id)
    feed.title(title)
    feed.author({"name": one_line(config.site.author)})
    feed.link(href=self_url, rel="self", type="application/atom+xml")
    feed.link(href=config.site.url, rel="alternate", type="text/html")
    feed.updated(updated)
    return feed


def posts_feed(config: Config, entries: list[Entry]) -> bytes:
    """posts.atom: the newest `feed_size` entries, newest first."""
    shown = entries[: config.feed_size]
    updated = max((e.updated for e in shown), default=EPOCH)
    feed = _new_feed(
        config, _site_url(config, "posts.atom"), config.site.title,
        _site_url(config, "posts.atom"), updated,
    )
    for entry in shown:
        item = feed.add_entry(order="append")
        item.id(entry.id)
        item.title(entry_title(entry))
        link = entry_link(entry)
        if link:
            item.link(href=link, rel="alternate", type="text/html")
        author = one_line(entry.primary.summary.author) or one_line(config.site.author)
        item.author({"name": author})
        item.published(entry.published)
        item.updated(entry.updated)
        if entry.primary.summary.summary_bullets:
            item.summary("\n".join(entry.primary.summary.summary_bullets))
        item.content(entry_html(entry), type="html")
    return feed.atom_str(pretty=True)


def digests_feed(config: Config, digests: list[Digest], bodies: dict[str, str]) -> bytes:
    """digests.atom: one entry per digest, its content the digest's HTML body."""
    updated = max((d.created for d in digests), default=EPOCH)
    feed = _new_feed(
        config, _site_url(config, "digests.atom"), f"{config.site.title}: digests",
        _site_url(config, "digests.atom"), updated,
    )
    for digest in digests:
        item = feed.add_entry(order="append")
        item.id(_site_url(config, f"digests/{digest.name}.html"))
        item.title(f"{config.site.title}: {digest.name}")
        item.link(href=_site_url(config, f"digests/{digest.name}.html"), rel="alternate", type="text/html")
        item.published(digest.created)
        item.updated(digest.created)
        item.content(bodies[digest.name], type="html")
    return feed.atom_str(pretty=True)


def _site_url(config: Config, path: str) -> str:
    return config.site.url.rstrip("/") + "/" + path
