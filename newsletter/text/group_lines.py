"""A plain-text post may group its parts under lines of their own: a line ending in a colon
over a run of heading lines ("Changes since 1.2:" over "Faster sync", "Dark theme", ...), or
short lines each over a list. Such a line introduces what is below it as a heading does, so it
is read as the heading over them."""

from __future__ import annotations

from newsletter.text.outline import Block, Heading, ListBlock, Paragraph, block_text

# A group's name is a few words; it opens a run of a few parts.
_GROUP_WORDS = 5
_MIN_PARTS = 3
_COLONS = (":", "：")
# Besides its lists, a group may hold one block more (a code sample).
_OTHER_BLOCKS = 1
# A line naming a group ends in no mark: a sentence or an introduction ("as follows:") does.
_ENDING_MARKS = (".", "!", "?", ":", ";", ",", "。", "：", "！", "？")


def colon_group_lines(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks with each short line ending in a colon, right over a run of three or more
    guessed headings of one level (each with its text under it), made their heading."""
    grouped = list(blocks)
    for index, block in enumerate(blocks[:-1]):
        under = blocks[index + 1]
        if (isinstance(block, Paragraph) and block.text.endswith(_COLONS) and not block.urls
                and len(block.text.split()) <= _GROUP_WORDS and isinstance(under, Heading) and under.guessed
                and under.level > 1 and _run_of_parts(blocks, index + 1, under.level) >= _MIN_PARTS):
            grouped[index] = Heading(under.level - 1, block.text[:-1].rstrip(), guessed=True)
    return tuple(grouped)


def _run_of_parts(blocks: tuple[Block, ...], start: int, level: int) -> int:
    """How many guessed headings of `level`, each over a paragraph, follow one another from
    `start`: counted up to the few a group needs, so each line looks a few blocks ahead."""
    count = 0
    stop = start + 2 * _MIN_PARTS
    for heading, text in zip(blocks[start:stop:2], blocks[start + 1:stop:2], strict=False):
        if not (isinstance(heading, Heading) and heading.guessed and heading.level == level
                and isinstance(text, Paragraph)):
            break
        count += 1
    return count


def list_group_lines(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks with each short line of its own right over a list made the list's
    heading, when three or more such lines stand so, one right after another's lists: the
    post groups its changes in lists, as a code host's release page does."""
    groups = [index for index, (block, under) in enumerate(zip(blocks, blocks[1:], strict=False))
              if isinstance(block, Paragraph) and isinstance(under, ListBlock) and not block.urls and not block.lead
              and len(block.text.split()) <= _GROUP_WORDS and not block.text.endswith(_ENDING_MARKS)]
    # Each group's lists run to the next group line, with a block more at most (a code sample).
    if len(groups) < _MIN_PARTS or any(
            sum(not isinstance(block, ListBlock) for block in blocks[start + 1:end]) > _OTHER_BLOCKS
            for start, end in zip(groups, groups[1:], strict=False)):
        return blocks
    grouped = list(blocks)
    for index in groups:
        grouped[index] = Heading(2, block_text(blocks[index]), guessed=True)
    return tuple(grouped)
