"""What a text copy of a page keeps of the page's header above the post's title: a skip
link with the header's lines joined to it, a row of menu entries, and a breadcrumb whose
last step is the title the next line repeats."""

from __future__ import annotations

import re

from newsletter import lazy_re
from newsletter.text.dump_title import CRUMB_MARK
from newsletter.text.outline import Block, Heading, ListBlock, Paragraph, block_text

# A page's link past its menus, in the languages sites write it: "Skip to main content",
# "Zum Inhalt springen", "Aller au contenu", "Ir al contenido", "Ir para o conteúdo", "Vai al
# contenuto", "Перейти к основному содержанию", "Przejdź do treści", "Naar de inhoud",
# "跳到主要内容", "本文へスキップ", "본문 바로가기".
SKIP_LINK = (r"(?:(?:skip|jump) to (?:the )?(?:main )?(?:content|navigation)|skip navigation"
             r"|(?:direkt )?zum (?:haupt)?inhalt(?: (?:springen|wechseln))?"
             r"|(?:aller|passer|accéder) (?:directement )?au contenu(?: principal)?"
             r"|(?:ir|saltar|pasar|pular) (?:directo |direto )?(?:al|para o) (?:contenido|conteúdo)(?: principal)?"
             r"|(?:vai|passa|salta) al contenuto(?: principale)?"
             r"|перейти к (?:основному )?(?:содержанию|содержимому)|przejdź do (?:głównej )?(?:treści|zawartości)"
             r"|(?:ga )?naar (?:de )?(?:hoofd)?inhoud"
             r"|跳(?:转|轉)?(?:到|至)(?:主要)?(?:内容|內容)|(?:メインコンテンツ|本文)へ(?:スキップ|移動)"
             r"|본문(?:으로)? (?:바로가기|건너뛰기))(?!\w)")
# A dump joins the header's lines to its skip link ("Skip to content Acme - Tools for
# makers Shop Blog Forums"): a line that opens with one is the header's.
_SKIP_LINK = lazy_re.compile(SKIP_LINK, re.IGNORECASE)
# A menu row: three entries or more, of a word or two each.
_MENU_ENTRIES = 3
_ENTRY_WORDS = 2
# A breadcrumb's last step is the page's name, which may be long (a post's whole title),
# the others a few words.
_STEP = 40


def page_header_line(text: str) -> bool:
    """A skip link (and what a dump joined to it), or a row of menu entries apart by runs of
    spaces or by marks ("Home | Download | Blog")."""
    text = text.strip()
    if _SKIP_LINK.match(text):
        return True
    return _menu_row(text)


def _menu_row(text: str) -> bool:
    """Three or more entries of a word or two, apart by marks or runs of spaces. (Marks are
    no words: the bracket closing a group of entries, the rule a dump joined after the row.)"""
    entries = _MARKED_MENU.split(text.strip())
    return len(entries) >= _MENU_ENTRIES and all(
        0 < sum(1 for word in entry.split() if _WORD.search(word)) <= _ENTRY_WORDS for entry in entries)


_WORD = lazy_re.compile(r"\w")


def crumbs_title(blocks: tuple[Block, ...]) -> tuple[int, str] | None:
    """The index and text of the title line right under a breadcrumb ending in it
    ("Blog › Software › Lumen 2.0 brings themes" over "Lumen 2.0 brings themes"), or a heading
    line opening with it."""
    for index, block in enumerate(blocks[:-1]):
        if isinstance(block, ListBlock):
            listed = _listed_crumbs_title(blocks, index, block)
            if listed is not None:
                return listed
            continue
        steps = CRUMB_MARK.split(block_text(block).strip())
        title = block_text(blocks[index + 1]).strip()
        # A heading line under it may name the page at more length ("Lumen 2.0" over "Lumen 2.0 is here").
        named = steps[-1] == title or isinstance(blocks[index + 1], Heading) and title.startswith(f"{steps[-1]} ")
        if len(steps) >= 2 and all(0 < len(step) <= _STEP for step in steps[:-1]):
            # The dateline a dump joined to the title is not the title's.
            if _with_dateline(steps[-1], title):
                return index + 1, steps[-1]
            if named:
                return index + 1, title
    return None


# A page may list its breadcrumb's steps in order ("1. Blog 2. Release notes 3. Lumen 2.0
# released"), the title a block or two under it, maybe under the name of the post's category.
# (A menu's entries are no steps: its last may name the part of the site a heading repeats.)
_CRUMB_STEPS = range(2, 7)
_TITLE_REACH = 3


def _listed_crumbs_title(blocks: tuple[Block, ...], index: int, crumbs: ListBlock) -> tuple[int, str] | None:
    steps = [item.text.strip() for item in crumbs.items]
    if not crumbs.ordered or len(steps) not in _CRUMB_STEPS or not all(0 < len(step) <= _STEP for step in steps[:-1]):
        return None
    return next(((at, steps[-1]) for at in range(index + 1, min(index + 1 + _TITLE_REACH, len(blocks)))
                 if not isinstance(blocks[at], ListBlock) and block_text(blocks[at]).strip() == steps[-1]), None)


# A dump may join the dateline under the title to it: "Version 4.0 2026-07-05 — Ada Byron".
_DATED_TAIL = lazy_re.compile(r"\s+(?P<date>\d{4}-\d{2}-\d{2})(?:\s+[—–-]\s+.{1,60})?")


def _with_dateline(step: str, line: str) -> bool:
    """Whether the line is the breadcrumb's last step with its ISO date and byline after."""
    return line.startswith(step) and _DATED_TAIL.fullmatch(line[len(step):]) is not None


# A menu row a dump sets apart by marks or runs of spaces: "Blog • Docs • Showcase"; a
# wiki's, in bracketed groups: "[ Top ] [ Edit | Diff | History ]".
_MARKED_MENU = lazy_re.compile(r"\s+[•·|]\s+|\s{2,}|\s+\]\s+\[\s+")
# A site's name: a word or two.
_SITE_WORDS = 2


def past_site_names(blocks: tuple[Block, ...], first: int) -> int:
    """The index of the post's title line, past a site's name over its menu row and a wiki's
    page name, when they stand at `first`."""
    first += 2 if _site_name_over_menu(blocks, first) else 0
    return first + 1 if _wiki_page_name(blocks, first) else first


def _site_name_over_menu(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether the line at `index` is the site's name, set on a line of its own right over
    the site's menu row: the post's title comes under both. (A dump may rank the name a
    heading or a line of text, as it ranks the logo's link.)"""
    if index + 2 >= len(blocks) or not isinstance(blocks[index], (Heading, Paragraph)):
        return False
    return (len(block_text(blocks[index]).split()) <= _SITE_WORDS
            and _menu_row(block_text(blocks[index + 1])))


# A wiki's page name joins its title's words, capitalized, and numbers: "ReleaseNotes1641".
_PAGE_NAME = lazy_re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]*|\d+)+")
_NAME_PIECE = lazy_re.compile(r"[A-Z][a-z]*|\d+")


def _wiki_page_name(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether the heading at `index` is a wiki's page name over the heading line that states
    the page's title in words: the title holds every piece of the name."""
    if index + 1 >= len(blocks) or not all(isinstance(blocks[i], Heading) for i in (index, index + 1)):
        return False
    name = block_text(blocks[index]).strip()
    squashed = "".join(char for char in block_text(blocks[index + 1]).casefold() if char.isalnum())
    return bool(_PAGE_NAME.fullmatch(name)) and all(
        piece.casefold() in squashed for piece in _NAME_PIECE.findall(name))
