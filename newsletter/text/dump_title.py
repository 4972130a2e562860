"""Where a page's text dump states its title: a short line with the byline and date lines
right under it, at the top or under the site's name, menus and rules."""

from __future__ import annotations

import re
from collections.abc import Callable

from newsletter.text.plain_lines import BULLET, SENTENCE_ENDS

# A site's header is a few lines: its name, a menu, a rule.
_HEADER_GROUPS = 4
# A menu entry, the site's name: a few words.
_CHROME_WORDS = 4
_ALPHANUMERIC = re.compile(r"\w")


def title_group(groups: list[list[str]], heads: Callable[[list[str]], bool]) -> int | None:
    """The index of the run of lines that holds the title over its byline and date, unspaced:
    the first run, or the first under nothing but the page's header when prose follows it
    and a line under the title is dated."""
    for index, group in enumerate(groups[:_HEADER_GROUPS + 1]):
        if 2 <= len(group) <= 4 and all(heads([line]) for line in group):
            dated = any(char.isdigit() for line in group[1:] for char in line)
            below = groups[index + 1] if index + 1 < len(groups) else []
            return index if index == 0 or dated and _is_prose(below) else None
        if not all(_is_header_line(line) for line in group):
            return None
    return None


def _is_header_line(line: str) -> bool:
    """A rule, or a menu entry or the site's name: a few words and no sentence."""
    text = BULLET.sub(r"\2", line).strip()
    return not _ALPHANUMERIC.search(text) or len(text.split()) <= _CHROME_WORDS and not text.endswith(SENTENCE_ENDS)


def _is_prose(group: list[str]) -> bool:
    return bool(group) and group[-1].rstrip().endswith(SENTENCE_ENDS)
