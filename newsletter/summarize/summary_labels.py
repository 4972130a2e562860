"""How a post introduces a list near its top: a sentence saying what the release brings
("This release includes two interpreters:"), or a label naming its highlights
("Highlights of this release:"). The label outranks the sentence; and a heading that is one
of a set of parallel categories ("Major / Minor / Patch Changes") names no highlights."""

from __future__ import annotations

import re
from collections.abc import Callable

from newsletter import lazy_re
from newsletter.text.outline import Block, Heading, ListBlock, Paragraph, block_text

# A sentence ending in a colon that says the release brings what follows ("GHC 9.10 brings
# new features, including:", "Lumen 2 bringt unter anderem:").
BRINGS = lazy_re.compile(
    r"\b(?:includ(?:e|es|ing)|brings?|introduces|adds|bringt|enthält|unter anderem|apporte|inclut|"
    r"among (?:many )?others|"
    r"notamment|incluye|trae|entre otr[oa]s|porta|tra cui|inclui|traz)\b|包括|包含|带来|含む|導入|포함|도입",
    re.IGNORECASE)


def not_the_highlights(blocks: tuple[Block, ...], index: int, opening_end: int,
                       is_summary_cue: Callable[[Block], bool]) -> bool:
    """Whether the list at `index`, under a summary cue, is not the highlights after all: its
    heading is one of parallel categories, or a sentence says what the release brings while
    a later list of the opening follows a label of its own: the label names the highlights,
    the sentence only what comes in the box (a mail's "two interpreters")."""
    if isinstance(blocks[index - 1], Heading):
        return one_of_categories(blocks, index - 1)
    if not BRINGS.search(block_text(blocks[index - 1])):
        return False
    return any(isinstance(blocks[later], ListBlock) and isinstance(blocks[later - 1], Paragraph)
               and is_summary_cue(blocks[later - 1]) and not BRINGS.search(block_text(blocks[later - 1]))
               for later in range(index + 2, opening_end))


# Parallel categories: two more of the heading's level named as it is but for the first word.
_PEERS = 2
_REACH = 50


def one_of_categories(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether the heading is one of a set ("Major Changes" beside "Minor Changes" and
    "Patch Changes"): a changelog's kinds of change, which the release sorts its items into."""
    heading = blocks[index]
    if not isinstance(heading, Heading) or len(heading.text.split()) < 2:
        return False
    words = heading.text.casefold().split()
    peers = {block.text.casefold() for block in blocks[index + 1:index + _REACH]
             if isinstance(block, Heading) and block.level == heading.level
             and block.text.casefold().split()[1:] == words[1:]}
    return len(peers) >= _PEERS
