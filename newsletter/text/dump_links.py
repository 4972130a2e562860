"""A dump's numbered links: lynx and w3m number every link ("[12]Faster sync"); the page
showed only the link's text."""

from __future__ import annotations

from newsletter import lazy_re
from newsletter.text.from_html import without_attributes

# "[12]Faster sync", "[13]< Older post", "[14]@ada", "[15]« Older post". (An index in code,
# "a[0]x", follows a word; a citation, "as shown [3] here", is followed by a space.)
_LINK_NUMBER = lazy_re.compile(r"(?<![\w\]])\[\d{1,4}\](?=[^\W\d_]|<\s|«|@\w)")
# A heading's permalink, numbered as a link, at its line's end: "New features [26]†" (a
# wiki's dagger), "[7]¶", "[8]#".
_NUMBERED_PERMALINK = lazy_re.compile(r"\s*\[\d{1,4}\][†‡¶§#※🔗]\s*$")
# A row of one-word links after a heading's name, as a page sets badges beside it ("Faster
# sync [9]Spec [10]Guide"): two or more in a row, as one link alone may be the name's last word,
# after a name that is no link (a menu's row is links throughout).
_LINK_BADGES = lazy_re.compile(r"(?<=\S)(?:\s+\[\d{1,4}\][^\W\d_][\w.-]{0,15}){2,}\s*$")
# A form's select box as w3m shows it, its width padded with spaces: "Language: [7][English   ]".
_SELECT_BOX = lazy_re.compile(r"\[\d{1,4}\]\[[^\[\]]{0,118}\s\s\]")
# lynx opens a dump with the page's head links (its feeds, its search), "#" before the
# first: "#[1]Acme blog - Atom [2]Acme blog - RSS".
_HEAD_LINKS = lazy_re.compile(r"\s*#\[\d{1,4}\]")
# A heading's line with its badges is short; a longer line is no heading's (and is not
# searched from every link on).
_BADGED_LINE = 200


def page_text(line: str, *, alone: bool) -> str:
    """A dump's line as the page showed it: no link numbers, no heading's permalink, and on
    a line of its own (a heading's) no badges beside its name."""
    line = _NUMBERED_PERMALINK.sub("", line)
    badges = _LINK_BADGES.search(line) if alone and len(line) <= _BADGED_LINE else None
    if badges and not _LINK_NUMBER.search(line, 0, badges.start()):
        line = line[:badges.start()]
    return without_attributes(_LINK_NUMBER.sub("", line))


def without_page_controls(groups: list[list[str]]) -> list[list[str]]:
    """A dump's runs of lines without the page's head links and its form controls: no line
    of the page's text."""
    if groups and groups[0] and _HEAD_LINKS.match(groups[0][0]):
        groups = groups[1:]
    return [kept for group in groups if (kept := [line for line in group if not _SELECT_BOX.search(line)])]
