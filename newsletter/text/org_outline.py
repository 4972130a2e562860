"""Plain text outlined with stars, as Emacs NEWS files and Org documents are: "* Part",
"** Feature", "*** Sub-feature" at the margin."""

from __future__ import annotations

from collections.abc import Callable

from newsletter import lazy_re
from newsletter.text.outline import Block, Heading
from newsletter.text.plain_lines import UNDERLINE, line_runs, plain_block

_STARRED = lazy_re.compile(r"^(\*{1,6}) (\S.*)$")
# NEWS marks whether an entry is documented with a line of "+++" or "---" above it.
_ENTRY_MARK = lazy_re.compile(r"^(?:\+\+\+|---)\s*$")


def starred_outline(text: str, intro_blocks: Callable[[str], tuple[Block, ...]]) -> tuple[Block, ...] | None:
    """The outline of a text whose headings are starred lines at two depths or more, or None.
    A bullet list may star its items, but never sets a deeper item at the margin with "**":
    both depths are what tell an outline. The text above the first heading is read by
    `intro_blocks`."""
    lines = text.split("\n")
    starred = [(index, found) for index, line in enumerate(lines) if (found := _STARRED.match(line))]
    if not {1, 2} <= {len(found.group(1)) for _, found in starred}:
        return None
    first = starred[0][0]
    blocks = list(intro_blocks("\n".join(line for line in lines[:first] if not UNDERLINE.match(line))))
    ends = [index for index, _ in starred[1:]] + [len(lines)]
    for (index, found), end in zip(starred, ends, strict=True):
        blocks.append(Heading(len(found.group(1)) + 1, found.group(2).strip()))
        body = "\n".join(line for line in lines[index + 1:end]
                         if not (_ENTRY_MARK.match(line) or UNDERLINE.match(line)))
        blocks.extend(plain_block(group, indented_is_code=True) for group in line_runs(body))
    return tuple(blocks)
