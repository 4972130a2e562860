"""A post's Markdown bold kept in a text copy ("**Faster sync.** It now ..."): a forum copied
from its posts' source keeps the markers, and a paragraph opening with them is led by the
bold text, as its rendering would be."""

from __future__ import annotations

import dataclasses
import re

from newsletter import lazy_re
from newsletter.text.outline import Block, Paragraph

# The bold run opening a paragraph, and what follows it.
_BOLD_LEAD = lazy_re.compile(r"\*\*(?=\S)([^*\n]{1,200}?)(?<=\S)\*\*(.*)", re.S)
# Code marks inside the bold: the rendering shows the code's text.
_CODE = lazy_re.compile(r"`([^`\n]+)`")


def with_bold_leads(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks, each paragraph opening with a bold run led by its text, the markers gone."""
    return tuple(_led(block) if isinstance(block, Paragraph) else block for block in blocks)


def _led(paragraph: Paragraph) -> Paragraph:
    found = _BOLD_LEAD.fullmatch(paragraph.text)
    if found is None:
        return paragraph
    lead = _CODE.sub(r"\1", found.group(1))
    text = lead + found.group(2)
    return dataclasses.replace(paragraph, text=text, lead=lead)
