"""Mail announcements that mark their parts with a run of stars at the margin: "*** Wayland
driver" over the part's text. A list stars its items with one star; an Org outline nests
its parts with one star and more (text/org_outline.py). A run of two or more, at one depth
on lines standing alone, marks headings."""

from __future__ import annotations

from newsletter import lazy_re
from newsletter.text.plain_lines import heading_candidate

_STARRED = lazy_re.compile(r"(\*{2,6})[ \t]+([^*\s][^\n]*?)[ \t]*\**[ \t]*")
# Underline characters in the order tried: the first one the text does not underline with.
_UNDERLINES = "~^+\"'`"
_MIN_HEADINGS = 2


def starred_as_underlined(text: str) -> str:
    """The text with each starred heading line written as an underlined heading, which the
    plain-text reader tells by its underline, one level below the text's own underlined parts
    (their underline comes first). Unchanged when fewer than two lines stand so."""
    lines = text.split("\n")
    found = [(index, match) for index, line in enumerate(lines) if (match := _STARRED.fullmatch(line))
             and _stands_alone(lines, index, match.group(2))]
    runs = {match.group(1) for _, match in found}
    if len(found) < _MIN_HEADINGS or len(runs) != 1:
        return text
    used = {line.strip()[:1] for line in lines if len(line.strip()) >= 3 and len(set(line.strip())) == 1}
    mark = next((char for char in _UNDERLINES if char not in used), None)
    if mark is None:
        return text
    for index, match in found:
        title = match.group(2)
        lines[index] = f"\n{title}\n{mark * max(3, len(title))}\n"
    return "\n".join(lines)


def _stands_alone(lines: list[str], index: int, title: str) -> bool:
    """A heading line reads as a title and has blank lines (or the text's edges) around it:
    a list that stars its items ("** The Producer API allows...") wraps them onto the next
    line, and a starred line inside a paragraph is emphasis."""
    return ((index == 0 or not lines[index - 1].strip()) and (index + 1 == len(lines) or not lines[index + 1].strip())
            and heading_candidate([title]))
