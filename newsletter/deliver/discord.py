"""Discord: a webhook, posted a message of embeds.

    POST <webhook URL>?wait=true
    {"content": <title and the full digest's link>, "embeds": [...], "allowed_mentions": {"parse": []}}

One embed per post: `title` (256 characters at most) linking the post, `description` (4096
at most) with its highlights and features. Discord takes 10 embeds and 6000 characters
across all of them; the posts that do not fit are counted in `content` (2000 at most),
beside the link. `allowed_mentions` with nothing to parse: no post can ping @everyone.
`wait=true` makes Discord answer 200 once the message exists, not 204 once it is queued.
Text is Markdown: the markup characters in a post's words are escaped with a backslash.
"""

from __future__ import annotations

from typing import Any

from newsletter import lazy_re
from newsletter.config.deliveries import DeliveryConfig
from newsletter.deliver.content import DigestView, cut, encoded_url, feature_lines, fit_lines, more_text
from newsletter.deliver.http import Request, Target, json_request
from newsletter.publish.views import EntryView
from newsletter.words import count

MAX_EMBEDS = 10
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
EMBEDS_LIMIT = 6000
CONTENT_LIMIT = 2000
# An embed with less room than this for its description is not worth showing.
LEAST_DESCRIPTION = 80
# What Discord's Markdown reads as markup (a masked link needs "[", a mention "<"); a
# backslash before it shows it as it is.
_MARKDOWN = lazy_re.compile(r"([\\*_~`|<>\[\]#])")


def body(digest: DigestView) -> dict[str, Any]:
    embeds: list[dict[str, Any]] = []
    used = 0
    for entry in digest.for_chat()[:MAX_EMBEDS]:
        title = cut(entry.title, TITLE_LIMIT)
        room = min(DESCRIPTION_LIMIT, EMBEDS_LIMIT - used - len(title))
        if room < LEAST_DESCRIPTION:
            break
        description = fit_lines(_description(entry), room)
        embeds.append({"title": title, **({"url": encoded_url(entry.url)} if entry.url else {}),
                       **({"description": description} if description else {})})
        used += len(title) + len(description)
    left = len(digest.entries) - len(embeds)
    url = encoded_url(digest.url)
    link = f"{count(left, 'more post')} in the full digest: <{url}>" if left else f"Full digest: <{url}>"
    content = cut(f"**{_escape(digest.title)}**", CONTENT_LIMIT - len(link) - 1) + "\n" + link
    return {"content": content, "embeds": embeds, "allowed_mentions": {"parse": []}}


def request(_delivery: DeliveryConfig, target: Target, _key: str, data: bytes) -> Request:
    joiner = "&" if "?" in target.url else "?"
    return json_request("POST", f"{target.url}{joiner}wait=true", data)


def _description(entry: EntryView) -> list[str]:
    lines = [f"• {_escape(bullet)}" for bullet in entry.bullets]
    lines += [f"**{_escape(heading)}**: {_escape(features)}" for heading, features in feature_lines(entry)]
    more = more_text(entry)
    if more:
        lines.append(f"*{more}*")
    return lines


def _escape(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)
