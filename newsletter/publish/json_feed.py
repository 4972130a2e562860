"""posts.json: the entries of posts.atom as a JSON Feed 1.1 (https://jsonfeed.org/version/1.1),
from the same items, so each entry has the same id and content in both. Same input, same
bytes: keys in a fixed order, no build time.

Older entries are in posts.atom's RFC 5005 archive pages only: JSON Feed's `next_url`
pages a feed as its server chooses, which readers fetch only when asked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from newsletter.config import Config
from newsletter.languages import language_tag
from newsletter.publish.feed_items import FeedItem
from newsletter.publish.paths import POSTS_JSON_FEED, site_url
from newsletter.publish.sanitize import one_line

VERSION = "https://jsonfeed.org/version/1.1"


def render(config: Config, items: Sequence[FeedItem]) -> bytes:
    """The feed of posts.atom's entries, given their items (feed_items), newest first."""
    feed: dict[str, Any] = {
        "version": VERSION,
        "title": one_line(config.site.title),
        "home_page_url": config.site.url,
        "feed_url": site_url(config, POSTS_JSON_FEED),
        "authors": [{"name": one_line(config.site.author)}],
    }
    language = language_tag(config.site.language)
    if language:
        feed["language"] = language
    feed["items"] = [_item(item) for item in items]
    return (json.dumps(feed, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _item(item: FeedItem) -> dict[str, Any]:
    fields: dict[str, Any] = {"id": item.id}
    if item.url:
        fields["url"] = item.url
    fields["title"] = item.title
    fields["content_html"] = item.content_html
    if item.summary:
        fields["summary"] = item.summary
    if item.published:
        fields["date_published"] = item.published.isoformat()
    fields["date_modified"] = item.updated.isoformat()
    fields["authors"] = [{"name": item.author}]
    if item.labels:
        fields["tags"] = [label.shown for label in item.labels]
    if item.language:
        fields["language"] = item.language
    return fields
