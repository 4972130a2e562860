"""Slack: an incoming webhook, posted a Block Kit message.

    POST <webhook URL>
    {"text": <fallback for notifications>, "blocks": [...], "unfurl_links": false, "unfurl_media": false}

Blocks: a `header` (plain text, 150 characters at most), a `context` line with the date and
the full digest's link, a `section` of mrkdwn per post (3000 characters at most), and, when
not every post fits in Slack's 50 blocks, a last section linking the rest. Slack answers 200
"ok". Its text escapes &, < and > only: with them escaped, no post can mention a channel.
"""

from __future__ import annotations

from typing import Any

from newsletter.config.deliveries import DeliveryConfig
from newsletter.deliver.content import DigestView, cut, encoded_url, feature_lines, fit_lines, more_text
from newsletter.deliver.http import Request, Target, json_request
from newsletter.publish.views import EntryView, date_text
from newsletter.words import count

MAX_BLOCKS = 50
HEADER_LIMIT = 150
SECTION_LIMIT = 3000


def body(digest: DigestView) -> dict[str, Any]:
    entries = digest.for_chat()
    # The header and context blocks, and a last section when some posts are left out.
    room = MAX_BLOCKS - 2
    shown = entries if len(entries) <= room else entries[: room - 1]
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": cut(digest.title, HEADER_LIMIT)}},
        {"type": "context", "elements": [_mrkdwn(f"{date_text(digest.created)} · {_link(digest.url, 'Full digest')}")]},
        *({"type": "section", "text": _mrkdwn(_entry_text(entry))} for entry in shown),
    ]
    if len(shown) < len(entries):
        more = count(len(entries) - len(shown), "more post")
        blocks.append({"type": "section", "text": _mrkdwn(f"…and {more}: {_link(digest.url, 'read the full digest')}")})
    return {"text": f"{digest.title}: {digest.url}", "blocks": blocks, "unfurl_links": False, "unfurl_media": False}


def request(_delivery: DeliveryConfig, target: Target, _key: str, data: bytes) -> Request:
    return json_request("POST", target.url, data)


def _entry_text(entry: EntryView) -> str:
    title = f"*{_link(entry.url, entry.title) if entry.url else _escape(entry.title)}*"
    lines = [title, *(f"• {_escape(bullet)}" for bullet in entry.bullets)]
    lines += [f"_{_escape(heading)}_: {_escape(features)}" for heading, features in feature_lines(entry)]
    more = more_text(entry)
    if more:
        lines.append(f"_{more}_")
    return fit_lines(lines, SECTION_LIMIT)


def _mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def _link(url: str, text: str) -> str:
    # In <url|text> the URL ends at "|" or ">": encoded_url percent-encodes both.
    return f"<{encoded_url(url)}|{_escape(text)}>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
