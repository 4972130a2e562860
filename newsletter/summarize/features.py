"""Features: which heading-like things announce a change, with their labels and sections,
and the rule that decided each one (what `newsletter summarize --explain` prints)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from newsletter import lazy_re
from newsletter.models import Feature, Stability
from newsletter.summarize import cues
from newsletter.summarize.dates import is_date
from newsletter.summarize.group_names import joins_kinds_of_change
from newsletter.summarize.headings import Node, names_its_text, outline_nodes
from newsletter.summarize.item_categories import unlabeled_item_parts
from newsletter.summarize.labels import EDGE_SEPARATORS
from newsletter.summarize.name_outline import named_by_highlights, outlines_its_news
from newsletter.summarize.shape_titles import BARE_VERSION
from newsletter.text.outline import Block, Code, Heading, ListBlock, Paragraph, block_text
from newsletter.text.plain_lines import SENTENCE_ENDS, looks_like_code

# A part's introduction to its sub-features is a sentence or two; an announcement is longer.
_INTRODUCTION = 200
# A line that only introduces a video or a picture is short.
_MEDIA_INTRO = 100
# A part's one line saying it holds nothing this time.
_ONE_LINE = 120


def _measure_content(nodes: list[Node], blocks: tuple[Block, ...], skipped: set[int]) -> None:
    """What each node has of its own before the next heading-like thing: prose, or nothing
    at all (a heading over a video only). The spans do not overlap: one pass over blocks."""
    for node, following in zip(nodes, [*nodes[1:], None], strict=False):
        end = following.block_index if following else len(blocks)
        own = [blocks[i] for i in range(node.block_index + 1, end) if i not in skipped]
        node.prose_chars = sum(len(block.text) for block in own if isinstance(block, Paragraph))
        node.has_prose = any(isinstance(block, Paragraph) for block in own)
        node.has_list = any(isinstance(block, ListBlock) for block in own)
        opening = own[0] if own and isinstance(own[0], Paragraph) else None
        node.opens_with_statement = opening is not None and opening.text.endswith((".", "。"))
        node.opens_naming_itself = opening is not None and bool(node.heading) \
            and opening.text.casefold().startswith(node.heading.casefold())
        node.says_nothing = len(own) == 1 and isinstance(own[0], Paragraph) and len(own[0].text) <= _ONE_LINE \
            and cues.NOTHING_NEW.match(own[0].text) is not None
        # A short line introducing what is not there ("in the video below:") leaves it empty.
        node.empty = not own or not node.children and all(
            isinstance(block, Paragraph) and block.text.endswith((":", "：")) and len(block.text) <= _MEDIA_INTRO
            for block in own)


def _excluded(node: Node, after_last_label: bool, opens_the_post: bool) -> str:
    """Why a heading, by what it says or where it stands, opens no feature ("" if it may)."""
    name = cues.without_part_number(node.heading)
    if cues.NAVIGATION.match(name) or cues.LINK_ROW.fullmatch(name) and not node.opens_with_statement:
        return "navigation: a table of contents or links to other posts"
    if cues.READING_TIME.fullmatch(name):
        return "page furniture: how long the post takes to read"
    # "Important notes" over parts of their own groups them, as any generic part name does.
    if (cues.ASIDE.match(name) and not (cues.is_grouping_name(name) and node.children)
            or cues.NESTED_ASIDE.fullmatch(name) and not _groups_changes(node)):
        return "aside: an example, explanation or caveat cue"
    if cues.PREFACE.fullmatch(name) and node.parent is None:
        return "preface: what the post opens with (how to read it, the project's policies)"
    if node.stability is not None:
        return ""
    parent = node.parent
    if parent is not None and parent.excluded:
        return f"inside a part that is not news ({parent.heading!r})"
    # "What's new?" over parts of its own names their group, as "What's new" does.
    if node.aside and not ((cues.is_grouping_name(name) or joins_kinds_of_change(name)) and node.children):
        return "aside: ends in a colon or question mark"
    # Unless parts with text of their own stand under it: then it names their group (an
    # "Ecosystem" part over a new plugin), and they are judged on their own.
    if cues.BOILERPLATE.fullmatch(name) and not any(child.has_prose for child in node.children):
        return "closing part: release boilerplate (team, availability, numbers, events)"
    if cues.moves_to_release(name):
        return "closing part: steps to upgrade or install"
    if after_last_label and cues.CLOSING.match(name):
        return "closing part: a thanks/install/next-steps cue after the last labeled feature"
    # A post may open with its credits ("Acknowledgements" over names), before its news.
    if opens_the_post and cues.CLOSING.fullmatch(name):
        return "opening credits: a thanks cue as the post's first part"
    # A single name ("ResourceAddedEvent") names an item of the feature above it.
    # Under a part with no text of its own the sub-parts are judged on their own, and under a
    # decorated generic part ("🚀 New features") the features go undecorated.
    if (parent is not None and parent.decorated and parent.has_prose and not node.decorated
            and " " in node.heading and not cues.is_grouping_name(parent.heading)):
        return "aside: not led by an emoji like the feature heading above it"
    if parent is not None and parent.has_prose and not parent.decorated and cues.INSTRUCTION.match(name):
        return "aside: an instruction under a feature"
    return ""


def _groups_changes(node: Node) -> bool:
    """A "Breaking changes" heading frames a feature's details, unless it stands at the top
    or holds headings of its own under a part that groups changes ("Changes since 5.0") or
    under a changelog's release ("v2.0.0 (2026-03-01)")."""
    parent = node.parent
    return parent is None or bool(node.children) and (
        cues.is_grouping_name(parent.heading) or bool(cues.GROUP_PHRASE.match(parent.heading))
        or bool(_RELEASE_PART.match(parent.heading)))


# A changelog's part for one release: "v2.0.0", "2.0.0 (2026-03-01)", "[2.0.0] - 2026-03-01".
_RELEASE_PART = lazy_re.compile(r"\[?v?\d+(?:\.\d+){1,3}\]?(?:$|\s)")


def _decide(nodes: list[Node], blocks: tuple[Block, ...], contents: set[str], *, scrape: bool,
            highlights: tuple[str, ...]) -> None:
    """Set each node's role and the reason for it."""
    last_labeled = max((i for i, node in enumerate(nodes) if node.stability), default=-1)
    # Parents come before their children: exclusions pass down in document order. In a
    # scrape, past the last label, a closing part ends the post: what follows is the page's
    # (its files, its footer), not news. A marked-up post's text is the post's own.
    closed = False
    for index, node in enumerate(nodes):
        node.reason = "after the post's closing part" if closed else _excluded(node, index > last_labeled, index == 0)
        node.excluded = bool(node.reason)
        closed = closed or scrape and 0 <= last_labeled < index and node.reason.startswith("closing part")
    # Only a scrape's guessed headings ask how the post writes its headings.
    title_case = any(node.guessed for node in nodes) and _writes_title_case(nodes)
    decorated_tops = sum(node.decorated for node in nodes if node.parent is None) > 1
    # Children come after their parent: deciding in reverse sees every child first.
    for node in reversed(nodes):
        if node.excluded:
            continue
        node.holds_features = any(child.feature or child.holds_features for child in node.children)
        node.section = node.holds_features and node.stability is None
        node.feature, node.reason = _feature_rule(node, blocks, contents, title_case=title_case,
                                                  decorated_tops=decorated_tops)
    named_by_highlights(nodes, highlights)
    # Where at least half the top-level parts are features themselves, one with its own
    # text above its sub-features announces one too ("React 19" beside "Turbopack Dev");
    # among areas ("Frontend APIs", "Distributed training") it only groups.
    top = [node for node in nodes if node.parent is None and not node.excluded]
    if sum(node.feature and not node.section for node in top) >= sum(node.section for node in top):
        for node in top:
            if node.section and not node.feature and (node.prose_chars > _INTRODUCTION or _announces_its_one(node)
                                                      or _tells_of_itself(node)) \
                    and not cues.is_grouping_name(node.heading):
                node.feature, node.reason = True, "its own text above its features, beside top-level features"
    _announcing_part(top)
    _list_only_categories(nodes)
    unlabeled_item_parts(nodes)
    _bare_among_features(nodes, blocks)
    _closing_parts(nodes, highlights)


def _announcing_part(top: list[Node]) -> None:
    """Among top-level parts that only group their features (a heading right over the
    first), the one named for a component ("Sync", not a sentence) that states a change of
    its own above its features announces it."""
    sections = [node for node in top if node.section and not node.feature]
    announcing = [node for node in sections if node.has_prose]
    if len(announcing) != 1 or len(sections) < _MIN_AREAS:
        return
    node = announcing[0]
    if (node.opens_with_statement and len(node.heading.split()) <= _COMPONENT_WORDS
            and not cues.is_grouping_name(node.heading) and not cues.GROUP_PHRASE.match(node.heading)):
        node.feature, node.reason = True, "states a change above its features, beside parts that only group"


def _sibling_groups(nodes: list[Node]) -> dict[int, list[Node]]:
    """The nodes by their parent (keyed by its identity), each group in document order."""
    siblings: dict[int, list[Node]] = {}
    for node in nodes:
        siblings.setdefault(id(node.parent), []).append(node)
    return siblings


def _list_only_categories(nodes: list[Node]) -> None:
    """After two or more parts that group features, a part that holds a plain list and
    nothing else ("Bugs fixed", "Testing" closing a changelog) is one more category of
    changes, its items too small for features of their own, when no part beside it tells a
    feature in prose."""
    siblings = _sibling_groups(nodes)
    for group in siblings.values():
        sections = [index for index, node in enumerate(group) if node.section and not node.feature]
        if len(sections) < MIN_GROUPS or any(node.feature and node.has_prose for node in group):
            continue
        for node in group[sections[-1] + 1:]:
            if node.feature and node.stability is None and not node.children and node.has_list \
                    and not node.has_prose:
                node.feature, node.reason = False, "a plain list after parts that group features: a category"


def _closing_parts(nodes: list[Node], highlights: tuple[str, ...]) -> None:
    """A post closes with a run of short parts (how to upgrade, then thanks). Past its last
    part of features, lone parts of a line of text or code at most, right before a part the
    cues close the post with, are of that run whatever their words ("Aktualizacja" over
    "Podziękowania"): news there would be told at length, or listed, or named among the
    highlights ("Android" where one says "Android builds stop")."""
    top = [node for node in nodes if node.parent is None]
    groups = [index for index, node in enumerate(top) if node.section and not node.feature]
    last_parts = top[groups[-1] + 1:] if len(groups) >= MIN_GROUPS else []
    # And so are the lone short parts right after one (thanks after the upgrade steps).
    for order, where in ((reversed, "before"), (iter, "after")):
        closing_next = False
        for node in order(last_parts):
            if node.reason.startswith("closing part"):
                closing_next = True
            elif closing_next and _closing_note(node) and not _highlighted(node.heading, highlights):
                node.feature, node.reason = False, f"closing part: a line {where} the post's closing part"
            else:
                closing_next = False


def _closing_note(node: Node) -> bool:
    # One naming a version ("Node.js 20 required") states a requirement of the release: news.
    return (node.feature and not node.children and node.stability is None and not node.has_list
            and not node.empty and node.prose_chars <= _CLOSING_NOTE and not _NAMES_A_VERSION.search(node.heading))


def _highlighted(heading: str, highlights: tuple[str, ...]) -> bool:
    """Whether a highlight names the heading, as written."""
    named = re.compile(rf"(?<!\w){re.escape(heading.strip())}(?!\w)", re.IGNORECASE)
    return bool(heading.strip()) and any(named.search(text) for text in highlights)


_NAMES_A_VERSION = lazy_re.compile(r"\w\s+v?\d+(?:\.\d+)*(?:\s|$)")


MIN_GROUPS = 2
# Parts that sort features by area (two of them may be "New" and "Removed").
_MIN_AREAS = 3
# A component's name is a word or two: "Sync", "Live preview".
_COMPONENT_WORDS = 3
# A closing part's text is a line: "Back up before upgrading; see the guide."
_CLOSING_NOTE = 100


def _bare_among_features(nodes: list[Node], blocks: tuple[Block, ...]) -> None:
    """A heading with nothing at all under it, right above the next heading, is one more
    item of the list of features it stands among: its name says all there is ("New major
    mode X." in a row of them), and so under a part whose name says it holds features ("New
    features"). One over a picture or a video has that under it."""
    siblings = _sibling_groups(nodes)
    node_indexes = {node.block_index for node in nodes}
    for group in siblings.values():
        parent = group[0].parent
        named_group = parent is not None and not parent.excluded and bool(cues.GROUP_PHRASE.match(parent.heading))
        if not any(node.feature for node in group) and not named_group:
            continue
        for node in group:
            following = node.block_index + 1
            # A dump may rank a bare name led by an emoji over the closing part after it; a
            # page may set an aside (a tip) under a bare name.
            bare = not node.children or all(child.excluded for child in node.children) and (
                node.decorated or all(child.reason.startswith("aside") for child in node.children))
            if (node.empty and not node.excluded and not node.feature and bare and node.heading
                    and not cues.MEDIA.search(node.heading) and not cues.is_grouping_name(node.heading)
                    and (following >= len(blocks) or isinstance(blocks[following], Heading)
                         or following in node_indexes)):
                node.feature, node.reason = True, "nothing under it, among features"
        if named_group and parent is not None and not parent.section and any(node.feature for node in group):
            parent.section, parent.reason = True, "features under it"
    # Whether each group of siblings holds news, judged once per group: a post's parts are
    # many, and each part's sub-headings look at their parent's group.
    with_news = {key: any(node.feature or node.section for node in group) or outlines_its_news(group)
                 for key, group in siblings.items()}
    for group in siblings.values():
        _bare_names_in_a_part(group, with_news)


def _bare_names_in_a_part(group: list[Node], with_news: dict[int, bool]) -> None:
    """A part beside other parts of features whose sub-headings are all bare names ("Storage"
    over "Compact pages", "Shared cache") lists its features by name: it is their section.
    So does a release's name over a line of its own news ("Lumen Server 1.0"), in a roundup."""
    parent = group[0].parent
    if parent is None or parent.excluded or parent.section or any(node.feature for node in group):
        return
    if parent.feature and not (_NAMES_A_VERSION.search(parent.heading) and parent.prose_chars <= _INTRODUCTION):
        return
    if not all(node.empty and not node.children and not node.excluded and node.heading for node in group):
        return
    # One naming a video or a recording stands over a player a page's text keeps nothing of.
    names = [node for node in group if not cues.MEDIA.search(node.heading)]
    # The parent is neither a feature nor a section: news in its group is its peers'.
    if not names or not with_news[id(parent.parent)]:
        return
    for node in names:
        node.feature, node.reason = True, "a bare name in a part of bare names, among features"
    parent.feature, parent.section, parent.reason = False, True, "bare names under it, among features"


def _announces_its_one(node: Node) -> bool:
    """A part whose own text is a statement (not a line introducing what follows) over a
    single feature announces a change and details it: a group holds several."""
    return (node.opens_with_statement and sum(child.feature for child in node.children) == 1
            and not cues.GROUP_PHRASE.match(node.heading))


def _tells_of_itself(node: Node) -> bool:
    """A part named for a component whose text opens by stating a change of it ("Sync" over
    "Sync 2.0 resumes where it stopped."), however short: it announces that change, as a
    group's introduction, naming the release or what follows, does not."""
    return node.opens_with_statement and node.opens_naming_itself and len(node.heading.split()) <= _COMPONENT_WORDS


def _led_as_its_peers(node: Node, decorated_tops: bool) -> bool:
    """Whether an emoji leads the heading as it leads another of its part's, or of the post's
    top-level headings for one at the top (a mark such as "©" leading a footer's line alone
    is none)."""
    if node.parent is None:
        return node.decorated and decorated_tops
    return node.decorated and sum(peer.decorated for peer in node.parent.children) > 1


def _contents_entries(blocks: tuple[Block, ...], skipped: set[int]) -> set[str]:
    """What the lists above the post's first heading (past its title) name, as keys: a
    post's own contents list names its parts."""
    first_heading = next((i for i, block in enumerate(blocks) if isinstance(block, Heading) and i not in skipped),
                         len(blocks))
    return {_key(item.text) for block in blocks[:first_heading] if isinstance(block, ListBlock)
            for item in block.items}


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def _feature_rule(node: Node, blocks: tuple[Block, ...], contents: set[str], *,
                  title_case: bool, decorated_tops: bool) -> tuple[bool, str]:
    """Whether a heading no cue excluded announces a feature, and why."""
    if not node.heading:
        return False, "no text once its label is removed"
    if node.stability is not None:
        return True, "carries a maturity label"
    if cues.is_grouping_name(node.heading):
        return False, "a generic part name"
    if cues.BOILERPLATE.fullmatch(node.heading):
        return False, "a part name of release boilerplate"
    if BARE_VERSION.fullmatch(node.heading):
        return False, "a release's number, maybe dated: a changelog's entry, not a change"
    if node.section:
        # A part with its own announcement above its sub-features is news too; a release's
        # name over its features (a roundup's "Lumen 2.1") only groups them.
        if node.parent is not None and node.has_prose and not _NAMES_A_VERSION.search(node.heading):
            return True, "its own text above the features under it"
        return False, "features under it"
    if node.empty:
        return False, "nothing under it but media and its introduction"
    if node.says_nothing:
        return False, "its one line says the release brings nothing of it"
    # A line a scrape's layout made a heading must earn being a feature on its own, unless
    # the post's contents list names it or it opens its part (right under the part's
    # heading it cannot be a caption of the paragraph above), or an emoji leads it as the
    # page leads its features' names, or it is in title case as the post writes its
    # headings, or it names a kind of change ("Web console improvements"), or the dump set it
    # at the margin over its indented text: a caption does none of these.
    if node.guessed and not node.at_margin and not _led_as_its_peers(node, decorated_tops) \
            and not (title_case and _title_cased(node.heading)) and _key(node.heading) not in contents \
            and not cues.ends_naming_changes(node.heading) \
            and not _opens_its_part(node, blocks) and not names_its_text(blocks, node.block_index) \
            and not _opens_after_code(node, blocks) and not _shows_its_code(node, blocks):
        return False, "a scrape's line that shares no word with the text below"
    return True, "a heading with only text under it"


# Title case capitalizes every word but the short ones ("Quicker Sync for All Shelves").
_LONG_WORD = lazy_re.compile(r"[^\W\d_][\w'-]{3,}")
_TITLE_CASE_WORDS = 3


def _title_cased(heading: str) -> bool:
    words = _LONG_WORD.findall(heading)
    return len(words) >= _TITLE_CASE_WORDS and all(word[0].isupper() for word in words) \
        and not any(mark in heading for mark in _NOT_IN_TITLES)


# A list of names ("Editors: Ada Byron, Alan Turing") or a row of links ("Ada Byron |
# Privacy | Contact") is capitalized as a title is.
_NOT_IN_TITLES = (",", ":", "|")
_TITLE_CASE_HEADINGS = 2


def _writes_title_case(nodes: list[Node]) -> bool:
    """Whether most of the post's headings of a few words, two at least, are in title case."""
    worded = [node for node in nodes if len(_LONG_WORD.findall(node.heading)) >= _TITLE_CASE_WORDS]
    cased = sum(_title_cased(node.heading) for node in worded)
    return cased >= _TITLE_CASE_HEADINGS and cased * 2 > len(worded)


def _opens_after_code(node: Node, blocks: tuple[Block, ...]) -> bool:
    """A caption speaks of the paragraph or picture above it; a line under code (a command
    a dump left as text) opens a part, news unless its words close the post ("Thanks")."""
    above = blocks[node.block_index - 1] if node.block_index else None
    return (isinstance(above, Code) or isinstance(above, Paragraph) and looks_like_code(above.text)) \
        and not cues.CLOSING.match(node.heading)


# A caption over code is a few words: "Lumen < 3.0", "Before".
_CAPTION_CHARS = 40
# A part shown by its code: a few blocks of code and captions before the text telling it.
_SHOWN_BLOCKS = 8


def _shows_its_code(node: Node, blocks: tuple[Block, ...]) -> bool:
    """A line a scrape's layout made a heading right over code (maybe under the code's
    captions: "Lumen 3.0" over the new way), then the text telling what the code shows,
    names that feature, as a release page shows each."""
    start = node.block_index + 1
    shown = list(itertools.takewhile(_code_or_caption, blocks[start:start + _SHOWN_BLOCKS]))
    told = blocks[start + len(shown)] if start + len(shown) < len(blocks) else None
    return any(isinstance(block, Code) for block in shown) and isinstance(told, Paragraph) \
        and told.text.endswith(SENTENCE_ENDS[:3])


def _code_or_caption(block: Block) -> bool:
    return isinstance(block, Code) or (isinstance(block, Paragraph) and len(block.text) <= _CAPTION_CHARS
                                       and not block.text.endswith(SENTENCE_ENDS))


def _opens_its_part(node: Node, blocks: tuple[Block, ...]) -> bool:
    return node.parent is not None and node.parent.block_index == node.block_index - 1 \
        and isinstance(blocks[node.parent.block_index], Heading)


@dataclass(frozen=True)
class HeadingRole:
    """What one heading-like block of the post was taken for, and the rule that decided."""

    block_index: int
    text: str
    role: str
    reason: str
    # For a feature: its maturity label and its section.
    stability: Stability | None = None
    section: str | None = None


def features_of(blocks: tuple[Block, ...], skipped: set[int], author: str | None,
                *, scrape: bool = False,
                highlights: tuple[str, ...] = ()) -> tuple[tuple[Feature, ...], tuple[HeadingRole, ...]]:
    """The post's features, and the role of every heading-like block with its reason.
    `scrape`: the blocks come from a text dump, which may keep its page's footer."""
    dated = _dated_subtitles(blocks, skipped)
    nodes, captions = outline_nodes(blocks, skipped | dated, author)
    _measure_content(nodes, blocks, skipped | dated)
    _decide(nodes, blocks, _contents_entries(blocks, skipped), scrape=scrape, highlights=highlights)
    roles = [HeadingRole(node.block_index, node.heading, _role(node), node.reason, node.stability, _section(node))
             for node in nodes]
    features = tuple(Feature(role.text, role.stability, role.section) for role in roles if role.role in _FEATURE_ROLES)
    roles += [HeadingRole(index, text, "skipped", "a caption: speaks of the paragraph above it")
              for index, text in captions]
    roles += [HeadingRole(index, block_text(blocks[index]), "skipped", "a date right under a heading: its subtitle")
              for index in sorted(dated)]
    return features, tuple(sorted(roles, key=lambda role: role.block_index))


_FEATURE_ROLES = ("feature", "feature and section")


def _dated_subtitles(blocks: tuple[Block, ...], skipped: set[int]) -> set[int]:
    """Headings that are only a date, right under a shallower heading
    ("## 1.17.0" over "### June 12, 2024"): the date says when that part came out, and what
    stands under it belongs to the part. The first heading is left alone: it may be the
    post's title, over parts named by their dates, unless it is a release's number (a
    changelog's first entry)."""
    headings = [i for i, block in enumerate(blocks) if isinstance(block, Heading)]
    return {index for above, index in itertools.pairwise(headings)
            if (above != headings[0] or BARE_VERSION.fullmatch(block_text(blocks[above]).strip()))
            and index == above + 1 and above not in skipped and index not in skipped
            and _subheading(blocks[above], blocks[index]) and _is_date_line(blocks[index])}


def _is_date_line(block: Block) -> bool:
    # Date parsing is slow: only a short line with a digit may be one.
    text = block_text(block)
    return len(text) <= 40 and any(char.isdigit() for char in text) and is_date(text)


def _subheading(above: Block, below: Block) -> bool:
    return isinstance(above, Heading) and isinstance(below, Heading) and below.level > above.level


def _role(node: Node) -> str:
    if node.feature:
        return "feature and section" if node.section else "feature"
    return "section" if node.section else "skipped"


def _section(node: Node) -> str | None:
    parent = node.parent
    while parent is not None and not parent.section:
        parent = parent.parent
    if parent is None:
        return None
    return parent.heading.rstrip(EDGE_SEPARATORS) or None
