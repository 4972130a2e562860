"""A scrape's groups, told by its highlights and by headings that name a kind of change."""

from __future__ import annotations

import itertools
import re

from newsletter import lazy_re
from newsletter.summarize import cues
from newsletter.summarize.bare_features import bare_feature_line
from newsletter.summarize.labels import split_label, strip_decoration
from newsletter.text.outline import Block, Heading, Paragraph

# Names and words a heading and a highlight can share: dotted or dashed names whole
# ("lumen.fx", "multi-weight"), plurals folded, CJK by pairs of characters.
_TOKEN = lazy_re.compile(r"\w+(?:[.\-]\w+)*")
_CJK = lazy_re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _distinct_words(text: str, shortest: int = 5) -> set[str]:
    words: set[str] = set()
    for token in _TOKEN.findall(text):
        if _CJK.search(token):
            words.update(token[i:i + 2] for i in range(len(token) - 1))
        elif len(token) >= shortest or len(token) >= 2 and token.isupper():
            words.add(token.casefold().removesuffix("s"))
    return words


def _echoes(heading: str, highlights: list[set[str]], shortest: int = 5) -> set[int]:
    """The highlights a heading names a word of."""
    words = _distinct_words(split_label(heading)[0], shortest)
    return {index for index, highlight in enumerate(highlights) if words & highlight}


# A highlight's subject is its name before a dash or colon, else its first few words.
_SUBJECT = lazy_re.compile(r"^(.{1,80}?)\s+[-–—:：]\s|^(.{1,80}?)[:：]\s")
_SUBJECT_WORDS = 4


def _bullet_subject(bullet: str) -> str:
    found = _SUBJECT.match(bullet)
    return (found.group(1) or found.group(2)) if found else " ".join(bullet.split()[:_SUBJECT_WORDS])


def _own_words(word_sets: list[set[str]]) -> list[set[str]]:
    """Each set's words that no other set has."""
    counts: dict[str, int] = {}
    for words in word_sets:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    return [{word for word in words if counts[word] == 1} for words in word_sets]


# An introduction is a paragraph or two.
_INTRODUCTION = 2


def _introduces(own: tuple[Block, ...]) -> bool:
    return len(own) <= _INTRODUCTION and all(isinstance(block, Paragraph) for block in own)


# A numbered part ("【4】 X", "4. X", "(4) X") stands beside the next one, never over it.
_PART_NUMBER = lazy_re.compile(r"【\d+】|［\d+］|\[\d+\]|\(\d+\)|（\d+）|\d+[.)]\s")


def regroup_scrape(blocks: tuple[Block, ...], bullets: tuple[str, ...], skipped: set[int]) -> tuple[Block, ...]:
    """A scrape lost its heading levels: a group heading followed by an intro paragraph
    looks like a feature heading. The post's highlights tell them apart, as they list
    features: an unlabeled heading is a group when it names the subject of a bullet that
    also names the heading after it (the bullet sums up the group: "lumenfunc with improved
    coverage" over "Significantly improved coverage"), or when it is in no bullet while the
    labeled heading after it is."""
    # A word several bullets share (the project's name) tells none of them apart.
    highlights = _own_words([_distinct_words(bullet) for bullet in bullets])
    # A heading naming a bullet's subject needs no rarer word: the subject is the bullet's,
    # unless the subjects of several bullets share it ("API").
    subjects = _own_words([_distinct_words(_bullet_subject(bullet)) for bullet in bullets])
    # To be in no bullet, a heading must not share even a short word with one ("tile").
    any_words = [_distinct_words(bullet, shortest=4) for bullet in bullets]
    headings = [(i, block) for i, block in enumerate(blocks)
                if isinstance(block, Heading) and block.guessed and i not in skipped]
    out = list(blocks)
    # Without highlights to go by, a heading naming a kind of change in the plural groups.
    # A generic part name ("Breaking changes") over no more than an introduction groups
    # in any case (a list under it holds its own items), and so does a line naming in words
    # the maturity the features under it carry as their label.
    ends = [index for index, _ in headings[1:]] + [len(blocks)] if headings else []
    previous_level = 0
    open_group: int | None = None
    over_group_names = _lines_over_group_names(blocks)
    for position, ((index, heading), end) in enumerate(zip(headings, ends, strict=True)):
        # A line carrying a maturity label after a feature's text, among features, names one
        # more feature, even with no text of its own right above the next group's line.
        # So does a line right above a closing part ("Upgrading"), or above the next group's
        # name ("⚠️ Deprecations") among features: it is no group of that.
        name = strip_decoration(heading.text)[0]
        if heading.level == 1 and (
                previous_level == 2 and not isinstance(blocks[index - 1], Heading) and split_label(heading.text)[1]
                or _over_closing_part(blocks, index)
                or previous_level == 2 and not cues.is_grouping_name(name) and index in over_group_names
                or previous_level == 2 and bare_feature_line(blocks, index, open_group)):
            out[index] = Heading(2, heading.text, heading.urls, guessed=True)
        elif heading.level == 2 and (
                not bullets and cues.GROUP_PHRASE.match(name)
                or _introduces(blocks[index + 1:end]) and (
                    cues.is_grouping_name(name)
                    or _names_maturity_of(name, headings[position + 1:position + 1 + _MATURITY_PEERS]))):
            out[index] = Heading(1, heading.text, heading.urls, guessed=True)
        ranked = out[index]
        previous_level = ranked.level if isinstance(ranked, Heading) else heading.level
        if previous_level == 1:
            open_group = index
    # The bullets whose subject a group heading above already names ("SCHEDULER" over
    # "Scheduler places jobs by locality"): a feature under it naming it is no new group.
    grouped: set[int] = set()
    ranked_groups = {index for index, heading in headings if heading.level == 1}
    # Once a group's line the layout ranked so has a feature under it, a heading in no bullet
    # is one more of its features, not a group of the labeled one after it: the features
    # under such a line so far (-1 before one, or under a group this reading made).
    under_group, previous = -1, None
    for (index, heading), (_, after) in itertools.pairwise(headings):
        above_heading = out[previous] if previous is not None else None
        if isinstance(above_heading, Heading) and above_heading.level == 1:
            under_group = 0 if previous in ranked_groups else -1
        elif under_group >= 0:
            under_group += 1
        previous = index
        if heading.level == 1:
            grouped |= _echoes(heading.text, subjects)
        featured = under_group > 0
        # Right under a group's line, a heading is that group's first feature, not a group.
        above = out[index - 1] if index else None
        if heading.level != 2 or after.level != 2 or split_label(heading.text)[1] \
                or _PART_NUMBER.match(heading.text) and _PART_NUMBER.match(after.text) \
                or isinstance(above, Heading) and above.guessed and above.level == 1:
            continue
        summed_up, next_ones = _echoes(heading.text, subjects) - grouped, _echoes(after.text, highlights)
        # The heading after names another part of the bullet than the group does ("Smarter
        # caching" of "Gizmo with smarter caching"); a sub-part naming the same thing
        # ("Quiet hours from old schedules" under "Quiet hours") belongs to a feature.
        own_words = _distinct_words(split_label(heading.text)[0])
        after_words = _distinct_words(split_label(after.text)[0])
        # Headings named alike ("Lumen 2 edition", "Nova 3 edition") are peers a bullet lists;
        # so are two a bullet names side by side ("new Gizmo blocks and Widget improvements").
        summed_up = {bullet for bullet in summed_up
                     if (after_words & highlights[bullet]) - own_words
                     and not _side_by_side(bullets[bullet], own_words, after_words)} \
            if not own_words & after_words else set()
        if summed_up & next_ones or (not _echoes(heading.text, any_words, shortest=4) and next_ones
                                     and split_label(after.text)[1] and not featured):
            out[index] = Heading(1, heading.text, heading.urls, guessed=True)
    return _rank_parts_over_groups(out)


# Features carrying the maturity a line names, right under it: two at least, as a group has.
_MATURITY_PEERS = 2


def _names_maturity_of(name: str, following: list[tuple[int, Heading]]) -> bool:
    """Whether an unlabeled line names in words the maturity the lines after it carry as
    their label ("Composants expérimentaux" over "JsonCodec (expérimental)" and "Mapper
    [Experimental]"): it groups them, as "Experimental features" does."""
    if len(following) < _MATURITY_PEERS or split_label(name)[1]:
        return False
    labels = {split_label(heading.text)[1] for _, heading in following}
    if len(labels) != 1 or None in labels:
        return False
    # A label in CJK script stands unspaced ("实验性功能"), a Latin one as a word of the name.
    named = {split_label(f"({word})")[1] for word in [name, *name.split()]}
    return bool(labels & named)


def _rank_parts_over_groups(blocks: list[Block]) -> tuple[Block, ...]:
    """A scrape's line right above a group's line that names it, with an introduction
    between ("Lumen CLI", a sentence on what it is, "Changes in Lumen CLI 6.0"), is the part
    of the post that group belongs to: it ranks above the group, as the page's headings did."""
    for index, block in enumerate(blocks):
        if not (isinstance(block, Heading) and block.guessed and block.level == 2):
            continue
        end = next((i for i in range(index + 1, min(len(blocks), index + 2 + _INTRODUCTION))
                    if isinstance(blocks[i], Heading)), None)
        group = blocks[end] if end is not None else None
        if (isinstance(group, Heading) and group.guessed and group.level == 1 and not split_label(block.text)[1]
                and _introduces(tuple(blocks[index + 1:end])) and _names(group.text, block.text)):
            blocks[index] = Heading(0, block.text, block.urls, guessed=True)
    return tuple(blocks)


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", text, re.IGNORECASE) is not None


# What joins two things a bullet names side by side, in a few languages ("and", "und", "et", "y").
_CONJUNCTION = lazy_re.compile(r"\s+(?:and|&|und|et|y|e|en|og|och|и)\s+", re.IGNORECASE)


def _side_by_side(bullet: str, first_words: set[str], second_words: set[str]) -> bool:
    """Whether a bullet names the one heading's words in one of its conjuncts and the
    other's in another, and neither in both. A bullet naming its subject before a dash or
    colon ("Gizmo - Added and improved kernels") describes that one subject."""
    if _SUBJECT.match(bullet):
        return False
    conjuncts = [_distinct_words(part) for part in _CONJUNCTION.split(bullet)]
    first = {index for index, words in enumerate(conjuncts) if words & first_words}
    second = {index for index, words in enumerate(conjuncts) if words & second_words}
    return bool(first) and bool(second) and not first & second


def _over_closing_part(blocks: tuple[Block, ...], index: int) -> bool:
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return isinstance(following, Heading) and bool(
        cues.CLOSING.match(following.text) or cues.moves_to_release(following.text))


def _lines_over_group_names(blocks: tuple[Block, ...]) -> set[int]:
    """The lines standing above the next group's name, maybe with more bare lines between:
    the features a post named and said no more of, right before that group. (One pass from
    the end: a long run of bare lines is walked once.)"""
    found: set[int] = set()
    leads_to_group = False
    for index in range(len(blocks) - 1, -1, -1):
        if leads_to_group:
            found.add(index)
        block = blocks[index]
        leads_to_group = _names_a_group(block) or _is_bare_line(block) and leads_to_group
    return found


def _is_bare_line(block: Block) -> bool:
    return isinstance(block, Heading) and block.guessed and block.level == 1


def _names_a_group(block: Block) -> bool:
    return isinstance(block, Heading) and cues.is_grouping_name(strip_decoration(block.text)[0])
