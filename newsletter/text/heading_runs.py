"""A text copy that lost its markup may show, after a feature's text, a run of lines each
standing alone: a feature named and said no more of, the next group's name, that group's
first features. The layout cannot tell them apart; their length can: a group's name is a
word or two ("Editor", "Also new"), a feature's name says what changed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from newsletter import lazy_re
from newsletter.text.outline import Block, Heading

_GROUP_WORDS = 2
_WORD = lazy_re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def groups_in_heading_runs(blocks: list[Block]) -> Iterator[Block]:
    """The blocks, with the runs of guessed headings after a part's text where a longer line
    was read as grouping a short one ranked again: the longer lines there are features."""
    start = 0
    while start < len(blocks):
        end = start
        while end < len(blocks) and _guessed(blocks[end]):
            end += 1
        if end == start:
            yield blocks[start]
            start += 1
            continue
        run: list[Heading] = blocks[start:end]  # type: ignore[assignment]
        yield from _ranked(run) if start > 0 and end < len(blocks) and _feature_over_group(run) else run
        start = end


def _guessed(block: Block) -> bool:
    return isinstance(block, Heading) and block.guessed and block.level <= 2


def _feature_over_group(run: list[Heading]) -> bool:
    groups = [index for index, heading in enumerate(run) if heading.level == 1]
    return any(not _is_short(run[first]) and _is_short(run[second]) for first, second in itertools.pairwise(groups))


def _is_short(heading: Heading) -> bool:
    return len(_WORD.findall(heading.text)) <= _GROUP_WORDS


def _ranked(run: list[Heading]) -> list[Heading]:
    return [heading if heading.level != 1 or _is_short(heading)
            else Heading(2, heading.text, heading.urls, guessed=True) for heading in run]


def subgroups_under_parts(blocks: list[Block]) -> list[Block]:
    """A part's name over a short line over a feature's line, all guessed, the last two
    ranked alike ("Changes for users" / "Editor" / "Split view for long files"): the short
    line names a group within the part, and the part's features go a level below it, up to
    the part's end; a short line over a heading there names the part's next group."""
    out = list(blocks)
    for index in range(len(out) - 2):
        if not _opens_subgroups(out[index:index + 3]):
            continue
        for below in range(index + 2, len(out)):
            heading = out[below]
            if not _guessed(heading) or not isinstance(heading, Heading):
                continue
            if heading.level == 1:
                break
            following = out[below + 1] if below + 1 < len(out) else None
            if not (_is_short(heading) and isinstance(following, Heading)):
                out[below] = Heading(3, heading.text, heading.urls, guessed=True)
    return out


def _opens_subgroups(three: list[Block]) -> bool:
    part, group, first = three
    return (isinstance(part, Heading) and isinstance(group, Heading) and isinstance(first, Heading)
            and all(map(_guessed, three)) and part.level == 1 and group.level == first.level == 2
            and _is_short(group) and not _is_short(first))
