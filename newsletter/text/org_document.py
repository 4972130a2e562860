"""An Org-mode document: "#+TITLE:" keywords over a starred outline. Read as the starred
outline of plain text once Org's own markup says what it means: the keywords are the
post's metadata, a "COMMENT" subtree is not published, a heading's tags are words attached
to it, and source blocks are code."""

from __future__ import annotations

import re

from newsletter import lazy_re
from newsletter.models import STABILITIES

# The keyword lines an Org file opens with ("#+TITLE: Lumen 2.0", "#+OPTIONS: toc:nil").
_KEYWORDS = lazy_re.compile(r"\A(?:[ \t]*\n)*((?:#\+[A-Za-z_]+:[^\n]*\n(?:[ \t]*\n)*)+)")
_KEYWORD = lazy_re.compile(r"^#\+([A-Za-z_]+):[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_HEADING = lazy_re.compile(r"^(\*+) (.*)$")
# Org's heading tags stand at the line's end, after spaces: "** Faster sync   :beta:".
_TAGS = lazy_re.compile(r"[ \t]+:((?:[\w@#%]+:)+)[ \t]*$")
# Subtrees Org leaves out of what it publishes.
_UNPUBLISHED_TAGS = {"noexport", "archive"}
_BLOCK_START = lazy_re.compile(r"^[ \t]*#\+begin_(\w+)", re.IGNORECASE)
_BLOCK_END = lazy_re.compile(r"^[ \t]*#\+end_\w+", re.IGNORECASE)
_CODE_BLOCKS = {"src", "example", "export"}
# Verbatim and code ("=json=", "~make~") and links ("[[url][text]]", "[[url]]") read as their text.
_VERBATIM = lazy_re.compile(r"(?<![\w=~])([=~])(\S(?:[^\n]*?\S)?)\1(?![\w=~])")
_LINK = lazy_re.compile(r"\[\[([^\]\n]+)\](?:\[([^\]\n]+)\])?\]")


def org_document(text: str) -> tuple[dict[str, object], str, None] | None:
    """An Org document -> (its keywords as metadata, its body as a plain starred outline,
    no problem), or None for any other text. Only the keyword lines tell Org from a NEWS
    file outlined with stars."""
    opening = _KEYWORDS.match(text)
    if not opening:
        return None
    # A date is a timestamp: "<2024-05-20 Mon>".
    fields = {key.lower(): value.strip("<>[]") for key, value in _KEYWORD.findall(opening.group(1)) if value}
    if "title" not in fields:
        return None
    return dict(fields), "\n".join(_published_lines(text[opening.end():].split("\n"))), None


def _published_lines(lines: list[str]) -> list[str]:
    skipped_depth = 0
    in_code = False
    published: list[str] = []
    for line in lines:
        heading = _HEADING.match(line)
        if heading and not in_code:
            depth = len(heading.group(1))
            if skipped_depth and depth > skipped_depth:
                continue
            skipped_depth = depth if _unpublished(heading.group(2)) else 0
            if not skipped_depth:
                published.append(f"{heading.group(1)} {_heading_text(heading.group(2))}")
            continue
        if skipped_depth:
            continue
        if _BLOCK_END.match(line):
            in_code = False
        elif block := _BLOCK_START.match(line):
            in_code = block.group(1).lower() in _CODE_BLOCKS
        elif not line.lstrip().startswith("#+"):
            # Code is set apart by its indent, as the plain-text reader knows it.
            published.append(f"    {line}" if in_code else _inline(line))
    return published


def _unpublished(heading: str) -> bool:
    tags = _TAGS.search(heading)
    tagged = set(tags.group(1).strip(":").lower().split(":")) if tags else set()
    return heading.startswith("COMMENT") or bool(tagged & _UNPUBLISHED_TAGS)


def _heading_text(heading: str) -> str:
    """ "Native coverage   :experimental:" -> "Native coverage [experimental]": a maturity tag
    is the heading's label, bracketed as a label would be. Other tags (":breaking:") sort the
    heading and are no part of its title, which Org keeps apart from them."""
    tags = _TAGS.search(heading)
    if not tags:
        return _inline(heading)
    labels = [tag for tag in tags.group(1).strip(":").split(":") if tag.lower() in STABILITIES]
    return " ".join([_inline(heading[:tags.start()].rstrip()), *(f"[{tag}]" for tag in labels)])


def _inline(line: str) -> str:
    line = _LINK.sub(lambda link: link.group(2) or link.group(1), line)
    return _VERBATIM.sub(lambda found: found.group(2), line)
