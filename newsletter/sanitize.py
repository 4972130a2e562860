"""The only road from post text to HTML: everything a post says is escaped or cleaned here."""

from __future__ import annotations

import nh3

# Tags a summary may carry into feed content and email; nothing that runs, loads or styles.
ALLOWED_TAGS = {"a", "b", "strong", "i", "em", "code", "p", "ul", "ol", "li", "h2", "h3", "span", "br"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "span": {"class"}, "*": {"lang", "dir"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def clean_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener",
    )


def safe_url(url: str | None) -> str | None:
    """`url` if it is an absolute http(s) address, else None (no javascript:, data: ...)."""
    if url and url.split(":", 1)[0].lower() in ("http", "https") and "://" in url:
        return url
    return None


def one_line(text: str | None, limit: int = 300) -> str:
    """Text for a header or title: control characters and line breaks folded, length capped."""
    if not text:
        return ""
    folded = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return folded if len(folded) <= limit else folded[: limit - 1].rstrip() + "…"
