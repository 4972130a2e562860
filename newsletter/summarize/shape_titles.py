"""Titles that a post's shape shows rather than marks: a wiki page's name over the wiki's
tagline, a changelog's newest entry."""

from __future__ import annotations

import re

from newsletter import lazy_re
from newsletter.summarize.dates import is_date
from newsletter.text.outline import Block, Heading, Paragraph, block_text

# A wiki shows its own name under every page's title: "From Lumen Wiki", "Aus Wikipedia,
# der freien Enzyklopädie", "出典: ...". A few words, no sentence, introducing nothing
# ("From the release page:" quotes what follows).
_WIKI_TAGLINE = lazy_re.compile(r"(?:(?:from|aus|de|da|van|z|из)\s+|来自\s*|出典[:：]\s*)\S[^.!?。:：]{0,60}",
                                re.IGNORECASE)
# The page's name and its tagline stand among a dump's first blocks, under the wiki's menus.
_WINDOW = 12
_MAX_NAME = 120


def wiki_tagline_title(blocks: tuple[Block, ...]) -> tuple[str, int, str] | None:
    """A wiki page's dump: its name is the line right over the wiki's tagline, which prose
    follows (the page's own text). Returns the name, its index and the rule."""
    for index in range(1, min(len(blocks) - 1, _WINDOW)):
        name, tagline, below = blocks[index - 1], blocks[index], blocks[index + 1]
        if (isinstance(tagline, Paragraph) and not tagline.urls and _WIKI_TAGLINE.fullmatch(tagline.text.strip())
                and isinstance(name, (Paragraph, Heading)) and 0 < len(block_text(name)) <= _MAX_NAME
                and not block_text(name).endswith((".", ":", "。", "：")) and not is_date(block_text(name))
                and isinstance(below, Paragraph)):
            return block_text(name).strip(), index - 1, "a wiki page's name, over the wiki's tagline"
    return None


# A release's number, maybe dated, as a changelog heads each of its entries: "0.45.0",
# "v2.1.0-rc1", "1.2.0 [2026-10-03]", "2.0 (2026-01-04)".
BARE_VERSION = lazy_re.compile(r"v?\d+(?:\.\d+){1,3}(?:-[\w.]+)?(?:\s+[\[(]?\d{4}-\d{2}-\d{2}[\])]?)?")


def newest_entry_title(blocks: tuple[Block, ...]) -> str | None:
    """A changelog with no title of its own heads each entry with the release's number, the
    newest first: that number names what the post announces. Every top heading is one."""
    headings = [block for block in blocks if isinstance(block, Heading)]
    top = min((heading.level for heading in headings), default=0)
    entries = [heading.text.strip() for heading in headings if heading.level == top]
    if len(entries) > 1 and all(BARE_VERSION.fullmatch(entry) for entry in entries):
        return entries[0]
    return None
