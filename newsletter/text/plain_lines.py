"""Plain text line by line: runs of lines, and what a run is (a list, code, a paragraph,
a line that reads like a heading), before from_plain.py tells the post's outline."""

from __future__ import annotations

import re
import unicodedata

from newsletter import lazy_re
from newsletter.text.from_html import MAX_DEPTH, bare_urls, squash_space
from newsletter.text.outline import Block, Code, ListBlock, ListItem, Paragraph

# Japanese lists set "・" right before the text.
BULLET = lazy_re.compile(r"^(\s*)(?:(?:[•◦▪▫‣●○■□·*+-]|\d{1,3}[.)])\s+|・\s*)(\S.*)$")
# Plain-text mail marks list items with an indented "o", as groff does.
_O_ITEM = lazy_re.compile(r"^(\s+)o(\s+\S)")
# reST adorns a title with any punctuation repeated; the usual ones, and those Sphinx
# projects take for their top levels ("%%%%", "$$$$", "@@@@"). Brackets and "<", ">", "|" are
# left out: a mail quotes with ">>>", a dump draws boxes and arrows with them.
ADORNMENT = r"""[=\-~^*+#`'".:_%!$&@;/]"""
UNDERLINE = lazy_re.compile(r"^(" + ADORNMENT + r")\1{2,}\s*$")
# A scrape's heading is a short line: longer ones are sentences.
MAX_HEADING_CHARS = 100
MAX_TITLE_CHARS = 200
# Sentence ends, and a colon: a line that introduces what follows is not a title.
_TERMINAL = (".", "!", "?", "。", "！", "？", ";", "；", ",", "，", ":", "：")
SENTENCE_ENDS = (".", "!", "?", "。", "！", "？", ":", "：")
# A mark followed by a lower-case word ends no sentence: "the view! macro", "e.g. this".
_SENTENCE_BREAK = lazy_re.compile(r"[.!?。！？]\s+(?![a-z])\S")
# Lines a scrape keeps from code blocks: comments, prompts, statements, assignments, calls.
# A comment's "#" stands apart from its words, or opens a directive: "#soa sorting" names a thing.
# A configuration's keys may hold dashes ("server.feature-flags += (...)", "max-age = 60").
# A block opens with a brace at a line's end, as no sentence ends; a variable may carry a
# sigil ("$total = 0", "$this->name").
_CODE_LINE = lazy_re.compile(
    r"^(?:#(?:\s|$|!|\[|(?:include|define|undef|if|ifn?def|else|elif|endif|pragma|import)\b)|"
    r"//|>>>|\$ |import |from \S+ import |def |class |return\b|"
    r"[\w.\[\]'\"][\w.\[\]'\"-]*\s*[-+*/]?=[^=]|[\w.]+\(.*\)[;,]?$|[})\]];?$|.*\{$|"
    r"\$\w+(?:\s*[-+*/.]?=[^=]|->))")


# A dump draws a page's horizontal rule as a line of box-drawing strokes: it parts blocks.
_RULE = lazy_re.compile(r"\s*[─━═╌╍┄┅┈┉]{3,}\s*")


# A mail marks its parts with a square or a diamond ("■ Highlights"), where its lists use
# a bullet or a dot.
PART_MARK = lazy_re.compile(r"^[■□◆◇▶▷]\s*(?=\S)")


def with_o_items_marked(text: str) -> str:
    """A text whose lists mark items with an indented "o" ("  o faster joins"), with them
    marked as bullets. Two such lines in a row make a list: one alone may be a wrapped
    line of prose that opens with the word "o" (Portuguese, Spanish, Italian)."""
    lines = text.split("\n")
    items = [bool(_O_ITEM.match(line)) for line in lines]
    for index, line in enumerate(lines):
        if items[index] and (index and items[index - 1] or index + 1 < len(lines) and items[index + 1]):
            lines[index] = _O_ITEM.sub(r"\1*\2", line, count=1)
    return "\n".join(lines)


def line_runs(text: str) -> list[list[str]]:
    """Runs of non-blank lines; a bullet line right under a line of prose starts a new run
    ("Summary:" then "- item"). Bullet runs apart only by blank lines are one loose list:
    pages space their list items as often as not. A part's mark on a line alone goes."""
    groups = _runs(text)
    return [[PART_MARK.sub("", group[0])] if len(group) == 1 else group for group in groups]


def _runs(text: str) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    for line in text.split("\n"):
        if not line.strip() or _RULE.fullmatch(line):
            if groups[-1]:
                groups.append([])
            continue
        if groups[-1] and BULLET.match(line) and not BULLET.match(groups[-1][0]):
            groups.append([])
        elif len(groups[-1]) > 1 and is_underline(line, groups[-1][-1]) and BULLET.match(groups[-1][-1]):
            # A numbered part's underlined title ("1. New features" over "-----") after a
            # numbered list (its contents) is a heading of its own, not the list's next item.
            groups.append([groups[-1].pop()])
        # (Not a line left of the list's items: a list indented under a sentence ends at
        # the margin.)
        elif not groups[-1] and len(groups) > 1 and BULLET.match(line) \
                and _marker(groups[-2][0]) == _marker(line) and indent_of(line) >= indent_of(groups[-2][0]):
            groups.pop()
        groups[-1].append(line.rstrip())
    return [group for group in groups if group]


def _marker(line: str) -> str | None:
    """A bullet line's kind of marker ("-", "・", "1" for any number); None for other lines."""
    found = BULLET.match(line)
    mark = line[len(found.group(1)):found.start(2)].strip() if found else None
    return "1" if mark and mark[0].isdigit() else mark


def is_list_group(group: list[str]) -> bool:
    return bool(BULLET.match(group[0]))


def _text_list(group: list[str]) -> ListBlock:
    """Bullet lines -> items nested by indentation; unmarked lines continue the item above."""
    roots: list[ListItem] = []
    # Items under construction as (indent, text parts, finished children), innermost last.
    stack: list[tuple[int, list[str], list[ListItem]]] = []

    def close_to(indent: int) -> None:
        while stack and stack[-1][0] >= indent:
            _, parts, children = stack.pop()
            text = squash_space(" ".join(parts))
            item = ListItem(text, _text_lead(text), tuple(children), bare_urls(text))
            (stack[-1][2] if stack else roots).append(item)

    ordered = bool(re.match(r"^\s*\d", group[0]))
    for line in group:
        found = BULLET.match(line)
        if found:
            indent = len(found.group(1).expandtabs(4))
            close_to(indent)
            if len(stack) < MAX_DEPTH:
                stack.append((indent, [found.group(2)], []))
            else:
                stack[-1][1].append(found.group(2))
        elif stack:
            stack[-1][1].append(line.strip())
    close_to(-1)
    return ListBlock(tuple(roots), ordered)


# Plain text has no bold: an item's lead is its name before a dash or colon ("X - does y").
_TEXT_LEAD = lazy_re.compile(r"^(.{1,80}?)\s+[-–—]\s+\S|^([^:：]{1,80})[:：]\s+\S")


def _text_lead(text: str) -> str | None:
    found = _TEXT_LEAD.match(text)
    return (found.group(1) or found.group(2)).strip() if found else None


def looks_like_code(line: str) -> bool:
    line = line.strip()
    return bool(_CODE_LINE.match(line)) and not (line[:1].isalpha() and _is_sentence(line))


# A sentence may open with a keyword ("import defer and --module node20 are parsed."): it
# runs a few words to a full stop, with none of code's brackets, quotes or operators.
_PLAIN_SENTENCE = lazy_re.compile(r"[^{}()\[\]=;'\"`<>]*\w\.")
_SENTENCE_WORDS = 4


def _is_sentence(line: str) -> bool:
    return len(line.split()) >= _SENTENCE_WORDS and _PLAIN_SENTENCE.fullmatch(line) is not None


# Prose runs on: a sentence's end, or more words than a command line has.
_PROSE_WORDS = 8
# A key of a configuration file opening its block ("services:").
_KEY = lazy_re.compile(r"[\w.-]+:")


def opens_prose(line: str) -> bool:
    """Whether a line under a "# ..." line may be a heading's text: blank, or prose rather
    than a command ("osprey run nightly"), a statement or a key ("services:")."""
    line = line.strip()
    return not line or not looks_like_code(line) and not _KEY.fullmatch(line) and (
        line.endswith(SENTENCE_ENDS) or len(line.split()) >= _PROSE_WORDS)


def is_code_group(group: list[str]) -> bool:
    return sum(looks_like_code(line) and not _API_NAME.fullmatch(line.strip()) for line in group) * 2 > len(group)


# A dotted name with empty parentheses names an API ("net.Client.close()"): release notes
# head its part with it, maybe followed by words ("ssl_method() and friends (deprecated)").
# A call in code passes arguments or stands among other lines.
_API_NAME = lazy_re.compile(r"(?:[A-Za-z_]\w*(?:\.\w+)+\(\)|[A-Za-z_]\w*\(\)(?=\s))(?:\s+[\w ,()\[\]-]*)?")


# A sign-off or a rule opens with a run of marks ("-- Ada", "../Ada", "—— The team"); a
# heading with a letter, a digit, a bracket or an emoji, or one mark (".NET 9"), or names a
# command's flag ("--dry-run").
_ISSUE_REFERENCE = lazy_re.compile(r"\s+\(#\d{1,6}\)$")
_MARKS_RUN = lazy_re.compile(r"(?!--[a-z])[.\-–—~/\\_=*]{2}")


# A dump shows an image as its name or description in brackets: "[release-banner]".
_IMAGE_PLACEHOLDER = lazy_re.compile(r"\[[^\[\]]*\]")


def heading_candidate(group: list[str], max_chars: int = MAX_HEADING_CHARS) -> bool:
    """A lone short line that reads like a title, not a sentence or a line of code."""
    if len(group) != 1:
        return False
    line = group[0].strip()
    # A change named with its issue's number ("Is the bench wooden? (#612)") may be a question.
    if line.endswith(")") and (referenced := _ISSUE_REFERENCE.search(line)):
        line = line[:referenced.start()].rstrip("?？")
    return (0 < len(line) <= max_chars and not line.endswith(_TERMINAL) and not _MARKS_RUN.match(line)
            and any(ch.isalpha() for ch in line) and (not looks_like_code(line) or bool(_API_NAME.fullmatch(line)))
            and not BULLET.match(group[0]) and "://" not in line and not _SENTENCE_BREAK.search(line)
            and not _IMAGE_PLACEHOLDER.fullmatch(line))


def is_underline(line: str, title: str) -> bool:
    # reST asks the underline to span the title; a short rule under a line is a separator.
    # A title of two characters ("io") takes two marks, exactly under it.
    if _SHORT_UNDERLINE.match(line):
        return len(line.rstrip()) == len(title.rstrip()) == 2 and not title[:1].isspace() and title.strip().isalnum()
    return bool(UNDERLINE.match(line)) and len(line.strip()) * 10 >= len(title.strip()) * 7


_SHORT_UNDERLINE = lazy_re.compile(r"(" + ADORNMENT + r")\1[ \t]*$")


def has_underlined_heading(groups: list[list[str]]) -> bool:
    return any(len(g) >= 2 and is_underline(g[1], g[0]) and not UNDERLINE.match(g[0]) for g in groups)


# A mail indents its text a little and its code more, as Markdown does.
CODE_INDENT = 4


def plain_block(lines: list[str], *, indented_is_code: bool = False, code_indent: int | None = None) -> Block:
    """A run of lines that is not a heading: a list, code, or a paragraph. reST indents
    its literal blocks; scrapes often indent every paragraph (`code_indent`: code then is
    indented further)."""
    if is_list_group(lines):
        return _text_list(lines)
    if (is_code_group(lines) or indented_is_code and all(line.startswith((" ", "\t")) for line in lines)
            or code_indent and all(indent_of(line.expandtabs(4)) >= code_indent for line in lines)):
        return Code("\n".join(lines))
    if _sentences_one_a_line(lines):
        return _text_list([f"- {line.strip()}" for line in lines])
    text = squash_space(" ".join(lines))
    return Paragraph(text, _text_lead(text), bare_urls(text))


def _sentences_one_a_line(lines: list[str]) -> bool:
    """Indented lines at one depth, each a sentence of its own (a capital to a full stop): a
    list whose markers the copy dropped. A wrapped paragraph's lines run on, mid-sentence."""
    depth = indent_of(lines[0])
    return len(lines) > 1 and depth > 0 and all(
        indent_of(line) == depth and line.lstrip()[:1].isupper() and line.rstrip().endswith(SENTENCE_ENDS[:3])
        for line in lines)


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def columns(text: str) -> int:
    """How many columns a dump gives the text: a Chinese, Japanese or Korean character takes
    two, so a line wrapped at the dump's width holds half as many of them."""
    return len(text) + sum(1 for char in text if unicodedata.east_asian_width(char) in "WF")


def peer_lines(line: str, below: str, *, capital_groups: bool, after_text: bool) -> bool:
    """Whether a heading line right over another is its peer rather than its group: in a
    post writing its groups' names in capitals ("NEW FEATURES"), a line in mixed case over
    one (the last item of the group above); after a part's text, a line set right of the
    one below it (an item with no text of its own, over the next group's name)."""
    return (capital_groups and in_capitals(below) and not in_capitals(line)
            or after_text and indent_of(below) < indent_of(line))


def in_capitals(line: str) -> bool:
    """A name in capitals: two words at least, of letters, none in lower case."""
    return line.isupper() and len(line.split()) >= 2 and _DIGIT.search(line) is None


_DIGIT = lazy_re.compile(r"\d")
