"""A post that numbers its parts as a nested outline ("1. New features" over "1.1 Faster
joins") uses the numbers as markup, as it does its headings' levels: its headings go without
them. So does one counting its parts "1.", "2.", "3." as a list counts its items; a lone
"1." may be part of a heading's name, and so may a version ("0.13 notes")."""

from __future__ import annotations

import dataclasses
import re

from newsletter import lazy_re
from newsletter.text.outline import Block, Heading

# An outline's number before a heading: "1. New features", "2.1 Faster joins".
_OUTLINE_NUMBER = lazy_re.compile(r"[1-9]\d?\.(?:[1-9]\d?\.?)*\s+(?=\S)")
_SUB_NUMBER = lazy_re.compile(r"[1-9]\d?\.[1-9]\d?\.?\s")
# An outline's first part: "1. Engine", "1 Engine".
_FIRST_NUMBER = lazy_re.compile(r"1\.?\s")


def without_outline_numbers(blocks: tuple[Block, ...], *, from_one: bool = False) -> tuple[Block, ...]:
    """The blocks with their headings' outline numbers dropped, when a heading is numbered
    a level down ("2.1"); with `from_one`, when a heading numbered "1." opens the outline
    too (marked-up headings may name versions: "1.2 Highlights", "1.1 Highlights")."""
    blocks = _without_counted_numerals(blocks)
    headings = [block.text for block in blocks if isinstance(block, Heading)]
    nested = any(_SUB_NUMBER.match(text) for text in headings) and not (
        from_one and not any(_FIRST_NUMBER.match(text) for text in headings))
    if not nested and not _counted(blocks) and not _counted_across_parts(blocks):
        return blocks
    return _dropped(blocks, _OUTLINE_NUMBER)


def _dropped(blocks: tuple[Block, ...], number: re.Pattern[str]) -> tuple[Block, ...]:
    """The blocks, each heading that opens with `number` without it."""
    return tuple(dataclasses.replace(block, text=number.sub("", block.text, count=1))
                 if isinstance(block, Heading) and number.match(block.text) else block for block in blocks)


# A part's number as a list numbers its items: "1. Painted supports".
_COUNT = lazy_re.compile(r"([1-9]\d?)\.\s+(?=\S)")
# Parts counted from one, three at least: a version ("0.13 notes") is no count.
_MIN_COUNTED = 3


def _counted(blocks: tuple[Block, ...]) -> bool:
    """Whether the post's top parts count "1.", "2.", "3." and on, in order, each a part
    with no parts of its own: the numbers are the list's, as a list marker is, not part of
    the parts' names. (Parts that group others, or a count among one part's sub-parts, keep
    their numbers as written.)"""
    headings = [block for block in blocks if isinstance(block, Heading)][1:]
    top = min((heading.level for heading in headings), default=0)
    numbers: list[int] = []
    for heading, following in zip(headings, [*headings[1:], None], strict=False):
        found = _COUNT.match(heading.text) if heading.level == top else None
        if found:
            if following is not None and following.level > top:
                return False
            numbers.append(int(found.group(1)))
    return len(numbers) >= _MIN_COUNTED and numbers == list(range(1, len(numbers) + 1))


def _counted_across_parts(blocks: tuple[Block, ...]) -> bool:
    """Whether the parts' sub-parts count "1.", "2.", "3." and on, in order, with the count
    running on from one part into the next ("1." to "3." under Import, "4." under Export):
    a count no one part holds is the post's way of marking its sub-parts, not their names.
    Each counted sub-part has no parts of its own."""
    headings = [block for block in blocks if isinstance(block, Heading)]
    counted = [(index, heading.level, int(found.group(1))) for index, heading in enumerate(headings)
               if (found := _COUNT.match(heading.text))]
    levels = {level for _, level, _ in counted}
    if len(counted) < _MIN_COUNTED or len(levels) != 1:
        return False
    level = levels.pop()
    if [number for _, _, number in counted] != list(range(1, len(counted) + 1)):
        return False
    parents: set[int] = set()
    parent = -1
    counted_at = {index for index, _, _ in counted}
    for index, heading in enumerate(headings):
        if heading.level < level:
            parent = index
        elif index in counted_at and index + 1 < len(headings) and headings[index + 1].level > level:
            return False
        if index in counted_at:
            parents.add(parent)
    return len(parents) >= 2 and -1 not in parents


# Chinese and Japanese count their parts in numerals before a comma of enumeration: "一、AI 与检索".
_NUMERALS = "一二三四五六七八九十"
_NUMERAL_COUNT = lazy_re.compile(rf"([{_NUMERALS}])[、．]\s*(?=\S)")


def _without_counted_numerals(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks with their headings' numerals dropped, when two or more headings count
    "一、", "二、" on in order: the count is the outline's, as "1.", "2." are."""
    counted = [found.group(1) for block in blocks
               if isinstance(block, Heading) and (found := _NUMERAL_COUNT.match(block.text))]
    if len(counted) < 2 or "".join(counted) != _NUMERALS[:len(counted)]:
        return blocks
    return _dropped(blocks, _NUMERAL_COUNT)
