"""The only road from post text to HTML: everything a post says is escaped or cleaned here."""

from __future__ import annotations

import re
import threading
from html import escape
from typing import TYPE_CHECKING, Literal

import nh3

from newsletter import lazy_re
from newsletter.models import PostFormat

if TYPE_CHECKING:
    import markdown

# Tags feed content may carry: structure and emphasis; nothing that runs, loads, submits or
# styles. Other tags go but keep their text, so an email's layout tables melt into plain flow.
ALLOWED_TAGS = {
    "a", "b", "strong", "i", "em", "code", "small", "p", "br", "hr", "div", "span",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "pre", "blockquote",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "hreflang"}, "*": {"lang", "dir"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
_DEEP_QUOTE = lazy_re.compile(r"^(?:[ \t]*>){8,}", re.MULTILINE)
_DEEP_INDENT = lazy_re.compile(r"^[ \t]{33,}", re.MULTILINE)
_MAX_FENCES = 1_000
_LIST_ITEM = r"[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S"
_LIST_UNDER_LINE = lazy_re.compile(rf"^((?!{_LIST_ITEM})[^\s>].*)\n({_LIST_ITEM})", re.MULTILINE)
# From a fence line to the next one: every fence closes the one before, so a post of many
# fences is read once.
_FENCED = lazy_re.compile(r"^((?:```|~~~).*?^(?:```|~~~)[^\n]*)", re.MULTILINE | re.DOTALL)
# python-markdown's inline patterns, by name, and a character each needs to match at all
# (the line break pattern needs two spaces before a line end).
_INLINE_NEEDS = {
    "backtick": "`", "escape": "\\", "reference": "[", "link": "[", "image_link": "![",
    "image_reference": "![", "short_reference": "[", "short_image_ref": "![", "autolink": "<",
    "automail": "<", "linebreak": "  \n", "html": "<", "entity": "&",
}
# Renderers by settings, per thread (a renderer keeps state while it converts): at most two
# for each set of unused patterns, of which a corpus of posts shows a few.
_renderers = threading.local()


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
    text read as Markdown (paragraphs and lists come out right), then cleaned."""
    # Imported here, by a build writing a post's page only: python-markdown (imported by
    # _markdown) takes tens of milliseconds and the text package is the readers of every
    # format, which `send` and `serve`, importing this module for `one_line`, would load for
    # nothing.
    from newsletter.text.front_matter import split_front_matter

    _meta, body, _problem = split_front_matter(text)
    if text_format == "html":
        return clean_html(body)
    # python-markdown's time grows with the square of nesting: what posts never nest deeper
    # than is flattened, as the summarizer does (text/from_markdown.py).
    flat = _DEEP_QUOTE.sub("> " * 8, _DEEP_INDENT.sub(" " * 32, body))
    # A list right under a paragraph line ("Summary:" then "- item") is a list to CommonMark
    # and to authors, but not to python-markdown: a blank line between, outside code fences.
    flat = "".join(part if part.startswith(("```", "~~~")) else _LIST_UNDER_LINE.sub(r"\1\n\n\2", part)
                   for part in _FENCED.split(flat))
    # Its fenced code reader takes time with the square of the fences: past what posts hold,
    # fences stay text.
    fenced = flat.count("\n```") + flat.count("\n~~~") <= _MAX_FENCES
    try:
        return clean_html(_markdown(fenced, _unused_inline_patterns(flat)).reset().convert(flat))
    except RecursionError:  # nesting deeper than python-markdown recurses: shown as written
        # A renderer stopped halfway keeps its block parser's state (reset() leaves it):
        # this thread's renderers are made again.
        _renderers.made = {}
        return f"<pre>{escape(body)}</pre>"


def _unused_inline_patterns(text: str) -> frozenset[str]:
    """python-markdown's inline patterns that cannot match anywhere in `text`: each needs a
    character `text` lacks. Its inline pass tries every pattern on every text node, most of
    its time on posts; a pattern that cannot match changes nothing by its absence, since
    the text nodes hold only the text's own characters and placeholders made of letters,
    digits, a colon and control characters."""
    # Tabs become spaces and "\r" a line end before the inline pass.
    line_break = "\t" in text or "  \n" in text.replace("\r", "\n")
    return frozenset(name for name, needed in _INLINE_NEEDS.items()
                     if not (line_break if name == "linebreak" else needed in text))


def _markdown(fenced: bool, unused: frozenset[str]) -> markdown.Markdown:
    """A renderer for these settings, made once per thread: making one costs about 0.7 ms."""
    import markdown
    from markdown.extensions.fenced_code import FencedCodeExtension

    renderers: dict[tuple[bool, frozenset[str]], markdown.Markdown] = _renderers.__dict__.setdefault("made", {})
    if (fenced, unused) not in renderers:
        # The extension itself, not its name: a name is looked up among the entry points of
        # every installed package (~15 ms in each process that renders a page).
        renderer = markdown.Markdown(extensions=[FencedCodeExtension()] if fenced else [])
        for name in unused:
            renderer.inlinePatterns.deregister(name)
        renderers[fenced, unused] = renderer
    return renderers[fenced, unused]


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
