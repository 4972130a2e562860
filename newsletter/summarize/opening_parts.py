"""Parts of a post's opening told by their shape, in any language: its contents (a list
naming the post's own headings) and a summary part (a heading over nothing but a list,
beside parts that group the features)."""

from __future__ import annotations

import re
from collections.abc import Callable

from newsletter import lazy_re
from newsletter.summarize.cues import is_grouping_name
from newsletter.summarize.labels import strip_decoration
from newsletter.text.outline import Block, Heading, ListBlock, Paragraph, block_text

# A contents list numbers its entries as the headings do ("2. Language changes").
_SECTION_NUMBER = lazy_re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+")
# Where a post's contents stand: among its first blocks. A post of millions of blocks is not
# searched whole.
_OPENING_BLOCKS = 40
_HIGHLIGHTS = 2
# A group's introduction above its first feature is a paragraph or two.
_INTRODUCTION_BLOCKS = 3


def heading_key(text: str) -> str:
    return " ".join(_SECTION_NUMBER.sub("", text).casefold().split())


def contents_parts(blocks: tuple[Block, ...]) -> set[int]:
    """The indexes of the heading-like lines over a list most of whose items name the
    post's headings ("目錄", a bold "İçindekiler"): the post's contents, whatever the word.
    A part named for the summary ("Summary") may list the entries below it: it is no
    contents."""
    keys = {heading_key(block.text) for block in blocks if isinstance(block, Heading)}
    found = set()
    for index in range(min(len(blocks), _OPENING_BLOCKS) - 1):
        block, following = blocks[index], blocks[index + 1]
        bold_line = isinstance(block, Paragraph) and block.lead == block.text
        if ((isinstance(block, Heading) or bold_line) and not is_grouping_name(block_text(block))
                and isinstance(following, ListBlock) and len(following.items) > 1
                and sum(heading_key(item.text) in keys for item in following.items) * 2 > len(following.items)):
            found.add(index)
    return found


_BREAKS = lazy_re.compile(r"breaking|incompatib|inkompatib|несовмест|破坏性|不兼容|非互換|호환성", re.IGNORECASE)


def summary_part(blocks: tuple[Block, ...], heading: int) -> tuple[int, ...]:
    """The indexes of the sentence and the list a summary part holds, or () when the
    heading at `heading` opens none. A summary part holds nothing but a list (a sentence
    ending in a colon may introduce it), and the next part at its level groups features
    under headings of its own: it stands beside the post's groups rather than being one
    of its features (a feature's part over a list is among features like it). Its list
    holds more than one item."""
    opening = blocks[heading]
    # What the release breaks is what to read first, not what it brings.
    if not isinstance(opening, Heading) or _BREAKS.search(opening.text) or _after_a_list_part(blocks, heading):
        return ()
    level = opening.level
    end = next((i for i in range(heading + 1, len(blocks)) if isinstance(blocks[i], Heading)), len(blocks))
    body = blocks[heading + 1:end]
    introduced = len(body) == 2 and isinstance(body[0], Paragraph) and block_text(body[0]).rstrip().endswith(
        (":", "："))
    # Highlights are several: a part over one item is a feature's, or a component's.
    if (not (len(body) == 1 or introduced) or not isinstance(body[-1], ListBlock) or body[-1].quoted
            or len(body[-1].items) < _HIGHLIGHTS):
        return ()
    sibling = blocks[end] if end < len(blocks) else None
    if not isinstance(sibling, Heading) or sibling.level != level:
        return ()
    # The next part's first heading, past the sentence introducing its features.
    window = range(end + 1, min(len(blocks), end + 1 + _INTRODUCTION_BLOCKS))
    below = next((blocks[i] for i in window if isinstance(blocks[i], Heading)), None)
    groups = isinstance(below, Heading) and below.level > level
    return tuple(range(heading + 1, end)) if groups else ()


def _after_a_list_part(blocks: tuple[Block, ...], heading: int) -> bool:
    """Whether a part of the heading's level holding only a list stands right before it
    ("Bug fixes" over its list, then "Package support"): the two are a changelog's
    categories in a row, not the post's summary and what it sums up."""
    above, listed = (blocks[heading - 2], blocks[heading - 1]) if heading > 1 else (None, None)
    opening = blocks[heading]
    return (isinstance(listed, ListBlock) and isinstance(above, Heading) and isinstance(opening, Heading)
            and above.level == opening.level)


# A part's name a dump kept as a line of its own: a few words.
_PART_NAME_WORDS = 4


def is_part_name(block: Block) -> bool:
    """A short line of a few words, no sentence: over a list, the heading of a part a dump
    lost ("New models" over the models)."""
    text = block_text(block).strip()
    return (isinstance(block, Paragraph) and 0 < len(text.split()) <= _PART_NAME_WORDS and block.lead is None
            and not text.endswith((".", "!", "?", "。", "！", "？", ";", ",")) and not block.urls)


def first_of_introduced_parts(blocks: tuple[Block, ...], heading: int) -> bool:
    """Whether a heading ("Major changes") is the first of the parts a sentence introduces
    ("1.5 includes the following changes:"), a part of its level following it: it names a
    group of the changes, as its peers ("Bug fixes") do, not the post's summary."""
    top = blocks[heading]
    lead_in = blocks[heading - 1] if heading else None
    peer = next((blocks[i] for i in range(heading + 1, len(blocks)) if isinstance(blocks[i], Heading)), None)
    return (isinstance(top, Heading) and isinstance(lead_in, Paragraph)
            and lead_in.text.rstrip().endswith((":", "：")) and isinstance(peer, Heading) and peer.level == top.level)


# A heading that only names the release ("Lumen 2.1.0") opens the post's text, not a part.
_RELEASE_NAME = lazy_re.compile(r"[^\W\d][\w.-]*(?:\s[^\W\d][\w.-]*)?\s+v?\d+(?:\.\d+){1,3}")


def names_the_release(block: Block) -> bool:
    """Whether a heading only names the release ("Lumen 2.1.0", "📦 Release v2.1.0")."""
    return isinstance(block, Heading) and _RELEASE_NAME.fullmatch(strip_decoration(block.text)[0]) is not None


def notes_before_the_summary(blocks: tuple[Block, ...], heading: int, is_summary: Callable[[Block], bool]) -> bool:
    """Whether a heading over nothing but a list, or a paragraph or two, stands right before a
    heading named for the summary that is over nothing but a list ("Read before upgrading",
    then "Major changes"; "Acknowledgements" over its names, then "Highlights"): notes that
    open the post, as its summary does."""
    summary = next((index for index in range(heading + 1, min(heading + _NOTES_BLOCKS + 2, len(blocks)))
                    if not isinstance(blocks[index], Paragraph | ListBlock)), None)
    return isinstance(blocks[heading], Heading) and summary is not None and summary > heading + 1 \
        and all(not isinstance(block, ListBlock) or not block.quoted for block in blocks[heading + 1:summary]) \
        and is_summary(blocks[summary]) and _over_a_list_only(blocks, summary)


# Notes over the summary are short: a list, or a paragraph or two.
_NOTES_BLOCKS = 2


def _over_a_list_only(blocks: tuple[Block, ...], heading: int) -> bool:
    after = heading + 2
    listed = blocks[heading + 1] if after <= len(blocks) else None
    return (isinstance(blocks[heading], Heading) and isinstance(listed, ListBlock) and not listed.quoted
            and (after == len(blocks) or isinstance(blocks[after], Heading)))


def headings_by_level(blocks: tuple[Block, ...], headings: list[int]) -> set[tuple[str, ...]]:
    """The names of the post's headings, one tuple for each level, in order."""
    by_level: dict[int, list[str]] = {}
    for index in headings:
        block = blocks[index]
        if isinstance(block, Heading):
            by_level.setdefault(block.level, []).append(heading_key(block.text))
    return {tuple(names) for names in by_level.values() if len(names) > 1}


def mirrors_the_headings(block: ListBlock, contents: set[tuple[str, ...]], lead_in: Block) -> bool:
    """A list whose every item is the name of a heading of one level, in their order, is the
    page's contents, however the sentence above names it ("the most important changes:").
    Under a heading or a bare label ("Major changes:") it is the post's summary of the parts
    that tell each."""
    items = [heading_key(item.text) for item in block.items]
    return (len(items) > 1 and not isinstance(lead_in, Heading) and len(block_text(lead_in).split()) > BARE_LABEL_WORDS
            and any(_in_order(items, names) for names in contents))


# A label over a list, not a sentence: "Highlights:", "Major changes:".
BARE_LABEL_WORDS = 3


def _in_order(items: list[str], names: tuple[str, ...]) -> bool:
    remaining = iter(names)
    return all(item in remaining for item in items)


# A fenced box as Markdown's directive and fenced-div extensions write it (":::: {.aside}", ":::note"),
# its fence left as text where the Markdown reader does not know it.
_BOX_FENCE = lazy_re.compile(r":{3,}\s*(?:\{[^{}\n]*\}|[\w-]+)")


def titles_a_box(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether the heading at `index` stands right under a box's opening fence: the box's
    title, an aside in the post's opening, not one of its parts."""
    fence = blocks[index - 1] if index > 0 else None
    return isinstance(fence, Paragraph) and _BOX_FENCE.fullmatch(fence.text.strip()) is not None
