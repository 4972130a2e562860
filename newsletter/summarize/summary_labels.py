"""How a post introduces a list near its top: a sentence saying what the release brings
("This release includes two interpreters:"), or a label naming its highlights
("Highlights of this release:"). The label outranks the sentence."""

from __future__ import annotations

import re
from collections.abc import Callable

from newsletter.text.outline import Block, ListBlock, Paragraph, block_text

# A sentence ending in a colon that says the release brings what follows ("GHC 9.10 brings
# new features, including:", "Lumen 2 bringt unter anderem:").
BRINGS = re.compile(
    r"\b(?:includ(?:e|es|ing)|brings?|introduces|adds|bringt|enthält|unter anderem|apporte|inclut|"
    r"among (?:many )?others|"
    r"notamment|incluye|trae|entre otr[oa]s|porta|tra cui|inclui|traz)\b|包括|包含|带来|含む|導入|포함|도입",
    re.IGNORECASE)


def labeled_list_later(blocks: tuple[Block, ...], index: int, opening_end: int,
                       is_summary_cue: Callable[[Block], bool]) -> bool:
    """Whether the list at `index` follows a sentence saying what the release brings while a
    later list of the opening follows a label of its own: the label names the highlights,
    the sentence only what comes in the box (a mail's "two interpreters")."""
    if not BRINGS.search(block_text(blocks[index - 1])):
        return False
    return any(isinstance(blocks[later], ListBlock) and isinstance(blocks[later - 1], Paragraph)
               and is_summary_cue(blocks[later - 1]) and not BRINGS.search(block_text(blocks[later - 1]))
               for later in range(index + 2, opening_end))
