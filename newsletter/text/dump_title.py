"""Where a plain text states its title: a page's dump, a short line with the byline and date
lines under it, at the top or under the site's name, menus and rules; a plain text that
underlines its title and nothing else."""

from __future__ import annotations

from collections.abc import Callable

from newsletter import lazy_re
from newsletter.text.from_html import bare_urls
from newsletter.text.outline import Block, Paragraph
from newsletter.text.plain_lines import (
    BULLET,
    SENTENCE_ENDS,
    UNDERLINE,
    has_underlined_heading,
    is_list_group,
    is_underline,
    plain_block,
)

# A site's header is a few lines: its name, a menu, a rule.
_HEADER_GROUPS = 4
# A menu entry, the site's name: a few words.
_CHROME_WORDS = 4
_ALPHANUMERIC = lazy_re.compile(r"\w")


def title_group(groups: list[list[str]], heads: Callable[[list[str]], bool]) -> tuple[int, int] | None:
    """The runs of lines that hold the title over its byline and date, as (first, end): the
    first run, or the first under nothing but the page's header when prose follows it and a
    line under the title is dated. A dump may set the byline apart from the title by a
    blank line: a lone dated run of a line or two then follows the title's."""
    for index, group in enumerate(groups[:_HEADER_GROUPS + 1]):
        below = groups[index + 1] if index + 1 < len(groups) else []
        # A menu row over a breadcrumb is the page's header, not a title over its byline.
        if 2 <= len(group) <= 4 and all(heads([line]) for line in group) and not _is_menu_row(group[0]):
            dated = any(char.isdigit() for line in group[1:] for char in line)
            return (index, index + 1) if index == 0 or dated and _is_prose(below) else None
        after = groups[index + 2] if index + 2 < len(groups) else []
        # A title may end in "!" as a sentence does ("Lumen 3 is here!"); a breadcrumb of a
        # few steps over the title is the page's header ("Home › Blog › Lumen 3").
        if (len(group) == 1 and not _is_breadcrumb(group[0]) and not _DAY.fullmatch(group[0].strip())
                and heads([group[0].rstrip().removesuffix("!")])
                and 1 <= len(below) <= 2 and all(heads([line]) for line in below)
                and any(char.isdigit() for line in below for char in line) and _is_prose(after)):
            return index, index + 2
        if not _is_header_group(group):
            return None
    return None


# A blog's page heads each day's posts with the day ("Wednesday, February 7, 2024",
# "Mittwoch, 7. Februar 2024"): over the title, not the title over a dated line. (The
# readers import nothing of the summarizer: this is the one shape of its dates met here.)
_DAY = lazy_re.compile(r"(?:[^\W\d_]+,?\s+)?(?:[^\W\d_]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?"
                       r"|\d{1,2}\.?\s+(?:de\s+)?[^\W\d_]+\.?(?:\s+de)?,?)\s+\d{4}")


# A menu row's entries stand apart by a mark, or a dump's by a run of spaces: "Product •
# Docs • Pricing", "Lumen  Docs  Pricing".
_MENU_MARK = lazy_re.compile(r"\s+[•·|]\s+| {2,}")
# A breadcrumb's steps by an arrow, and name pages, a few words longer than menu entries:
# "Forums › Lumen › Lumen: Installation and configuration".
CRUMB_MARK = lazy_re.compile(r"\s+[›»>/]\s+")
_CRUMB_WORDS = 6
# Home, the section, the page: a title may hold one mark ("Lumen 3 / Nova"), not two.
_CRUMB_STEPS = 3


def is_header_line(line: str) -> bool:
    """A rule, or a menu entry or the site's name: a few words and no sentence; or a row of
    such entries."""
    text = BULLET.sub(r"\2", line).strip()
    steps = CRUMB_MARK.split(text)
    return not _ALPHANUMERIC.search(text) or not text.endswith(SENTENCE_ENDS) and (
        all(len(entry.split()) <= _CHROME_WORDS for entry in _MENU_MARK.split(text))
        or len(steps) > 1 and all(len(step.split()) <= _CRUMB_WORDS for step in steps))


# A row of a site's menu: three entries or more ("Home | Docs | Blog").
_MENU_ENTRIES = 3


def _is_menu_row(line: str) -> bool:
    return len(_MENU_MARK.split(line.strip())) >= _MENU_ENTRIES and is_header_line(line)


def _is_breadcrumb(line: str) -> bool:
    return len(CRUMB_MARK.split(line.strip())) >= _CRUMB_STEPS


def _is_header_group(group: list[str]) -> bool:
    """The site's header lines; or any lines over a rule the dump drew under the site's
    header (a menu row reads like any run of words), with only a breadcrumb under it."""
    rules = [index for index, line in enumerate(group) if not _ALPHANUMERIC.search(line)]
    return all(is_header_line(line) for line in group[rules[-1] + 1 if rules else 0:])


def header_blocks(group: list[str]) -> list[Block]:
    """A run of the page's header lines over the title: each line is one of its own (a menu
    row, a breadcrumb), not a paragraph wrapped over them, and keeps the gaps that set its
    entries apart; a menu the dump lists is a list."""
    if is_list_group(group):
        return [plain_block(group)]
    return [Paragraph(line.strip(), urls=bare_urls(line)) for line in group]


def _is_prose(group: list[str]) -> bool:
    return bool(group) and group[-1].rstrip().endswith(SENTENCE_ENDS)


def underlined_title_only(groups: list[list[str]]) -> str | None:
    """The title of a plain text that underlines it and nothing else ("Lumen 2.0" over
    "=========="): its parts are marked as a scrape's are, by numbers or layout alone."""
    first = groups[0]
    if len(first) < 2 or not is_underline(first[1], first[0]) or UNDERLINE.match(first[0]):
        return None
    if has_underlined_heading([first[2:], *groups[1:]]):
        return None
    return first[0].strip()
