"""A forum topic copied as text: the topic's title, then the first post's header (the
poster's login, their name, maybe their role, the post's date, one line each) over the post.

Forum software lays every topic out so, in any language: the header tells who wrote the
post, and the title is the line above it that the post's first paragraph echoes (a category
and its tags may stand between them).
"""

from __future__ import annotations

from dataclasses import dataclass

from newsletter import lazy_re
from newsletter.text.forum_thread import SHORT_DATE
from newsletter.text.outline import Block, Heading, Paragraph, block_text

_SHORT_DATE = lazy_re.compile(SHORT_DATE)
# A login: one word of letters, digits, dots, dashes or underscores.
_LOGIN = lazy_re.compile(r"@?[\w.-]{2,40}")
# The header's lines are short; a role ("Core Team", "Moderator") is a few words.
_HEADER_LINE = 40
_ROLE_WORDS = 3
# The topic's title stands a few lines above the header, under the forum's menus.
_TITLE_REACH = 3
_WINDOW = 30
# A post's first paragraph is a sentence or more.
_PROSE_CHARS = 60


@dataclass(frozen=True)
class ForumPost:
    author: str
    title_index: int | None
    # The header's last line, its date: what stands above it down from the title is furniture.
    date_index: int


def forum_post(blocks: tuple[Block, ...]) -> ForumPost | None:
    """The first post's header and the topic's title, when the text opens as a forum topic."""
    prose = next((i for i, block in enumerate(blocks[:_WINDOW])
                  if isinstance(block, Paragraph) and len(block.text) >= _PROSE_CHARS), None)
    if prose is None or prose < 3 or not _SHORT_DATE.fullmatch(_line(blocks[prose - 1])):
        return None
    date = prose - 1
    # Up from the date: maybe a role, then the poster's name right under their login.
    for name in (date - 1, date - 2):
        login = name - 1
        between = [_line(blocks[i]) for i in range(name + 1, date)]
        if (login >= 0 and _LOGIN.fullmatch(_line(blocks[login])) and _is_name(_line(blocks[name]))
                and all(0 < len(text.split()) <= _ROLE_WORDS for text in between)):
            return ForumPost(_line(blocks[name]), _title(blocks, login, block_text(blocks[prose])), date)
    return None


def _line(block: Block) -> str:
    """A block's text when it is one short line of its own, else ""."""
    text = block_text(block).strip() if isinstance(block, (Heading, Paragraph)) else ""
    return text if len(text) <= _HEADER_LINE and "\n" not in text else ""


def _is_name(text: str) -> bool:
    words = text.split()
    return 1 <= len(words) <= 4 and all(word[0].isupper() for word in words) and not any(c.isdigit() for c in text)


_WORD = lazy_re.compile(r"\w[\w.]*\w|\w")


def _title(blocks: tuple[Block, ...], login: int, first_paragraph: str) -> int | None:
    """The line above the header that shares the most words with the post's first
    paragraph (the topic's title names what the post announces), if any does."""
    said = {word.casefold() for word in _WORD.findall(first_paragraph)}
    best, best_shared = None, 0
    for index in range(login - 1, max(login - 1 - _TITLE_REACH, -1), -1):
        shared = len({word.casefold() for word in _WORD.findall(_line(blocks[index]))} & said)
        if shared > best_shared:
            best, best_shared = index, shared
    return best
