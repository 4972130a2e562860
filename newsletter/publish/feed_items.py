"""An entry as the feeds of every post carry it: posts.atom (atom.py) and posts.json
(json_feed.py) are written from the same items, so both give each entry the same id,
title, dates, summary, content and labels."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from html import escape
from typing import Any

from newsletter.config import Config
from newsletter.models import Entry
from newsletter.publish.paths import site_url
from newsletter.publish.sanitize import clean_html, one_line
from newsletter.publish.views import EntryView, FormLink, entry_view


@dataclass(frozen=True)
class Label:
    """A category of an entry: its project, a section or a stability."""

    kind: str
    term: str
    label: str

    @property
    def shown(self) -> str:
        return f"{self.kind}: {self.label}"


@dataclass(frozen=True)
class FeedItem:
    id: str
    title: str
    author: str
    # None for a post that gives no date: the build's time would be a made-up date.
    published: datetime | None
    updated: datetime
    # The highlight bullets as text, if there are any.
    summary: str | None
    # Sanitized, every link absolute.
    content_html: str
    labels: tuple[Label, ...]
    language: str | None
    # The site-language form's address (its page in the archive when it has none), if any.
    url: str | None
    # The other forms: translations (with their languages), scrapes, mirrors.
    other_forms: tuple[FormLink, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "title": self.title, "author": self.author,
            "published": self.published.isoformat() if self.published else None,
            "updated": self.updated.isoformat(), "summary": self.summary, "content_html": self.content_html,
            "labels": [[label.kind, label.term, label.label] for label in self.labels],
            "language": self.language, "url": self.url,
            "other_forms": [[form.url, form.language, form.language_name] for form in self.other_forms],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FeedItem:
        return cls(
            id=data["id"], title=data["title"], author=data["author"],
            published=datetime.fromisoformat(data["published"]) if data["published"] else None,
            updated=datetime.fromisoformat(data["updated"]), summary=data["summary"],
            content_html=data["content_html"], labels=tuple(Label(*label) for label in data["labels"]),
            language=data["language"], url=data["url"],
            other_forms=tuple(FormLink(*form) for form in data["other_forms"]),
        )


# What an item is made of: part of the fingerprint of the items kept between builds
# (state/feed_item_cache.py), so that items of an earlier program's fields are made again.
ITEM_FIELDS = " ".join(field.name for field in fields(FeedItem))


def feed_items(config: Config, entries: Sequence[Entry]) -> list[FeedItem]:
    """The entries' items, newest first."""
    return newest_first((entry.published, entry_item(config, entry)) for entry in entries)


def entry_item(config: Config, entry: Entry) -> FeedItem:
    return feed_item(config, entry.id, entry_view(entry, site_url(config, "")))


def newest_first(items: Iterable[tuple[datetime, FeedItem]]) -> list[FeedItem]:
    """Items, each with its entry's publication time, newest first (then by entry id; items
    alike in both stay in the order given)."""
    return [item for _, item in sorted(items, key=lambda dated: feed_order(*dated), reverse=True)]


def feed_order(published: datetime, item: FeedItem) -> tuple[datetime, str]:
    """Where an item stands in a feed, its entry published at `published`: the feed is in
    descending order of this."""
    return published, item.id


def feed_item(config: Config, entry_id: str, view: EntryView) -> FeedItem:
    return FeedItem(
        id=entry_id,
        title=view.title,
        author=view.author or one_line(config.site.author),
        published=view.published if view.dated else None,
        updated=view.updated,
        summary="\n".join(f"• {bullet}" for bullet in view.bullets) or None,
        content_html=clean_html(entry_html(view), base_url=view.url),
        labels=labels(view),
        language=view.language,
        url=view.url,
        other_forms=(*view.also_in, *view.related),
    )


def labels(view: EntryView) -> tuple[Label, ...]:
    """Each category of the entry: its project, sections, stabilities."""
    found = [Label("Project", view.project.lower(), view.project)] if view.project else []
    found += [Label("Section", s.title.lower(), s.title) for s in view.sections if s.title]
    found += [Label("Stability", stability.lower(), stability) for stability in view.stabilities]
    return tuple(found)


def entry_html(view: EntryView) -> str:
    """The bullets, then the features grouped by section with their stability; then the
    other forms; its labels lead, for readers that drop a feed's categories. Every piece of
    post text is escaped here, before sanitizing."""
    kinds: dict[str, list[str]] = {}
    for label in labels(view):
        kinds.setdefault(label.kind, []).append(label.label)
    shown = " · ".join(f"{kind}: {', '.join(names)}" for kind, names in kinds.items())
    parts = [f"<p><small>{escape(shown)}</small></p>"] if shown else []
    if view.bullets:
        parts.append("<ul>" + "".join(f"<li>{escape(b)}</li>" for b in view.bullets) + "</ul>")
    for section in view.sections:
        if section.title:
            parts.append(f"<h3>{escape(section.title)}</h3>")
        items = "".join(
            f"<li>{escape(f.heading)}"
            + (f" <strong>({escape(f.stability)})</strong>" if f.stability else "")
            + "</li>"
            for f in section.features
        )
        parts.append(f"<ul>{items}</ul>")
    if view.also_in:
        links = ", ".join(
            f'<a href="{escape(form.url)}" hreflang="{escape(form.language or "")}">'
            f"{escape(form.language_name or form.url)}</a>"
            for form in view.also_in
        )
        parts.append(f"<p>Also in: {links}</p>")
    return "".join(parts)
