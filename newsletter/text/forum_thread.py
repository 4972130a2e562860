"""A forum topic copied as text, its posts one under another: the first post alone is the
announcement, with the topic's title and the poster's name as its metadata.

Forum software heads every post with one line naming its poster and its date: laid out in
columns ("alice      Core Team      Oct 2"), or as "Post by alice » 13 Apr 2024, 14:02" in
any language. The replies under the first post are not the post; neither is the page's
menu above it. (A header spread over several lines is read by summarize/forum_post.py.)
"""

from __future__ import annotations

import textwrap

from newsletter import lazy_re

# A forum's short date beside a post: "Oct 2", "okt 2024", "12 mars".
# The day may be joined to its month by a short word ("9 de abr.").
SHORT_DATE = (r"(?:[^\W\d_]{3,10}\.?\s+\d{1,2}|[^\W\d_]{3,10}\.?\s+\d{4}"
              r"|\d{1,2}\.?\s+(?:[^\W\d_]{1,3}\s+)?[^\W\d_]{3,10}\.?)")
# Columns are set apart by runs of spaces: the login, maybe a role, then the date.
# The login may show the poster's name beside it: "tamsin (Tamsin Abbot)".
_COLUMNS_HEADER = lazy_re.compile(rf"\s*(@?[\w.-]{{2,40}})(?: \((?P<shown>[^()\n]{{2,40}})\))?(?:\s{{2,}}\S.{{0,40}}?)?"
                                  rf"\s{{2,}}{SHORT_DATE}\s*")
# Or the login, then a word saying what it did on the date, then maybe a role:
# "tamsin  wrote Mar 9, 2026  Staff".
_SAID_ON_HEADER = lazy_re.compile(rf"\s*(@?[\w.-]{{2,40}})\s{{2,}}[^\W\d_]+\s+{SHORT_DATE}(?:,?\s+\d{{4}})?"
                                  r"(?:\s{2,}\S.{0,40})?\s*")
# "<a word or two> <login> » <a date, with digits>".
_POINTED_HEADER = lazy_re.compile(r"\s*(?:[^\W\d_]+\s+){1,3}(\S{2,40})\s+»\s+\S*\d.*")
# "<login> · <role> · Posted <a date, with digits>": the columns set apart by middle dots.
_DOTTED_HEADER = lazy_re.compile(r"\s*@?([\w.-]{2,40})(?:\s+·\s+[^·\n]{1,40}?)*\s+·\s+[^·\d\n]{0,20}\d[^·\n]{0,30}")
# "<a word or three, or a dash> <name> on <a date of digits, maybe a time>": "Posted by
# Tamsin A on 2026-03-09 09:41", "Answer 2 — tamsin on 2026-03-09".
_ON_DATE_HEADER = lazy_re.compile(r"\s*(?:\S+\s+){0,3}(?:by|[—–])\s+(\w[\w.-]*(?:\s\w[\w.-]*){0,2})\s+on\s+"
                                  r"\d[\d./-]{5,}\d(?:\s+\d{1,2}:\d{2})?\s*")
# A line of one repeated mark standing alone sets the posts apart.
_SEPARATOR = lazy_re.compile(r"\s*([_=*─━-])\1{9,}\s*")
# The header stands near the top of the page, under its menus and the topic's title.
_WINDOW = 40
_TITLE_REACH = 6
_POSTER_REACH = 10
_WORD = lazy_re.compile(r"\w[\w.]*\w|\w")


def forum_thread(text: str) -> tuple[dict[str, str], str] | None:
    """The first post's metadata (title, author) and its text, when the text is a topic."""
    lines = text.split("\n")
    found = next(((index, header) for index in range(min(len(lines), _WINDOW))
                  if (header := _header_at(lines, index))), None)
    if found is None:
        return None
    named, (author, start) = found
    # A topic's own byline may read as a post's header right over the first post's, with
    # nothing but blank lines and rules between.
    below = next((index for index in range(start + 1, min(len(lines), _WINDOW))
                  if lines[index].strip() and not _SEPARATOR.fullmatch(lines[index])), None)
    first_post = _header_at(lines, below) if below is not None else None
    if below is not None and first_post:
        named, (author, start) = below, first_post
    end = next((index for index in range(start + 1, len(lines))
                if _header_at(lines, index) or _stands_alone(lines, index) and _SEPARATOR.fullmatch(lines[index])),
               len(lines))
    # Some forums show a reply's poster (name, rank, post count) in a block above its header.
    poster = _header(lines[end]) if end < len(lines) else None
    end = next((index for index in range(end - 1, max(start, end - _POSTER_REACH), -1)
                if lines[index].strip() == poster), end)
    # A forum may set each post's header between rules.
    first = start + 1 if start + 1 < end and _SEPARATOR.fullmatch(lines[start + 1]) else start
    first = _past_poster_block(lines, first, end, author)
    last = end - 1 if end < len(lines) and _SEPARATOR.fullmatch(lines[end - 1]) else end
    body = _without_counts(textwrap.dedent("\n".join(lines[first + 1:last])).strip("\n").split("\n"))
    if not any(line.strip() for line in body) or not any(_header_at(lines, index) for index in range(end, len(lines))):
        # One post alone is no thread: a page that only looks so is read as it is.
        return None
    above = [line.strip() for line in lines[:named] if line.strip() and not _SEPARATOR.fullmatch(line)]
    # The post's subject may repeat the topic's title right under its header.
    if body[0].strip() in above:
        return {"title": body[0].strip(), "author": author}, "\n".join(body[1:])
    title = _title(above[-_TITLE_REACH:], _first_paragraph(body))
    return ({"author": author} | ({"title": title} if title else {})), "\n".join(body)


def _header_at(lines: list[str], index: int) -> tuple[str, int] | None:
    """The poster a post's header at `index` names, and the header's last line: one line, or
    the poster's name and rank in columns over the date, set in the rank's column."""
    author = _header(lines[index])
    if author:
        return author, index
    below = lines[index + 1] if index + 1 < len(lines) else ""
    ranked = _NAME_AND_RANK.fullmatch(lines[index])
    dated = _DATE_UNDER.fullmatch(below) if ranked else None
    if ranked and dated and abs(dated.start(1) - ranked.start(2)) <= _COLUMN_SLACK:
        return ranked.group(1), index + 1
    # Or the login alone over the date, maybe with the poster's role after a dot.
    login = _LOGIN_ALONE.fullmatch(lines[index])
    if login and _DATE_AND_ROLE.fullmatch(below):
        return login.group(1), index + 1
    return None


# "Ada Quill          Member #7,827" over "                   March 9, 2026".
_NAME_AND_RANK = lazy_re.compile(r"(\w[\w.-]*(?: \w[\w.-]*){0,2})\s{2,}(\S.{0,40}?)\s*")
_DATE_UNDER = lazy_re.compile(rf"\s{{2,}}({SHORT_DATE}(?:,?\s+\d{{4}})?(?:,?\s+\d{{1,2}}:\d{{2}})?)\s*")
_COLUMN_SLACK = 2
# "dai-ko" over "Nov 9, 2026 · Maintainer": a login as a site writes one, in lower case.
_LOGIN_ALONE = lazy_re.compile(r"\s*@?([a-z0-9][\w.-]{1,39})\s*")
_DATE_AND_ROLE = lazy_re.compile(rf"\s*{SHORT_DATE}(?:,?\s+\d{{4}})?(?:\s+·\s+[^·\d\n]{{1,30}})?\s*")


def _header(line: str) -> str | None:
    found = (_COLUMNS_HEADER.fullmatch(line) or _SAID_ON_HEADER.fullmatch(line) or _POINTED_HEADER.fullmatch(line)
             or _DOTTED_HEADER.fullmatch(line) or _ON_DATE_HEADER.fullmatch(line))
    if found is None:
        return None
    return found.groupdict().get("shown") or found.group(1).lstrip("@")


def _past_poster_block(lines: list[str], first: int, end: int, author: str) -> int:
    """Past the poster's block (name, rank, post count) some forums show under the header,
    one short line each down to a blank line: else the header's own line."""
    below = next((index for index in range(first + 1, end) if lines[index].strip()), end)
    if below == end:
        return first
    if below == first + 1 and _under_header_rank(lines, below, end):
        return below
    if lines[below].strip() != author:
        return first
    return next((index for index in range(below, end) if not lines[index].strip()), first)


# A poster's rank set at the margin right under the header ("Team Manager"), over the post's
# text, which the forum indents: a few words, no sentence.
_RANK = lazy_re.compile(r"[^\W\d_]+(?: [^\W\d_]+){0,2}")


def _under_header_rank(lines: list[str], index: int, end: int) -> bool:
    text = next((line for line in lines[index + 1:end] if line.strip()), "")
    return bool(_RANK.fullmatch(lines[index])) and index + 1 < end and not lines[index + 1].strip() \
        and text[:1].isspace()


# The counts a forum shows under a post ("7 likes", "opened Mar 9   3 answers   640 reads"):
# a line of a few cells set apart by runs of spaces, each a few words holding a number.
_CELL_GAP = lazy_re.compile(r"\s{2,}")
_CELL_WORDS = 5


def _without_counts(body: list[str]) -> list[str]:
    """The post without the lines of counts closing it: they are the forum's, not the post's."""
    end = len(body)
    while end > 0 and (not body[end - 1].strip() or _counts(body[end - 1]) or _sort_row(body[end - 1])):
        end -= 1
    return body[:end]


def _sort_row(line: str) -> bool:
    """The replies' sort buttons over them ("Oldest  Newest  Top"): words apart in columns."""
    cells = _CELL_GAP.split(line.strip())
    return len(cells) >= _SORT_CELLS and all(len(cell.split()) == 1 for cell in cells)


_SORT_CELLS = 3


def _counts(line: str) -> bool:
    return all(any(c.isdigit() for c in cell) and len(cell.split()) <= _CELL_WORDS
               for cell in _CELL_GAP.split(line.strip()))


def _stands_alone(lines: list[str], index: int) -> bool:
    return all(not lines[near].strip() for near in (index - 1, index + 1) if 0 <= near < len(lines))


def _first_paragraph(body: list[str]) -> str:
    """The post's first paragraph past its salutation ("Hi everyone,")."""
    paragraph: list[str] = []
    for line in body:
        if line.strip():
            paragraph.append(line)
        elif len(" ".join(paragraph).split()) > _SALUTATION_WORDS:
            break
        else:
            paragraph.clear()
    return " ".join(paragraph)


_SALUTATION_WORDS = 3


def _title(above: list[str], first_paragraph: str) -> str | None:
    """The line above the header sharing the most words with the post's first paragraph
    (the topic's title names what the post announces), else the longest: the site's name
    and a menu's entries are a few words. A row of entries set apart in columns (a menu,
    the topic's category and tags) is none, nor is a rule."""
    said = {word.casefold() for word in _WORD.findall(first_paragraph)}
    lines = [line for line in above if not _COLUMNS.search(line) and _WORD.search(line)]
    # A breadcrumb ending in the title the line under it repeats is the forum's path to it.
    lines = [line for line in lines if not any(other != line and line.endswith(other) for other in lines)]
    shared = {line: len({word.casefold() for word in _WORD.findall(line)} & said) for line in lines}
    best = max(reversed(lines), key=lambda line: (shared[line], len(line)), default=None)
    return best if best is not None and (shared[best] > 0 or len(best.split()) >= _TITLE_WORDS) else None


_COLUMNS = lazy_re.compile(r"\S\s{2,}\S")
# A topic's title names its release in a few words more than a site's name does.
_TITLE_WORDS = 4
