"""Which shape a post's text is in, told from the text: Markdown, AsciiDoc, an HTML page, or plain text."""

from __future__ import annotations

import re

from newsletter import lazy_re
from newsletter.models import PostFormat
from newsletter.text.asciidoc_lines import looks_like_asciidoc
from newsletter.text.plain_lines import ADORNMENT, is_underline, looks_like_code, opens_prose

_HTML_START = lazy_re.compile(r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|article|main)\b", re.I | re.S)
_CLOSING_BLOCK_TAG = lazy_re.compile(r"</(?:p|div|h[1-6]|ul|ol|li|section|table|span)>", re.I)
# Patterns of a line's start begin with "\n" rather than "^" and run over the text with a
# "\n" before it: the regex engine then leaps from newline to newline instead of trying "^"
# at every character, ten times faster.
_ATX = lazy_re.compile(r"#{1,6}[ \t]+\S")
# An ATX line after a blank line, with the next line that is not blank: a "# comment" a
# dump keeps from code sits right under the line before it.
_ATX_WITH_NEXT = lazy_re.compile(r"\n[ \t]*\n#{1,6}[ \t]+(\S.*)\n?(?:[ \t]*\n)?(.*)$", re.M)
# An ATX line with blank lines around it ("# comment" lines of code come in runs).
_ATX_ALONE = lazy_re.compile(r"\n[ \t]*\n#{1,6}[ \t]+\S[^\n]*(?=\n[ \t]*\n)")
# Signals only Markdown gives: fences and links (outside reST's ``literals``, where
# "a[i](x)" is code).
_MARKDOWN_ONLY = (
    lazy_re.compile(r"\n {0,3}(?:```|~~~)"),
    lazy_re.compile(r"\[[^\[\]\n]{1,300}\]\([^)\s]{1,500}\)"),
)
_REST_LITERAL = lazy_re.compile(r"``[^`\n]+``")
# A heading underlined with tildes or backticks ("Forms\n~~~~~") starts like a fence; reST
# asks the underline to (nearly) span its title, a fence opens on any line.
_UNDERLINED = lazy_re.compile(r"\n([^\n]+)\n([~`])\2{2,}[ \t]*(?=\n|$)")
_MARKDOWN_SIGNALS = (
    *_MARKDOWN_ONLY,
    # Strong emphasis, which reST shares ("__" is left out: it is how Python spells "__init__").
    lazy_re.compile(r"\*\*\S[^*\n]*\*\*"),
    lazy_re.compile(r"\n {0,3}>[ \t]?\S"),  # block quotes
    lazy_re.compile(r"\n<(?:h[1-6]|p|div|table|details|img)\b", re.I),  # raw HTML blocks
)
# What plain text is written with as well (dash lists, parts underlined with "===="): they
# count only beside a signal of Markdown's own.
_PLAIN_TOO = (
    lazy_re.compile(r"\n {0,3}[-*+][ \t]+\S"),  # bullet lists
    lazy_re.compile(r"\n[^\s=-][^\n]*\n(?:=+|-+)[ \t]*$", re.M),  # setext headings
)


# What reStructuredText has and Markdown has not; a setext heading and a bullet list are
# both, so a reST post reads as Markdown on those alone.
_REST_SIGNALS = (
    lazy_re.compile(r"\n(" + ADORNMENT + r")\1{2,}[ \t]*\n[^\n]+\n\1{3,}[ \t]*$", re.M),  # overlined title
    lazy_re.compile(r"\n\.\. [\w-]+::"),  # directives
    lazy_re.compile(r"\n:[A-Za-z][\w -]*:[ \t]+\S"),  # field lists (":Author: ...")
    lazy_re.compile(r"::[ \t]*\n[ \t]*\n[ \t]+\S"),  # literal blocks
    lazy_re.compile(r"`[^`\n]+ <[^<>`\s]+>`__?"),  # links ("`site <https://…>`_")
)


def _without_rest_markup(sample: str) -> str:
    """The sample without what reST shares with Markdown's own signals: ``literals`` (where
    "a[i](x)" is code) and underlines of tildes or backticks (which look like fences)."""
    def underline_or_fence(found: re.Match[str]) -> str:
        # Judged as the plain reader judges underlines: docutils only warns of one a little
        # short of its title, so real posts have them.
        underline = found.group(0)[len(found.group(1)) + 2:]
        return f"\n{found.group(1)}\n" if is_underline(underline, found.group(1)) else found.group(0)

    # A literal keeps its width: a heading that is all literal ("``std.parse()``") still has
    # a title over its underline.
    return _UNDERLINED.sub(underline_or_fence, _REST_LITERAL.sub(lambda found: "x" * len(found.group(0)), sample))


# A post shows its shape in its first pages; reading further only costs time.
_SAMPLE_CHARS = 20_000


def sniff_format(text: str, media_type: str | None = None, *, under_front_matter: bool = False) -> PostFormat:
    """"markdown" | "asciidoc" | "html" | "text", judged from the content; the media type only breaks
    a tie for a document that opens with a tag. A body under `---`/`+++` front matter comes
    from a site generator, which reads Markdown: one ATX heading over prose is enough."""
    head = text[:4096]
    if _HTML_START.match(head):
        return "html"
    sample = "\n" + text[:_SAMPLE_CHARS]
    # A "# comment" line from code sits on code or says code; a heading stands apart or
    # sits on prose.
    atx_headings = sum(1 for found in _ATX_WITH_NEXT.finditer("\n" + sample)
                       if not looks_like_code(found.group(1)) and opens_prose(found.group(2)))
    # A README-style post may open with a raw HTML block (a centered logo) over its
    # Markdown; an HTML fragment has no "# Heading" lines over prose.
    if head.lstrip().startswith("<") and not atx_headings and (
            media_type and "html" in media_type.lower() or _CLOSING_BLOCK_TAG.search(head)):
        return "html"
    if looks_like_asciidoc(sample):
        return "asciidoc"
    signals = sum(1 for pattern in _MARKDOWN_SIGNALS if pattern.search(sample))
    plain_too = sum(1 for pattern in _PLAIN_TOO if pattern.search(sample))
    opens_with_heading = bool(_ATX.match(sample.lstrip()))
    if not atx_headings and any(p.search(sample) for p in _REST_SIGNALS) \
            and not any(p.search(_without_rest_markup(sample)) for p in _MARKDOWN_ONLY):
        return "text"
    # A scrape may keep a few "# comment" lines from code: ATX-like lines alone are not
    # enough, unless the text opens with one or has several over prose.
    # Under front matter, headings may stand over headings alone, as an outline of names,
    # and one signal of Markdown is enough (a post with no headings, only bold lead-ins).
    if (atx_headings and signals + plain_too >= 1 or signals and signals + plain_too >= 2
            or opens_with_heading or atx_headings >= 2
            or under_front_matter and (atx_headings or signals or len(_ATX_ALONE.findall(sample)) >= 2)):
        return "markdown"
    return "text"
