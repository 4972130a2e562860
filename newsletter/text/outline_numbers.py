"""A post that numbers its parts as a nested outline ("1. New features" over "1.1 Faster
joins") uses the numbers as markup, as it does its headings' levels: its headings go without
them. A flat "1.", "2." may be part of a heading's name; so may a version ("0.13 notes")."""

from __future__ import annotations

import dataclasses
import re

from newsletter.text.outline import Block, Heading

# An outline's number before a heading: "1. New features", "2.1 Faster joins".
_OUTLINE_NUMBER = re.compile(r"[1-9]\d?\.(?:[1-9]\d?\.?)*\s+(?=\S)")
_SUB_NUMBER = re.compile(r"[1-9]\d?\.[1-9]\d?\.?\s")
# An outline's first part: "1. Engine", "1 Engine".
_FIRST_NUMBER = re.compile(r"1\.?\s")


def without_outline_numbers(blocks: tuple[Block, ...], *, from_one: bool = False) -> tuple[Block, ...]:
    """The blocks with their headings' outline numbers dropped, when a heading is numbered
    a level down ("2.1"); with `from_one`, when a heading numbered "1." opens the outline
    too (marked-up headings may name versions: "1.2 Highlights", "1.1 Highlights")."""
    headings = [block.text for block in blocks if isinstance(block, Heading)]
    if not any(_SUB_NUMBER.match(text) for text in headings) or from_one and not any(
            _FIRST_NUMBER.match(text) for text in headings):
        return blocks
    return tuple(dataclasses.replace(block, text=_OUTLINE_NUMBER.sub("", block.text, count=1))
                 if isinstance(block, Heading) and _OUTLINE_NUMBER.match(block.text) else block for block in blocks)
