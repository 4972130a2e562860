"""A scrape's line that names a feature and says no more of it, over the next feature's line:
the layout reads it as grouping that feature. Under a group that names a kind of change ("New
features"), or when it names a thing the way features do ("Tiles: faster paging", "Sync 2.0
by default"), it is one more feature of the group above."""

from __future__ import annotations

from newsletter import lazy_re
from newsletter.summarize import cues
from newsletter.summarize.dates import DIGIT
from newsletter.summarize.labels import strip_decoration
from newsletter.text.outline import Block, Heading, block_text

# "Tiles: faster paging", "feature: added x()": a name, then what changed about it.
_NAME_THEN_CHANGE = lazy_re.compile(r"^\S+:\s+\S")
# A release's name holds a number in a few words ("Lumen 2.1 is out"); a feature's name
# that holds one says more ("Sync 2.0 as the default transport").
_FEATURE_WORDS = 5
# Under "New features", a group's name is a word or three ("Other notable changes"); a
# feature's says what changed ("Explicit sync by default").
_SAYS_WHAT_CHANGED = 4


def bare_feature_line(blocks: tuple[Block, ...], index: int, open_group: int | None) -> bool:
    """Whether the level-1 line at index, after a feature's text and over the next feature's
    line, is one more feature of the group whose line stands at `open_group`, right over its
    first feature's line, rather than a group."""
    if open_group is None or isinstance(blocks[index - 1], Heading) or not (
            _over_a_feature_line(blocks, index) and _over_a_feature_line(blocks, open_group)):
        return False
    name = strip_decoration(block_text(blocks[index]))[0]
    if cues.is_grouping_name(name) or cues.GROUP_PHRASE.match(name):
        return False
    words = len(name.split())
    return cues.is_grouping_name(strip_decoration(block_text(blocks[open_group]))[0]) and words >= _SAYS_WHAT_CHANGED \
        or bool(_NAME_THEN_CHANGE.match(name)) or bool(DIGIT.search(name)) and words >= _FEATURE_WORDS


def _over_a_feature_line(blocks: tuple[Block, ...], index: int) -> bool:
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return isinstance(following, Heading) and following.guessed and following.level == 2
