"""A webhook of the operator's own: the whole digest as JSON.

    POST <URL>
    Content-Type: application/json
    Idempotency-Key: <the same for the same digest and delivery, in every run>
    Authorization: Bearer <token>          (with token_env only)

The body (README, "Deliveries", has this schema):

    {"version": 1,
     "digest": {"name", "title", "url", "created"},
     "entries": [{"title", "url", "name", "project", "author", "language", "published",
                  "updated", "bullets": [str], "sections": [{"title", "features":
                  [{"heading", "stability"}]}], "also_in": [{"url", "language"}]}]}

Times are ISO 8601 in UTC; a value not known is null. Every post is there in full: a
receiver formats it as it likes.
"""

from __future__ import annotations

from typing import Any

from newsletter.config.deliveries import DeliveryConfig
from newsletter.deliver.content import DigestView
from newsletter.deliver.http import Request, Target, json_request
from newsletter.publish.views import EntryView

VERSION = 1


def body(digest: DigestView) -> dict[str, Any]:
    return {
        "version": VERSION,
        "digest": {"name": digest.name, "title": digest.title, "url": digest.url,
                   "created": digest.created.isoformat()},
        "entries": [_entry(entry) for entry in digest.entries],
    }


def request(_delivery: DeliveryConfig, target: Target, key: str, data: bytes) -> Request:
    token = {"Authorization": f"Bearer {target.token}"} if target.token else {}
    return json_request("POST", target.url, data, **{"Idempotency-Key": key}, **token)


def _entry(entry: EntryView) -> dict[str, Any]:
    return {
        "title": entry.title,
        "url": entry.url,
        "name": entry.name,
        "project": entry.project,
        "author": entry.author,
        "language": entry.language,
        "published": entry.published.isoformat() if entry.dated else None,
        "updated": entry.updated.isoformat(),
        "bullets": list(entry.bullets),
        "sections": [{"title": section.title, "features": [
            {"heading": feature.heading, "stability": feature.stability} for feature in section.features]}
            for section in entry.sections],
        "also_in": [{"url": form.url, "language": form.language} for form in entry.also_in],
    }
