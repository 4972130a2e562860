"""A copy of a release page (a code host's): its byline, "@ada released this", the lines
a dump joins to it or splits from it, and the release's name among them."""

from __future__ import annotations

import itertools
import re

from newsletter import lazy_re
from newsletter.summarize.dates import is_date
from newsletter.summarize.page_header import crumbs_title
from newsletter.text.dump_title import CRUMB_MARK
from newsletter.text.outline import Block, block_text, list_text

# A release page's byline names who made the release, by handle and maybe by name:
# "@ada Ada Byron released this 2 days ago". The handle's "@" tells it from a sentence
# ("We released this fix because...").
RELEASED_THIS = lazy_re.compile(r"^@(?P<handle>[\w.-]+)\s+(?:(?P<name>[^@\s][^@]{0,40}?)\s+)?"
                                r"(?:released|published|tagged) this\b", re.IGNORECASE)


# A copy of an older release page drops the "@": "ada released this Apr 14". The login in
# lower case and the date after it tell it from a sentence ("we released this fix...").
RELEASED_THIS_BARE = lazy_re.compile(r"(?!(?i:we|i|they|you|he|she)\s)(?P<handle>[A-Za-z0-9][\w.-]{0,38})\s+"
                                     r"(?:released|published|tagged) this\s+[^.!?]{0,40}\d[^.!?]{0,40}")


def is_release_byline(text: str) -> bool:
    # A dump joins the tag and commit lines to the byline ("... since this release v2.0 a1b2c3d").
    return bool(RELEASED_THIS.match(text.strip()) or RELEASED_THIS_BARE.match(text.strip()))


# A release page's line under its byline, counting the commits made since (a lynx dump
# numbers its link: "[16]96 commits to main since this release").
_COMMITS_SINCE = lazy_re.compile(r"(?:\[\d{1,4}\])?\d[\d,.]*k?\s+commits?\s+to\s+\S+\s+since\s+this\s+release\b",
                                 re.IGNORECASE)


def byline_tail(blocks: tuple[Block, ...], byline_index: int | None) -> int | None:
    """The index of the block right under a release's byline that a dump split from it
    ("· 14 commits to main since this release", read as a list): the byline's, not news."""
    if byline_index is None or byline_index + 1 >= len(blocks):
        return None
    byline_text = block_text(blocks[byline_index])
    if not (is_release_byline(byline_text) or joined_release_byline(byline_text)[1]):
        return None
    following = blocks[byline_index + 1]
    text = block_text(following) or list_text(following)
    return byline_index + 1 if _COMMITS_SINCE.match(text.strip()) else None


def joined_release_byline(text: str) -> tuple[str, re.Match[str] | None]:
    """`text` before the release byline a dump joined to its end ("v2.0 Latest @ada released
    this"), and that byline; `text` and None when it has none."""
    joined = text.find(" @")
    released = RELEASED_THIS.match(text[joined + 1:]) if joined >= 0 else None
    return (text[:joined], released) if released else (text, None)


# The badges and buttons a release page shows by a release's name.
RELEASE_BADGE = lazy_re.compile(r"(?:\s+(?:latest|pre-?release|draft|compare))+$", re.IGNORECASE)


# A copy of a whole release page: the repository's tabs and the breadcrumb's steps, one a
# line, joined before the release's name.
_TABS_THEN_TAG = lazy_re.compile(r".{0,200}\bReleases\s+\S*\d\S*\s+(?=\S)")


def joined_release_name(text: str) -> str | None:
    """The release's name a dump joined to its byline, without its badges ("Build 147"
    from "Build 147 Latest @ada released this"); None when nothing is joined to it."""
    name, joined = joined_release_byline(text)
    if joined is None:
        return None
    # "Code Issues 21 ... Releases v2.0 Lumen 2.0".
    tabs = _TABS_THEN_TAG.match(name)
    name = name[tabs.end():] if tabs else name
    # Badges alone ("Latest Compare @ada released this") name nothing: the name stands above.
    return RELEASE_BADGE.sub("", f" {name.strip()}").strip() or None



def repeats_step(step: str, line: str) -> bool:
    """A title line under a breadcrumb repeats its last step, maybe with the date beside it
    ("Releases / v2.8.0" over "v2.8.0 2024-07-01") or a badge the page shows by it, once or
    twice ("v2.8.0 Latest Latest"). A dump may join the release's byline to it ("v2.8.0
    Latest @ada released this")."""
    line = line.strip()
    rest = line[len(step):] if line.startswith(f"{step} ") else None
    if rest is not None:
        before, joined = joined_release_byline(rest)
        if joined is not None:
            rest = before.strip() or None
            if rest is None:
                return True
    return line == step or rest is not None and (is_date(rest) or BADGES.fullmatch(rest.strip()) is not None)


# A badge is a word: the same one shown twice ("Latest Latest") is one badge.
BADGES = lazy_re.compile(r"([^\W\d_][\w-]{0,15})(?:\s+\1)?")


def is_badge_line(text: str) -> bool:
    """A line of a release page's badges and buttons: "Latest", or a few known ones side
    by side ("Latest Compare")."""
    return BADGES.fullmatch(text.strip()) is not None or RELEASE_BADGE.fullmatch(f" {text.strip()}") is not None


# The steps of a breadcrumb, then the line under its last step: "Releases / v2.0 v2.0 Latest".
_CRUMBS_THEN_LINE = lazy_re.compile(r"(?:[^/›>»\s]+\s+[/›>»]\s+){1,4}(?P<step>[^/›>»\s]+)\s+(?P<line>.+)")


def crumbs_over_release(text: str) -> str | None:
    """The release's name, when a dump joined a breadcrumb ending in it, the name's own line
    and the release's byline in one block ("Releases / v2.0 v2.0 Latest @ada released this")."""
    found = _CRUMBS_THEN_LINE.fullmatch(text.strip())
    if not found or joined_release_byline(found["line"])[1] is None:
        return _named_after_crumbs(text)
    return found["step"] if repeats_step(found["step"], found["line"]) else _named_after_crumbs(text)


# The breadcrumb's last step (the release's tag), then the line naming the release, to the end.
_LAST_CRUMB = lazy_re.compile(r"\s[/›>»]\s+(?P<step>[^/›>»\s]+)\s+(?P<name>[^/›>»]+)$")
# A dump joins the whole page header to the byline: the name is among its last words.
_NAME_REACH = 200


def _named_after_crumbs(text: str) -> str | None:
    """A release's own name, on its line between the breadcrumb ending in its tag and the
    byline a dump joined after it: "Releases / v2.0 Lumen Preview v2.0 Pre-release @ada
    released this" names "Lumen Preview v2.0" (it holds the tag)."""
    before, joined = joined_release_byline(text.strip())
    found = _LAST_CRUMB.search(before[-_NAME_REACH:]) if joined is not None else None
    name = RELEASE_BADGE.sub("", found["name"].strip()) if found else ""
    return name if found and found["step"] in name.split() else None


# A breadcrumb: a few steps of a few words each, apart by slashes or arrows.
CRUMBS = lazy_re.compile(r"[^/›>»\s][^/›>»]{0,40}(?:\s+[/›>»]\s+[^/›>»\s][^/›>»]{0,40}){1,4}")


def forum_crumb_title(blocks: tuple[Block, ...]) -> tuple[int, str] | None:
    """A forum's breadcrumb ends with the topic's title, which the line under it repeats
    after the forum's word for a topic ("Topic: X", maybe its pager after: "Pages (2): 1 2"):
    that line's index and the title. A step of one word names a forum, not a topic."""
    for index, (block, under) in enumerate(itertools.pairwise(blocks), 1):
        step = CRUMB_MARK.split(block_text(block))[-1]
        if (CRUMBS.fullmatch(block_text(block)) and len(step.split()) > 1
                and re.search(rf"[:：]\s*{re.escape(step)}(?:\s|$)", block_text(under))):
            return index, step
    return None


# A dump may join the breadcrumb to the menu line above it ("Code Issues 12 Releases / v2.0"):
# its steps are then single words at the line's end.
_JOINED_CRUMBS = lazy_re.compile(r"\s[^/›>»\s]+(?:\s+[/›>»]\s+[^/›>»\s]+){1,4}$")


# A page's title is among its first blocks, and is a line long at most.
_WINDOW = 30
_MAX_NAME = 150


def copied_page_title(blocks: tuple[Block, ...], byline_index: int | None) -> tuple[str, int, str] | None:
    """A text copy of a page titled by its breadcrumb, a forum's or a release page's."""
    # A page's breadcrumb ends with the page's own name, which its title line repeats.
    crumbs = next((i for i, block in enumerate(blocks[:min(_WINDOW, len(blocks)) - 1])
                   if (CRUMBS.fullmatch(block_text(block)) or _JOINED_CRUMBS.search(block_text(block)))
                   and repeats_step(block_text(block).rsplit(maxsplit=1)[-1], block_text(blocks[i + 1]))), None)
    if crumbs is not None:
        return (block_text(blocks[crumbs]).rsplit(maxsplit=1)[-1], crumbs + 1,
                "repeats the last step of the page's breadcrumb")
    repeated = crumbs_title(blocks[:_WINDOW])
    if repeated is not None:
        return repeated[1], repeated[0], "repeats the page's name that ends its breadcrumb"
    named = forum_crumb_title(blocks[:_WINDOW])
    if named is not None:
        return named[1], named[0], "the last step of a forum's breadcrumb, repeated under it"
    # A dump may join the breadcrumb, the release's name and its byline in one block.
    joined = next(((i, step) for i, block in enumerate(blocks[:_WINDOW])
                   if (step := crumbs_over_release(block_text(block)))), None)
    if joined is not None:
        return joined[1], joined[0], "repeats the last step of the page's breadcrumb, the byline joined to it"
    # A dump may join the release's name and its badges to the byline ("Build 147 Latest
    # @ada released this"): the release's name is the title, even where the tag the breadcrumb ends in differs.
    name = joined_release_name(block_text(blocks[byline_index])) if byline_index is not None else None
    if name and len(name) <= _MAX_NAME and byline_index is not None:
        return name, byline_index, "the release's name, joined to its byline"
    return None
