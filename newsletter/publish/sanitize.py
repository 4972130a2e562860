"""The only road from post text to HTML: everything a post says is escaped or cleaned here."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Literal

import nh3

from newsletter.models import PostFormat

if TYPE_CHECKING:
    from markdown_it_pyrs import MarkdownIt

# Tags feed content may carry: structure and emphasis; nothing that runs, loads, submits or
# styles. Other tags go but keep their text, so an email's layout tables melt into plain flow.
ALLOWED_TAGS = {
    "a", "b", "strong", "i", "em", "code", "small", "p", "br", "hr", "div", "span",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "pre", "blockquote",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "hreflang"}, "*": {"lang", "dir"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
# Nesting deeper than posts ever use: flattened before rendering, as the summarizer does
# (text/from_markdown.py), since each level costs the renderer more the deeper it goes.
_DEEP_QUOTE = re.compile(r"^(?:[ \t]*>){8,}", re.MULTILINE)
_DEEP_INDENT = re.compile(r"^[ \t]{33,}", re.MULTILINE)
# "- - - - item" nests a list per marker on one line.
_DEEP_MARKERS = re.compile(r"^((?:[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+){8})(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)+", re.MULTILINE)


def clean_html(html: str, base_url: str | None = None) -> str:
    """`html` with only harmless tags and attributes kept, and every link absolute.

    Relative links are resolved against `base_url` (the post's address) because many
    consumers, mail services among them, ignore `xml:base`; with no base they are dropped.
    """
    if base_url is not None and safe_url(base_url):
        try:
            return _clean(html, ("rewrite_with_base", base_url))
        except ValueError:  # a base the URL standard refuses ("https://</x/", port 99999)
            pass
    return _clean(html, "deny")


def post_html(text: str, text_format: PostFormat) -> str:
    """A post's own text as HTML, for its page: HTML cleaned; Markdown, AsciiDoc and plain
    text read as CommonMark (paragraphs and lists come out right), then cleaned."""
    # Imported here: the text package is the readers of every format, which `send` and
    # `serve`, importing this module for `one_line`, would load for nothing.
    from newsletter.text.front_matter import split_front_matter

    _meta, body, _problem = split_front_matter(text)
    if text_format == "html":
        return clean_html(body)
    flat = _DEEP_INDENT.sub(" " * 32, _DEEP_QUOTE.sub("> " * 8, _DEEP_MARKERS.sub(r"\1", body)))
    return clean_html(_commonmark().render(flat))


@functools.cache
def _commonmark() -> MarkdownIt:
    """markdown-it.rs, a CommonMark renderer in Rust: about half a millisecond for a 14 KB
    post where python-markdown took 17-34 ms, which made post pages most of a first build.
    cmark-gfm, which the summarizer reads with, is as fast but its Python entry points never
    free what they return. Imported here, by a build writing a post's page only."""
    from markdown_it_pyrs import MarkdownIt

    return MarkdownIt("commonmark")


def _clean(html: str, url_relative: Literal["deny"] | tuple[Literal["rewrite_with_base"], str]) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener",
        url_relative=url_relative,
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
    folded = " ".join(text.split())
    # Checking character by character is slow: only text with a control or format
    # character left after folding needs it, and only as much of it as can show.
    if not folded.isprintable():
        shown, hidden = folded[: 2 * limit], folded[2 * limit:]
        folded = " ".join("".join(ch if ch.isprintable() else " " for ch in shown).split())
        if hidden:
            folded += " …"
    return folded if len(folded) <= limit else folded[: limit - 1].rstrip() + "…"
