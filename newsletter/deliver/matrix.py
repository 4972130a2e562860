"""Matrix: an `m.room.message` event sent to one room through the client-server API.

    PUT <homeserver>/_matrix/client/v3/rooms/<room id>/send/m.room.message/<transaction id>
    Authorization: Bearer <access token>
    {"msgtype": "m.notice", "body": <plain text>, "format": "org.matrix.custom.html",
     "formatted_body": <HTML>}

`m.notice` is the message type for automated posts (clients do not notify on it as loudly,
and bots do not answer it). The transaction id is derived from the digest and the delivery:
the homeserver answers a second PUT of the same id with the event of the first, so a post
sent again after a lost answer or a killed run appears once. A homeserver refuses events
over 64 KiB: the content is kept under CONTENT_BYTES, the posts that do not fit counted
beside the full digest's link. The HTML is built from escaped text, then cleaned like every
post's HTML (newsletter/publish/sanitize.py).
"""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import quote

from newsletter.config.deliveries import DeliveryConfig
from newsletter.deliver.content import DigestView, feature_lines, more_text
from newsletter.deliver.http import Request, Target, json_request
from newsletter.publish.sanitize import clean_html
from newsletter.publish.views import EntryView
from newsletter.words import count

CONTENT_BYTES = 32 * 1024


def body(digest: DigestView) -> dict[str, Any]:
    text = [digest.title, digest.url]
    markup = [f"<p><strong>{_anchor(digest.url, html.escape(digest.title))}</strong></p>"]
    entries = digest.for_chat()
    shown = 0
    for entry in entries:
        entry_text, entry_markup = _entry(entry)
        if _size(text + [entry_text], markup + [entry_markup]) > CONTENT_BYTES:
            break
        text.append(entry_text)
        markup.append(entry_markup)
        shown += 1
    if shown < len(entries):
        more = count(len(entries) - shown, "more post")
        text.append(f"…and {more}: {digest.url}")
        markup.append(f"<p>…and {more}: {_anchor(digest.url, 'read the full digest')}</p>")
    return _content(text, markup)


def request(delivery: DeliveryConfig, target: Target, key: str, data: bytes) -> Request:
    assert delivery.room is not None and target.token is not None  # the config requires both
    url = (f"{target.url.rstrip('/')}/_matrix/client/v3/rooms/{quote(delivery.room, safe='')}"
           f"/send/m.room.message/{quote(key, safe='')}")
    return json_request("PUT", url, data, Authorization=f"Bearer {target.token}")


def _entry(entry: EntryView) -> tuple[str, str]:
    """The entry as plain text and as HTML."""
    text = [entry.title, *([entry.url] if entry.url else [])]
    title = html.escape(entry.title)
    markup = [f"<p><strong>{_anchor(entry.url, title) if entry.url else title}</strong></p>"]
    if entry.bullets:
        text += [f"• {bullet}" for bullet in entry.bullets]
        markup.append("<ul>" + "".join(f"<li>{html.escape(bullet)}</li>" for bullet in entry.bullets) + "</ul>")
    for heading, features in feature_lines(entry):
        text.append(f"{heading}: {features}")
        markup.append(f"<p><em>{html.escape(heading)}</em>: {html.escape(features)}</p>")
    more = more_text(entry)
    if more:
        text.append(more)
        markup.append(f"<p><em>{html.escape(more)}</em></p>")
    return "\n".join(text), "".join(markup)


def _content(text: list[str], markup: list[str]) -> dict[str, Any]:
    return {"msgtype": "m.notice", "body": "\n\n".join(text), "format": "org.matrix.custom.html",
            "formatted_body": clean_html("".join(markup))}


def _size(text: list[str], markup: list[str]) -> int:
    return len(json.dumps(_content(text, markup), ensure_ascii=False).encode("utf-8"))


def _anchor(url: str, inner: str) -> str:
    return f'<a href="{html.escape(url, quote=True)}">{inner}</a>'
