"""Title, author, language, date and canonical URL: from the wrapper, else from the top of the post."""

from __future__ import annotations

import re
import unicodedata

from newsletter import lazy_re
from newsletter.summarize.cues import is_grouping_name
from newsletter.summarize.dates import DATELINE, DIGIT, is_date, is_stated_date
from newsletter.summarize.page_header import SKIP_LINK, page_header_line, past_site_names
from newsletter.summarize.release_page import (
    CRUMBS,
    RELEASE_BADGE,
    RELEASED_THIS,
    RELEASED_THIS_BARE,
    copied_page_title,
    is_badge_line,
    is_release_byline,
    joined_release_byline,
)
from newsletter.summarize.shape_titles import newest_entry_title, wiki_tagline_title
from newsletter.text.dump_title import is_header_line
from newsletter.text.outline import (
    Block,
    Document,
    Heading,
    ListBlock,
    Paragraph,
    block_text,
)
from newsletter.text.page import SITE_NAME

# A line naming who wrote the post: "by Team X", "来自 X", "作者：X", "von X".
_BYLINE = lazy_re.compile(
    r"^(?:(?:posted |written |submitted )?by|отправлено|опубликовано|опубліковано|"
    r"(?:scritto|pubblicato|écrit|publié|escrito|publicado|publicat|geschrieben|veröffentlicht)\s+"
    r"(?:da|par|por|per|von)|von|par|por|di|door|av|af|przez|автор|来自|作者|撰文|著者|筆者|投稿者|发布者|글쓴이|작성자|작성|نویسنده|"
    # Finnish, Hungarian, Greek, Hebrew, Thai.
    r"kirjoittanut|írta|γράφει|נכתב על ידי|מאת|โดย)"
    r"(?:\s*[:：]\s*|\s+)(?P<name>\S.{0,60})$", re.IGNORECASE)

# A translation's pointer to the post it translates: "原文: <url>", "Original: <url>".
# ("Source:" is left out: release posts use it for their code repository.)
_ORIGINAL_CUE = lazy_re.compile(
    r"(?:original(?:ly published(?: at| on)?| post| article|e)?|originalartikel|原文(?:链接|地址|連結)?|"
    r"元記事|원문|оригинал)\s*[:：]\s*<?(?P<url>https?://[^\s<>]+)?", re.IGNORECASE)

_SENTENCE_END = (".", "!", "?", "。", "！", "？")
_MAX_TITLE_LINE = 150


# "Posted on March 4, 2025 by X", "Released on 2025-03-04 by X", "Veröffentlicht am 4. März
# 2025 von X in News" (the category the blog filed it in is no part of the name).
_DATED_BYLINE = lazy_re.compile(
    r"^(?:posted|published|written|released|submitted|veröffentlicht|publié|publicado|pubblicato|опубликовано|"
    r"отправлено)\b.{0,40}?\b(?:by|von|par|por|da|пользователем|автором)\s+"
    r"(?P<name>\S.{0,60}?)(?:\s+(?:in|im|dans|en)\s+\S[^,]{0,40})?$", re.IGNORECASE)

# Languages that put the "from" after the name: "Hikari チームより".
_BYLINE_AFTER = lazy_re.compile(r"^(?P<name>\S.{0,60}?)\s*(?:より|著|씀)$")


# Fields a byline line may go on with, each named by its label: who translated the post
# ("作者：X 翻译：Y"), when it was written ("Автор: X Дата: 2 марта").
# (Every separator starts at a space or a "｜", matched first: a pattern that opens with a
# class of characters is looked for as fast as a word, and this one reads each of a post's
# first blocks, most of them long paragraphs.)
_BYLINE_FIELDS = lazy_re.compile(
    r"[\s｜](?:(?<=｜)\s*|(?<!｜)\s*(?:｜\s*|[|·•—–-]\s+|(?=:?(?i:翻译|译者|翻訳|번역|translated by|translation|"
    r"перевод|traduction|traduit par|traducción|übersetzung|date|datum|fecha|дата|日期)\s*[:：])))")
_LINK_ICON = lazy_re.compile(r"\s+\[[^\[\]]{1,30}\]$")
_JOINED_BYLINE = lazy_re.compile(r"(?<=\d)\s+(?=By\s)")
_BYLINE_WINDOW = 30


def byline(text: str) -> str | None:
    """The name a byline gives: "by Team X", "by X | March 4, 2025", "March 4, 2025 · by X",
    "March 4, 2025 - by X"."""
    # A dump may join a date line and the byline under it: "May 4, 2025 By Ada Lovelace".
    # A dump shows the icon linking to the author's profile as its name in brackets:
    # "Ada Lovelace [ mastodon ]".
    # And join the reading time to the author's line under it: "7 min read Ada Lovelace".
    fields = [_LINK_ICON.sub("", part) if part.endswith(("]", "]\n")) else part
              for field in map(_without_reading_time, _BYLINE_FIELDS.split(text.strip())[:4])
              for part in (_JOINED_BYLINE.split(field) if "By" in field else [field])
              if not _READING_TIME.fullmatch(part)]
    for field in fields:
        name = _byline_name(field)
        if name:
            return name
    # A dated byline may name a login in lower case: "by ada | June 12, 2026". (The date
    # asked last: reading one tries a dozen layouts, and this runs on every candidate line.)
    login = next((found.group("name") for field in fields
                  if (found := _BYLINE.match(field)) and _LOGIN.fullmatch(found.group("name"))), None)
    if login and any(map(is_date, fields)):
        return login
    # Or name a person with no "by", on the date: "Ada Lovelace on 12 June 2026".
    for field in fields:
        # (The date has a digit: a field without one is not searched.)
        dated = _ON_DATE.search(field) if DIGIT.search(field) else None
        if dated and is_date(dated.group(1)) and _is_person(field[:dated.start()]):
            return field[:dated.start()]
    # Or give a login and the category it filed the post in: "12 Oct 2024 • ada release".
    if len(fields) == 2 and is_date(fields[0]) and _LOGIN_AND_CATEGORY.fullmatch(fields[1]):
        return fields[1].split()[0]
    # A page's dateline may name its author with no "by": "March 4, 2025 - Ada Lovelace".
    if len(fields) == 2 and is_stated_date(fields[0]) != is_stated_date(fields[1]):
        name = fields[1] if is_stated_date(fields[0]) else fields[0]
        return name if _is_person(name) or _is_handle(name) else None
    # Or name it beside the date and a category: "Ada Lovelace | March 4, 2025 | Releases",
    # or the page's named field ("Tags: release, lumen2"); a forum names the poster's login
    # first, beside the role: "ada · Staff member · May 4, 2025".
    if len(fields) == _NAME_DATE_CATEGORY and sum(map(is_date, fields)) == 1:
        persons = [field for index, field in enumerate(fields)
                   if _is_person(field) or index == 0 and _LOGIN.fullmatch(field)]
        others = [field for field in fields if field not in persons and not is_date(field)]
        if len(persons) == 1 and all(len(field.split()) <= 2 or _NAMED_FIELD.match(field) for field in others):
            return persons[0]
    return None


_NAME_DATE_CATEGORY = 3
_NAMED_FIELD = lazy_re.compile(r"[^\W\d_]{2,20}:\s")
# A blog's byline may say how long the post takes to read: "7 min read", "5 minutes de
# lecture", "阅读 3 分钟". It names no one.
_READING_TIME = lazy_re.compile(r"(?:\S+\s+)?\d{1,3}\s*(?:min(?:ute)?s?|分钟|分)\b.{0,20}", re.IGNORECASE)

_READING_TIME_BEFORE = lazy_re.compile(r"\d{1,3}\s*min(?:ute)?s?\s+read\s+(?=\S)", re.IGNORECASE)


def _without_reading_time(field: str) -> str:
    found = _READING_TIME_BEFORE.match(field)
    return field[found.end():] if found else field


# A site's login (lower case, no spaces) and the category a blog filed the post in. The
# category words say what the second word is; the first must then not be one.
_CATEGORY = (r"(?:releases?|news|announcements?|updates?|community|blog|events?|security|tutorials?|"
             r"nachrichten|actualités|noticias|notizie|nieuws|aktualności)")
_LOGIN_AND_CATEGORY = lazy_re.compile(rf"(?!{_CATEGORY}\s)[a-z0-9][a-z0-9_-]{{1,38}}\s+{_CATEGORY}")


# Particles a name may hold in lower case: "Vincent van Gogh", "Ana de la Cruz".
_NAME_PARTICLE = 3


_BADGE_LINES = 3


# A login as a site shows it: lower case or humped ("ada", "gingerBill", "ada_l", "ada42"),
# where a capitalized word ("Releases", "Engineering") may be the post's category.
_HANDLE = lazy_re.compile(r"(?:[a-z][\w.-]*|[A-Za-z]\w*?(?:[a-z][A-Z]|\d|_)\w*)")


def _is_handle(text: str) -> bool:
    return len(text) <= _MAX_HANDLE and _HANDLE.fullmatch(text) is not None \
        and re.fullmatch(_CATEGORY, text, re.IGNORECASE) is None


_MAX_HANDLE = 39


def _is_person(text: str) -> bool:
    """Two to four words, capitalized but for short particles, no digits: a person's name."""
    words = text.split()
    return (2 <= len(words) <= 4 and words[0][0].isupper() and words[-1][0].isupper()
            and not any(ch.isdigit() for ch in text)
            and all(word[0].isupper() or word.isalpha() and len(word) <= _NAME_PARTICLE for word in words))


# A field naming the author outright, as reST's ":Author:" does: any name, even one in
# lower case ("the maintainers").
_AUTHOR_FIELD = lazy_re.compile(r"^:?(?:authors?|autor(?:e|es)?|auteurs?)\s*[:：]\s*(?P<name>\S.{0,60})$",
                                re.IGNORECASE)


def _byline_name(text: str) -> str | None:
    # A dump may join the release's name and badge to it: "v2.0 Latest @ada released this".
    released = (RELEASED_THIS.match(text.strip()) or RELEASED_THIS_BARE.fullmatch(text.strip())
                or joined_release_byline(text)[1])
    if released:
        return released.groupdict().get("name") or released.group("handle")
    field = _AUTHOR_FIELD.match(text.strip())
    if field:
        return field.group("name").strip(" *_")
    found = _DATED_BYLINE.match(text.strip()) or _BYLINE.match(text.strip()) or _BYLINE_AFTER.match(text.strip())
    # Who translated the post may follow in brackets: "da ada (traduzione di bob)".
    name = _TRANSLATOR_AFTER.sub("", found.group("name")).strip(" *_") if found else ""
    # "Posted by ada on 16 December 2025", "Submitted by ada 14.08.2023 - 21:17": the date
    # the line goes on with is no part of the name, and tells a byline, where a login in
    # lower case names the author; so does a date before it ("Pubblicato il 17 dicembre
    # 2024 da ada").
    dated = _ON_DATE.search(name)
    undated = name[:dated.start()] if dated and is_date(dated.group(1)) else _without_date_after(name)
    if undated != name or found and DIGIT.search(text[:found.start("name")]):
        name = undated.strip(" *_,")
        if _LOGIN.fullmatch(name):
            return name
    # A forum or wiki sets the post's time right after the name ("投稿者: ada 2026-05-05 (木)
    # 21:03"), which tells a byline as a date does.
    name, stamped = _STAMP_AFTER.subn("", name)
    if stamped and _LOGIN.fullmatch(name):
        return name
    # A name starts with a capital, "@" or a letter of a caseless script, maybe after an
    # article ("by the Tern maintainers"); "By the numbers" is a heading, and what follows
    # "Published" may be the date ("Published 2 September 2024 | Author: Ada").
    named = re.sub(r"^(?:the|an?)\s+", "", name, flags=re.IGNORECASE)
    return name if named and not named[0].islower() and not named[0].isdigit() else None


def _without_date_after(name: str) -> str:
    """`name` without the date a byline gives after it ("Ada Lovelace 14.08.2023 - 21:17")."""
    if not DIGIT.search(name):
        return name
    for gap in _NAME_GAP.finditer(name):
        if is_date(name[gap.end():]):
            return name[:gap.start()]
    return name


_NAME_GAP = lazy_re.compile(r"\s*[,|·•–-]?\s+")
_TRANSLATOR_AFTER = lazy_re.compile(r"\s*[(（](?:tradu|transl|übersetz|перевод|翻[译譯訳])[^()（）]{0,60}[)）]\s*$",
                                    re.IGNORECASE)
_STAMP_AFTER = lazy_re.compile(r"\s+\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b.*$")
_ON_DATE = lazy_re.compile(r"\s+(?:on|am|le|el|il|op|den)\s+(\S.{0,40})$", re.IGNORECASE)
_LOGIN = lazy_re.compile(r"[a-z0-9][\w.-]{0,38}")


def author_of(document: Document) -> tuple[str | None, int | None]:
    """The declared author, a "by ..." line near the top, or a sign-off under a closing
    greeting ("Cheers!" / "Team X"). Returns the byline's block index so it is not read
    as a heading."""
    blocks = document.blocks
    declared = document.meta.get("author")
    declared = (byline(declared) or declared) if declared else None
    # A page scrape may put a menu and a sidebar above the byline.
    for index, block in enumerate(blocks[:_BYLINE_WINDOW]):
        name = byline(block_text(block))
        if name and not name.endswith(_SENTENCE_END):
            # A code host marks the repository's owner as the page's author; who released
            # the release is the one its byline names.
            released = is_release_byline(block_text(block))
            return (name if released else declared or name), index
    if declared:
        return declared, None
    if len(blocks) >= 2 and all(isinstance(b, Paragraph) for b in blocks[-2:]):
        greeting, signature = block_text(blocks[-2]), block_text(blocks[-1])
        if (len(greeting) <= 30 and greeting.endswith(("!", ",", "！", "，"))
                and len(signature) <= 50 and not signature.endswith(_SENTENCE_END)):
            return signature.strip("*_ "), None
    return None, None


def title_of(document: Document, byline_index: int | None) -> tuple[str | None, int | None, str]:
    """The declared title, else a heading that opens the post. Returns the index of the
    heading that carries the title, if any, so it is not read as a feature, and the rule
    that found it."""
    blocks = document.blocks
    first = 1 if byline_index == 0 else 0
    while (document.format == "text" and first + 1 < len(blocks) and _is_page_line(blocks[first])
           and (isinstance(blocks[first + 1], Heading) or _is_title_line(blocks[first + 1])
                or _is_page_line(blocks[first + 1]))):
        first += 1
    first = past_site_names(blocks, first) if document.format == "text" else first
    # A post may date itself on a line over its title ("*March 4, 2025*" over "# Lumen 2.0"),
    # a blog's page head the day's posts with the day.
    if (first + 1 < len(blocks) and isinstance(blocks[first], (Paragraph, Heading))
            and is_date(block_text(blocks[first]))):
        first += 1
    candidate = blocks[first] if first < len(blocks) else None
    opening = candidate if isinstance(candidate, Heading) else None
    # An opening heading is the title when it stands above every other heading.
    opening_level = opening.level if opening else 0
    stands_above = opening is not None and all(
        block.level > opening_level for block in blocks[first + 1:] if isinstance(block, Heading))
    declared = document.meta.get("title")
    if declared:
        key = text_key(declared)
        for index, block in enumerate(blocks[:5]):
            if isinstance(block, Heading) and text_key(block.text) == key:
                return declared, index, "repeats the declared title"
        # The body may open with its own wording of the declared title; a generic part's
        # name over the news ("# New features") words no title.
        if stands_above and opening is not None and opening_level == 1 and not is_grouping_name(opening.text):
            return declared, first, "the body's own wording of the declared title"
        return declared, None, "declared by the post's metadata"
    copied = copied_page_title(blocks, byline_index) if document.format == "text" else None
    if copied is not None:
        return copied
    wiki = wiki_tagline_title(blocks[first:]) if document.format == "text" else None
    if wiki is not None:
        return wiki[0], wiki[1] + first, wiki[2]
    # Above the byline (and maybe a date line) stands the title, whatever page furniture a
    # scrape kept above it; a byline under the post's text ("Written by X") signs it.
    # A title may end in "!" as a sentence does ("Lumen 3 is here!"): a title-like line is no prose.
    heads_the_post = bool(byline_index) and not any(
        _is_prose(block) and not _is_title_line(block)
        for block in blocks[_below_menus(blocks, byline_index or 0):byline_index])
    # A release page shows badges and buttons ("Latest", "Compare") between the release's
    # name and who released it.
    byline = byline_index or 0
    above = byline - 1
    released = bool(byline) and (is_release_byline(block_text(blocks[byline]))
                                 or joined_release_byline(block_text(blocks[byline]))[1] is not None)
    # A page's breadcrumb may stand between the post's title and its byline.
    if above > 0 and byline and CRUMBS.fullmatch(block_text(blocks[above])):
        above -= 1
    if released:
        while (above > 0 and byline - above <= _BADGE_LINES
               and is_badge_line(block_text(blocks[above]))):
            above -= 1
    for index in range(above, max(above - 2, -1), -1) if byline_index and heads_the_post else ():
        block = blocks[index]
        if isinstance(block, Heading) and not is_date(block.text) or _is_title_line(block):
            # A copy of a release page joins the release's badge to its name ("v2.0 Latest").
            title = RELEASE_BADGE.sub("", block_text(block)) if released else block_text(block)
            return title or block_text(block), index, "stands above the byline"
    # A page's dump may date the post with no byline: its title line stands right above the
    # date line, under nothing but the page's menus.
    if document.format == "text" and byline_index is None:
        # A dump may rank the date line as a heading (lynx indents the post's lines).
        dated = next((i for i in range(first + 1, min(len(blocks), _BYLINE_WINDOW))
                      if _is_dump_line(blocks[i]) and is_date(block_text(blocks[i]))), None)
        if dated is not None and _is_dump_line(blocks[dated - 1]) \
                and all(_is_dump_chrome(block) for block in blocks[first:dated - 1]):
            return block_text(blocks[dated - 1]), dated - 1, "stands above the date line, under the page's menus"
    # A scrape keeps no levels: a heading line that opens it is its title.
    if opening is not None and (opening.level == 1 or stands_above or document.format == "text"):
        return opening.text, first, "the heading that opens the post"
    # A page's dump may open with its menus and buttons ("Sign in", "Home • Blog"): the first
    # heading under nothing else is the title.
    if document.format == "text":
        heading = next((i for i in range(first, min(len(blocks), _BYLINE_WINDOW))
                        if isinstance(blocks[i], Heading) and i != byline_index), None)
        if heading is not None and all(_is_page_chrome(block) for block in blocks[first:heading]):
            return block_text(blocks[heading]), heading, "the first heading, under the page's menus"
        # A dump that ranks its lines by layout (lynx centers a page's title) shows its title
        # as the one line above all others, whatever logo or slogan stands over it; the
        # levels it guessed for the lines below (at its margin) rank none of them so.
        first_heading = blocks[heading] if heading is not None else None
        if (heading is not None and isinstance(first_heading, Heading) and first_heading.level == 1
                and not first_heading.guessed and not is_grouping_name(first_heading.text)
                and all(block.level > 1 or block.guessed for block in blocks[heading + 1:]
                        if isinstance(block, Heading))):
            return first_heading.text, heading, "the one heading above all others, under the page's chrome"
    # With neither front matter nor an opening heading, a post may open with its title as a
    # line of its own: short, no sentence, no link, above the post's headings.
    # Under a dump's page header it may end in "!" ("Lumen 3 is here!"). A line over a
    # recent day a page shows without its year is a forum post's poster ("ada Core developer"
    # over "Jan 9"), not its title.
    line = blocks[first] if first < len(blocks) else None
    poster = (document.format == "html" and first + 1 < len(blocks)
              and is_date(block_text(blocks[first + 1])) and not _YEAR.search(block_text(blocks[first + 1])))
    if (isinstance(line, Paragraph) and not poster and len(line.text) <= _MAX_TITLE_LINE and not line.urls
            and (not line.text.endswith((*_SENTENCE_END, ":", "：")) or first > 0 and _is_title_line(line))
            and not DATELINE.search(line.text) and not _SENTENCE_INSIDE.search(line.text[:-1])
            and any(isinstance(b, Heading) for b in blocks)):
        return line.text.strip("*_ "), first, "the post's opening line of its own"
    # An announcement may open with a paragraph or two (who made it, where to get it) over
    # its title: the one heading marked up at the top, over all the post's other headings.
    headings = [(i, block) for i, block in enumerate(blocks[first:], first) if isinstance(block, Heading)]
    if len(headings) > 1 and headings[0][0] < _BYLINE_WINDOW:
        top_index, top = headings[0]
        if not top.guessed and not is_grouping_name(top.text) and all(h.level > top.level for _, h in headings[1:]):
            return top.text, top_index, "the one top heading, under the post's opening text"
    newest = newest_entry_title(blocks)
    if newest is not None:
        # The entry's heading stays its part's: the highlights under it are the post's.
        return newest, None, "a changelog's newest entry"
    return None, None, "none found"


_YEAR = lazy_re.compile(r"\d{4}")


def _is_page_line(block: Block) -> bool:
    """A line of the page's header, or its menu (a dump lists the entries)."""
    if isinstance(block, ListBlock):
        return _is_page_chrome(block)
    return _PAGE_LINE.fullmatch(block_text(block)) is not None or page_header_line(block_text(block))


def _below_menus(blocks: tuple[Block, ...], end: int) -> int:
    """Where the post starts under a page's last menu above `end`: the site's header over
    the menu ("X - the site of X!") may read as a sentence but is not the post's text."""
    menus = [i for i in range(end) if isinstance(blocks[i], ListBlock) and _is_page_chrome(blocks[i])]
    return menus[-1] + 1 if menus else 0


# A dump may open with the page's lines over the post's title: the site's name ("Wren
# Blog", "Lumen News"), a link to skip the menus or to the site's home, a breadcrumb ("Home › Blog › Releases").
_PAGE_LINE = lazy_re.compile(SITE_NAME + "|" + SKIP_LINK + r"|(?:\S+\s+){0,3}home(?:\s?page)?|"
                             r"[^›»>/\n]{1,40}(?:\s+[›»>/]\s+[^›»>/\n]{1,40}){2,6}", re.IGNORECASE)
_PAGE_LINES = lazy_re.compile(rf"(?:{_PAGE_LINE.pattern})(?:\s+(?:{_PAGE_LINE.pattern})){{0,3}}", re.IGNORECASE)


def subtitle_of(blocks: tuple[Block, ...], title_index: int | None, byline_index: int | None,
                author: str | None, title: str | None = None) -> int | None:
    """The index of a post's subtitle: a line right under the title that stands over the
    byline and date lines (a few words each) rather than over the post's text. A page's
    heading there stands over the byline itself, or a line naming the author."""
    index = (title_index + 1) if title_index is not None else len(blocks)
    # A release page may give the release a headline under its byline, naming several changes
    # at once ("Faster builds, a new parser, and fixes"): no part of the post.
    if byline_index is not None and byline_index == index and byline_index + 2 < len(blocks) \
            and is_release_byline(block_text(blocks[byline_index])) and isinstance(blocks[byline_index + 1], Heading) \
            and block_text(blocks[byline_index + 1]).count(",") >= _NAMED_CHANGES:
        return byline_index + 1
    line = blocks[index] if index + 1 < len(blocks) and index != byline_index else None
    if not isinstance(line, Heading):
        return None
    # Or the body's first heading names the release again ("Lumen v2.0" under "v2.0").
    if title and (text_key(line.text) == text_key(title) or text_key(line.text).endswith(f" {text_key(title)}")):
        return index
    # A heading ranked below the post's next one (an h3 over the h2 parts) is no part.
    if _ranked_below_the_next(blocks, index):
        return index
    below = blocks[index + 1]
    signed = index + 1 == byline_index or bool(author and author in block_text(below)) and not _is_prose(below)
    return index if signed or line.guessed and _is_page_chrome(below) else None


_NAMED_CHANGES = 2


def _ranked_below_the_next(blocks: tuple[Block, ...], index: int) -> bool:
    line = blocks[index]
    following = next((block for block in blocks[index + 1:] if isinstance(block, Heading)), None)
    return isinstance(line, Heading) and not line.guessed and isinstance(following, Heading) \
        and not following.guessed and following.level < line.level


def _is_prose(block: Block) -> bool:
    """A paragraph of sentences, not a line of a page's furniture."""
    text = block_text(block)
    return isinstance(block, Paragraph) and len(text.split()) > _CHROME_WORDS and text.endswith(_SENTENCE_END)


def _is_title_line(block: Block) -> bool:
    """A paragraph that is one title-like line: short, no link, a letter, no sentence
    before its end (a title may end in "!" or "?", not in a full stop or a colon)."""
    text = block_text(block)
    return (isinstance(block, Paragraph) and 0 < len(text) <= _MAX_TITLE_LINE and not block.urls
            and _ANY_LETTER.search(text) is not None
            and not text.endswith((".", "。", ":", "：")) and not _SENTENCE_INSIDE.search(text[:-1]))


def _is_dump_line(block: Block) -> bool:
    """A title-like line, or one a dump's layout made a heading."""
    return _is_title_line(block) or isinstance(block, Heading) and block.guessed


def _is_dump_chrome(block: Block) -> bool:
    """The page's lines over a dump's title (its menus, its site's name, its breadcrumb),
    which the dump's layout may have made headings."""
    return _is_page_chrome(block) or isinstance(block, (Paragraph, Heading)) and is_header_line(block_text(block))


# A sentence's end followed by more text.
_SENTENCE_INSIDE = lazy_re.compile(r"[.!?。！？]\s+\S")
# A menu entry or a button is a few words.
_CHROME_WORDS = 4


def _is_page_chrome(block: Block) -> bool:
    """A menu (a list of entries of a few words), or a line of a few words that says
    nothing (a button, a logo)."""
    if isinstance(block, ListBlock):
        return all(len(item.text.split()) <= _CHROME_WORDS for item in block.items)
    # A dump joins the page's lines over the title ("Skip to main content" over "Wren
    # Blog") and draws rules under its header with underscores.
    text = _RULE.sub("", block_text(block)).strip()
    return isinstance(block, Paragraph) and (
        len(text.split()) <= _CHROME_WORDS and not text.endswith((*_SENTENCE_END, ":", "："))
        or len(text) <= _MAX_PAGE_LINES and _PAGE_LINES.fullmatch(text) is not None)


_RULE = lazy_re.compile(r"[_=-]{10,}")
# A few of the page's lines joined: a skip link, the site's name, a breadcrumb.
_MAX_PAGE_LINES = 200


_ANY_LETTER = lazy_re.compile(r"[^\W\d_]")


def canonical_url_of(document: Document) -> str | None:
    """An "original: <url>" line near the top names the post a translation comes from;
    otherwise what the wrapper declares."""
    for block in document.blocks[:15]:
        text = block_text(block)
        found = _ORIGINAL_CUE.search(text) if text else None
        if found:
            named = found.group("url")
            if named:
                return named.rstrip(".,;>)）")
            if isinstance(block, (Heading, Paragraph)) and len(block.urls) == 1:
                return block.urls[0]
    return document.meta.get("canonical_url")


def text_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip("*_ ")
