"""The post's highlight list: what it says, near the top, is new."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from newsletter import lazy_re
from newsletter.summarize.cues import ASIDE, BOILERPLATE, NAVIGATION, is_grouping_name
from newsletter.summarize.dates import is_date
from newsletter.summarize.headings import bold_lead_parts
from newsletter.summarize.opening_parts import (
    BARE_LABEL_WORDS,
    first_of_introduced_parts,
    heading_key,
    headings_by_level,
    is_part_name,
    mirrors_the_headings,
    names_the_release,
    notes_before_the_summary,
    summary_part,
    titles_a_box,
)
from newsletter.summarize.release_page import is_release_byline
from newsletter.summarize.summary_labels import BRINGS, not_the_highlights, one_of_categories
from newsletter.text.outline import Block, Heading, ListBlock, ListItem, Paragraph, block_text

# Labels that introduce a post's highlight list.
_SUMMARY_CUE = lazy_re.compile(
    r"summary|highlights?|what'?s (?:new|changed|inside|in\b)|tl;?dr|at a glance|in short|in a nutshell|short version|"
    r"(?:key )?takeaways|what you need to know|what you(?:'ll)? get|(?:new|neu|nuevo|novo) (?:in|em|en) v?\d|"
    r"(?:key|main|major|notable|important|headline|big|top)(?: new)? "
    r"(?:features|changes|improvements|additions|points)|"
    r"(?:this|the) (?:release|version|update) (?:also )?(?:includes|contains|brings|adds|comes with|features|"
    r"introduces|delivers|stabili[sz]es|graduates|ships(?: with)?)|"
    r"in this (?:release|version)|"
    r"总结|摘要|亮点|要点|概要|重点|主要|更新内容|本次更新|新特性|新功能|"
    r"まとめ|ハイライト|主な|変更点|新機能|リリースの内容|주요|요약|새로운 기능|zusammenfassung|überblick|höhepunkte|"
    r"résumé|en bref|points forts|faits marquants|resumen|destacad[oa]s?|novedades|riepilogo|in breve|"
    r"resumo|destaques|samenvatting|hoogtepunten|in het kort|w skrócie|najważniejsze|tóm tắt|"
    r"итоги|кратко|основные|главное|"
    # Hungarian, Finnish, Romanian, Greek, Hebrew, Thai: "in short", "at a glance", "the main points".
    r"röviden|lyhyesti|pe scurt|με μια ματιά|συνοπτικά|עיקרי|בקצרה|สรุป|"
    # Indonesian, Swedish, Turkish, Ukrainian, Persian: "highlights", "summary", "in short".
    r"sorotan|ringkasan|höjdpunkter|sammanfattning|i korthet|öne çıkanlar|özet|коротко|підсумок|"
    r"خلاصه|نکات برجسته|"
    # Hindi: "the main points", "summary", "in short".
    r"मुख्य बातें|मुख्य विशेषताएँ|सारांश|संक्षेप में|"
    # "The essentials", "the main changes", "in short" in more languages.
    r"l'essentiel|lo esencial|o essencial|l'essenziale|el més important|das wichtigste|най-важното|найважливіше|"
    r"основное|ключевые изменения|ключови промени|principais mudanças|principales cambios|principaux changements|"
    r"modifiche principali|novità principali|punti salienti|belangrijkste wijzigingen|főbb változások|"
    r"tärkeimmät muutokset|viktigaste nyheterna|hlavní změny|ana değişiklikler|perubahan utama|"
    # "The most important changes", as a sentence says it: tr, de, es, fr, pt, it.
    r"önemli (?:değişiklikler|yenilikler)|wichtigsten (?:änderungen|neuerungen)|(?:cambios|novedades) más importantes|"
    r"(?:changements|nouveautés) les plus importants|(?:mudanças|novidades) mais importantes|modifiche più importanti|"
    r"principalele noutăți|κύριες αλλαγές|những điểm chính|重要な変更|핵심 변경 사항|"
    r"kurz gesagt|auf einen blick|zusammengefasst|kort samengevat|\bresum\b|kort fortalt|in kürze|"
    # Norwegian: "in short".
    r"kort oppsummert|kort sagt|"
    # "What to remember": French, Italian, Spanish, Portuguese.
    r"(?:à|faut) retenir|da ricordare|para recordar|para lembrar|"
    # "At a glance": ko, ja, zh.
    r"한눈에|一目で|一览|速览", re.IGNORECASE)


# Scripts written without spaces between words: one "word" may be a whole highlight.
_UNSPACED_SCRIPT = lazy_re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


# A sentence introducing what to do or where the release runs rather than what is new: "To
# upgrade, follow these steps:", "Wren 3 is available for:", "Wren 3 supports:".
_NOT_NEWS = lazy_re.compile(
    r"\b(?:upgrad\w*|migrat\w*|install\w*|steps?|available|supports?|supported|runs on|requires?|platforms?|"
    r"schritte|verfügbar|étapes|disponible|pasos)\b|"
    r"升级|迁移|步骤|支持|平台|アップグレード|移行|手順|利用でき|プラットフォーム|업그레이드|마이그레이션|단계|지원|플랫폼",
    re.IGNORECASE)


# A sentence that says "as follows" stands for a colon: "主な内容は次のとおりです。".
# So does one that names what it brings as "the following" ("improves X with the following
# features.", "다음과 같은 기능으로 … 개선합니다."), where a language puts the words; in English
# at the end, as a few words ("… the following ones which we explain below" says no list).
_AS_FOLLOWS = lazy_re.compile(r"(?:as follows|the following)\.$|(?:次|以下)の(?:とおり|通り)です。$|如下。$|"
                              r"다음과 같습니다\.$|(?:wie folgt|comme suit|como sigue|come segue)\.$|"
                              r"\bthe following(?: [\w-]+){1,3}\.$|다음과 같은[^.!?]{1,80}\.$|"
                              r"(?:次|以下)の[^。！？]{1,60}。$",
                              re.IGNORECASE)


def _introduces_what_follows(text: str) -> bool:
    """Whether a line ends by introducing what comes after it: a colon, or its words."""
    return text.endswith((":", "：")) or _AS_FOLLOWS.search(text) is not None


# "Other news", "Otras novedades", "Weitere Neuerungen": what the post's parts above left
# over, never the highlights, whatever word for news follows.
_LEFT_OVER = lazy_re.compile(r"(?:other|otr[oa]s|outr[oa]s|autres|altr[eio]|weitere|andere|overige|inne|další|diğer|"
                             r"другие|прочие|інші)\s|其他|其它|その他|기타", re.IGNORECASE)


def _is_summary_cue(block: Block) -> bool:
    text = block_text(block).strip()
    if not text:
        return False
    ends_in_colon = _introduces_what_follows(text)
    introduces = ends_in_colon or isinstance(block, Heading) or len(text) <= 40
    return introduces and bool(_SUMMARY_CUE.search(text)) and not _LEFT_OVER.match(text)


def highlights_of(blocks: tuple[Block, ...], preamble: set[int | None],
                  scrape: bool) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The post's own highlight list: the list after a summary label in the post's opening
    part (up to its first heading that is not a framing part: a list under a feature's
    heading is that feature's detail), else, in a scrape, the first list before the first
    heading that is not a decoy. Returns the bullets and the indexes of the blocks they
    came from."""
    headings = [i for i, b in enumerate(blocks) if isinstance(b, Heading) and i not in preamble]
    first_heading = headings[0] if headings else len(blocks)
    # Parts that frame the post ("Preface", "Highlights", "Deprecations") do not end its
    # opening: a highlights part may follow a preface, or its numbers, or where to download
    # it. Nor does a scrape's date line.
    # A scrape's page chrome (a breadcrumb, the title, a byline) may read as headings above
    # the post's first prose: those do not end its opening either; nor does a callout's
    # title ("Important" over a line on what the release needs).
    prose_start = _first_prose(blocks, first_heading) if scrape else 0
    opening_end = next((i for i in headings if i > prose_start and not (
        is_grouping_name(block_text(blocks[i])) or BOILERPLATE.fullmatch(block_text(blocks[i]))
        or _is_summary_cue(blocks[i]) or is_date(block_text(blocks[i])) or _is_contents(blocks[i])
        or ASIDE.fullmatch(block_text(blocks[i])) or titles_a_box(blocks, i)
        or _opens_with_the_summary(blocks, i) or names_the_release(blocks[i])
        or notes_before_the_summary(blocks, i, _is_summary_cue))),
                       len(blocks))
    # A post whose parts are bold lead-ins has its opening over the first.
    opening_end = min(opening_end, *bold_lead_parts(blocks), len(blocks))
    contents = headings_by_level(blocks, headings)
    heading_keys = {heading_key(block_text(blocks[i])) for i in headings}
    summary_body = summary_part(blocks, opening_end) if opening_end < len(blocks) else ()
    for index in range(1, opening_end):
        block = blocks[index]
        grouped = _grouped_lists(blocks, index) if isinstance(block, Heading) and _is_summary_cue(block) else ()
        if index not in preamble and grouped:
            return (tuple(text for _, part_list in grouped for text in _bullet_texts(part_list)),
                    (index, *(line for i, _ in grouped for line in (i - 1, i))))
        # A part named for the summary may repeat the headings below it, as a changelog's
        # "Summary" lists each entry its "Details" then tell.
        if (index not in preamble and isinstance(block, ListBlock) and _is_summary_cue(blocks[index - 1])
                and not mirrors_the_headings(block, contents, blocks[index - 1])
                and not first_of_introduced_parts(blocks, index - 1)):
            if not_the_highlights(blocks, index, opening_end, _is_summary_cue):
                continue
            framing = index - 2 if index > 1 and (_opens_with_the_summary(blocks, index - 2)
                                                  or names_the_release(blocks[index - 2])) else index - 1
            if index > 2 and notes_before_the_summary(blocks, index - 3, _is_summary_cue):
                framing = index - 3
            return _bullet_texts(block), tuple(range(framing, index + 1))
        if isinstance(block, ListBlock) and index - 2 not in preamble and _introduced_under_box_title(blocks, index):
            return _bullet_texts(block), (index - 2, index - 1, index)
        if (isinstance(block, ListBlock) and index - 2 not in preamble
                and _introduced_under_summary_heading(blocks, index, heading_keys)):
            # A heading whose parts follow the list stays theirs: only the list is the summary's.
            return _bullet_texts(block), ((index - 1, index) if _holds_parts(blocks, index - 2, index)
                                          else (index - 2, index - 1, index))
    summary_list = blocks[summary_body[-1]] if summary_body else None
    if isinstance(summary_list, ListBlock) and not _is_navigation(summary_list, set()):
        return _bullet_texts(summary_list), (opening_end, *summary_body)
    # A post may head its features with bold lines: they name its parts too.
    heading_set = set(headings)
    parts = [block_text(block) for i, block in enumerate(blocks)
             if i in heading_set or _is_bold_line(block)][:_MAX_PARTS]
    # A list of downloads or links a sentence introduces ("Get it:") may stand before the
    # one that states the news: each is judged in turn.
    for introduced in _introduced_lists(blocks, prose_start, opening_end, preamble):
        block = blocks[introduced]
        if (isinstance(block, ListBlock) and not block.quoted and not _is_navigation(block, heading_keys)
                and _states_news(block, block_text(blocks[introduced - 1]), parts)):
            return _bullet_texts(block), (introduced - 1, introduced)
    # Only a scrape loses its highlights' label: elsewhere, or over a part named for them, a bare list is none.
    for index in range(first_heading if scrape and not (headings and _is_summary_cue(blocks[first_heading])) else 0):
        block = blocks[index]
        if (index not in preamble and isinstance(block, ListBlock) and not block.quoted
                and not _is_decoy(blocks, index, block, heading_keys, preamble)):
            return _bullet_texts(block), (index,)
    return _introducing_a_part(blocks, headings)


def _introduced_under_summary_heading(blocks: tuple[Block, ...], index: int, heading_keys: set[str]) -> bool:
    """A list that a sentence ending in a colon introduces right under a part's heading
    named for the summary ("What's new" over "The headline items:"): the part's own
    highlights, however the sentence words them, unless it introduces something else
    ("it supports:") or the list is the page's contents or links."""
    block, lead_in = blocks[index], blocks[index - 1]
    heading = blocks[index - 2] if index > 1 else None
    # Or a sentence saying what the release is about stands over the list that ends the part
    # (a part of its own named for the summary, "Highlights", may follow: its list is the one),
    # maybe before a closing word in prose ("We look forward to your feedback").
    after = next((i for i in range(index + 1, len(blocks)) if not _is_prose(blocks[i])), len(blocks))
    ends_the_part = after == len(blocks) or isinstance(blocks[after], Heading) and not _is_summary_cue(blocks[after])
    return (isinstance(block, ListBlock) and not block.quoted and not _is_navigation(block, heading_keys)
            and isinstance(lead_in, Paragraph) and (_introduces_what_follows(lead_in.text.rstrip()) or ends_the_part)
            and not _last_sentence_not_news(lead_in.text)
            and isinstance(heading, Heading) and _is_summary_cue(heading))


def _introduced_under_box_title(blocks: tuple[Block, ...], index: int) -> bool:
    """A call-out box titled for the summary ("In this release") whose list a sentence
    introduces ("The short list:"): the box holds the post's highlights."""
    block = blocks[index]
    if not (isinstance(block, ListBlock) and block.quoted and index > 1):
        return False
    title, lead_in = blocks[index - 2], blocks[index - 1]
    return (isinstance(title, Paragraph) and not _introduces_what_follows(title.text.rstrip())
            and _is_summary_cue(title) and isinstance(lead_in, Paragraph)
            and _introduces_what_follows(lead_in.text.rstrip()) and not _last_sentence_not_news(lead_in.text))


def _holds_parts(blocks: tuple[Block, ...], heading: int, listed: int) -> bool:
    """Whether the next heading after a part's list is one of the part's own sub-parts."""
    top = blocks[heading]
    below = next((block for block in blocks[listed + 1:] if isinstance(block, Heading)), None)
    return isinstance(top, Heading) and isinstance(below, Heading) and below.level > top.level


def _introducing_a_part(blocks: tuple[Block, ...], headings: list[int]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A post with no highlights in its opening may open a part with them: a sentence naming
    them ("Highlights of this release:") over a list, right under a heading whose own parts
    follow (a changelog of several versions, the highlights under the newest one's). Past
    the first part that tells its news in prose, the post is telling it: a list further down
    (a closing changelog's "New features") is no summary."""
    for told, index in enumerate(headings):
        if told and _tells_in_prose(blocks, headings[told - 1]):
            break
        cue, listed, below = blocks[index + 1:index + 4] if index + 4 <= len(blocks) else (None, None, None)
        heading = blocks[index]
        # A sentence about the version may stand over its highlights' sub-part.
        cue_at = index + 2 if isinstance(cue, Paragraph) and isinstance(listed, Heading) \
            and not _introduces_what_follows(cue.text) else index + 1
        # So may the version's date, as a heading of its own ("2.0" over "2026-Oct-28").
        cue_at += isinstance(cue, Heading) and cue_at + 2 < len(blocks) and is_date(cue.text.strip())
        cue = blocks[cue_at] if cue_at < len(blocks) else None
        # A line of its own (where to get the version) may stand between the list and the
        # sub-parts.
        if isinstance(below, Paragraph) and not _introduces_a_list(blocks, index + 3) and index + 4 < len(blocks):
            below = blocks[index + 4]
        # The sentence names the highlights, or the list goes on from it as one sentence
        # ("The short list:" over "faster builds;", "a new parser."). A part named for the
        # summary ("TL;DR") may stand past the post's opening notes, beside its other parts.
        if (isinstance(cue, Paragraph) and _introduces_what_follows(cue.text.rstrip())
                and isinstance(listed, ListBlock) and (_is_summary_cue(cue) or _one_sentence(listed.items))
                and not listed.quoted and isinstance(heading, Heading) and isinstance(below, Heading)
                and (below.level > heading.level or _is_summary_cue(heading))):
            return _bullet_texts(listed), (index + 1, index + 2)
        # Or the newest version's first sub-part, named for them ("Highlights" over a list,
        # maybe after a sentence introducing it), beside that version's other sub-parts.
        if isinstance(cue, Heading) and isinstance(heading, Heading) and cue.level > heading.level \
                and _is_summary_cue(cue) and not one_of_categories(blocks, cue_at):
            return _sub_part_list(blocks, cue_at, cue.level)
    return (), ()


def _tells_in_prose(blocks: tuple[Block, ...], heading: int) -> bool:
    """Whether a part opens with prose that introduces no list: it tells its news."""
    text = blocks[heading + 1] if heading + 1 < len(blocks) else None
    after = blocks[heading + 2] if heading + 2 < len(blocks) else None
    return isinstance(text, Paragraph) and not isinstance(after, ListBlock) and not _introduces_what_follows(text.text)


def _sub_part_list(blocks: tuple[Block, ...], cue: int, level: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The list a summary sub-part holds, alone or under a sentence introducing it, when
    the version's next sub-part follows it."""
    for body in (blocks[cue + 1:cue + 2], blocks[cue + 1:cue + 3]):
        listed, after = body[-1] if body else None, cue + 1 + len(body)
        next_part = blocks[after] if after < len(blocks) else None
        # (A summary sub-part that ends the post holds nothing.)
        lead_in = body[0] if len(body) == 2 else None
        introduced = len(body) == 1 or isinstance(lead_in, Paragraph) and _introduces_what_follows(lead_in.text)
        if (introduced and isinstance(listed, ListBlock) and not listed.quoted
                and isinstance(next_part, Heading) and next_part.level == level):
            return _bullet_texts(listed), tuple(range(cue, after))
    return (), ()


def _opens_with_the_summary(blocks: tuple[Block, ...], index: int) -> bool:
    """A heading whose text opens with the summary's bare label over a list ("Change log"
    over "Highlights:" and its list) frames the highlights, as a "Highlights" heading does;
    a sentence ending "including:" under a feature's heading introduces its detail."""
    label = blocks[index + 1] if index + 2 < len(blocks) else None
    return (isinstance(label, Paragraph) and len(label.text.split()) <= BARE_LABEL_WORDS
            and _is_summary_cue(label) and isinstance(blocks[index + 2], ListBlock))


def _is_bold_line(block: Block) -> bool:
    return isinstance(block, Paragraph) and block.lead == block.text


def _is_contents(heading: Block) -> bool:
    """A table of contents ("Spis treści", "Inhoudsopgave") stands before the post's news,
    not among it: the highlights may follow it."""
    return NAVIGATION.match(block_text(heading).strip()) is not None


# A category line ends in a colon, or a plain-text mail sets it in brackets (a line the text
# reader may have made the list's heading).
_BRACKETED = lazy_re.compile(r"\[[^\[\]]{1,60}\]")
_CATEGORY_LINE = lazy_re.compile(rf".*[:：]|{_BRACKETED.pattern}", re.DOTALL)


def _category_line(block: Block) -> bool:
    if isinstance(block, Heading):
        return block.guessed and _BRACKETED.fullmatch(block.text.strip()) is not None
    return isinstance(block, Paragraph) and _CATEGORY_LINE.fullmatch(block.text.strip()) is not None


def _grouped_lists(blocks: tuple[Block, ...], heading: int) -> tuple[tuple[int, ListBlock], ...]:
    """The lists of a highlights part that sorts them under category lines ("Interpreter
    improvements:" over a list, "[Library]" over the next): together they are the
    highlights. Every list of the part is introduced so; one list is read as usual."""
    end = next((i for i in range(heading + 1, len(blocks))
                if isinstance(blocks[i], Heading) and not _category_line(blocks[i])), len(blocks))
    lists = [(i, block) for i, block in enumerate(blocks[heading + 1:end], heading + 1)
             if isinstance(block, ListBlock) and not block.quoted]
    introduced = all(_category_line(blocks[i - 1]) for i, _ in lists)
    return tuple(lists) if len(lists) > 1 and introduced else ()


# A paragraph this long is the post's prose, not a caption, a byline or a button.
_PROSE_CHARS = 100


def _first_prose(blocks: tuple[Block, ...], first_heading: int) -> int:
    """The index of the post's first paragraph of prose, when chrome read as headings stands
    above it; else 0."""
    # A short sentence introducing a list ("Here is what changed:") is prose too: chrome
    # introduces nothing.
    if first_heading >= len(blocks) or any(_is_prose(block) or _introduces_a_list(blocks, i)
                                           for i, block in enumerate(blocks[:first_heading])):
        return 0
    # Bounded: chrome is a few blocks, and a post of millions of blocks is not searched whole.
    window = range(first_heading, min(len(blocks), first_heading + _CHROME_BLOCKS))
    return next((i for i in window if _is_prose(blocks[i])), 0)


def _is_prose(block: Block) -> bool:
    return isinstance(block, Paragraph) and len(block.text) >= _PROSE_CHARS


def _introduces_a_list(blocks: tuple[Block, ...], index: int) -> bool:
    block = blocks[index]
    return (isinstance(block, Paragraph) and index + 1 < len(blocks) and isinstance(blocks[index + 1], ListBlock)
            and _introduces_what_follows(block.text.rstrip()))


_CHROME_BLOCKS = 12


def _introduced_lists(blocks: tuple[Block, ...], start: int, opening_end: int,
                      preamble: set[int | None]) -> Iterator[int]:
    """The indexes of the opening's lists, up to the first that no sentence ending in a
    colon introduces."""
    for index in range(max(start, 1), opening_end):
        if index in preamble or not isinstance(blocks[index], ListBlock):
            continue
        if not (isinstance(blocks[index - 1], Paragraph)
                and _introduces_what_follows(block_text(blocks[index - 1]).rstrip())):
            return
        yield index


def _states_news(block: ListBlock, introduction: str, headings: list[str]) -> bool:
    """Whether a list a sentence introduces is the post's statement of what is new: most
    items are statements, not names ("Python 3.12"), and the sentence says the release
    brings them, or (unless it introduces steps or platforms) they name the parts below.
    A list of short names is one when each names a part below in its own words."""
    # Its first items tell what a list is; a list of a million lines is judged by them.
    items = block.items[:_JUDGED_ITEMS]
    statements = [_statement(item.text) for item in items]
    one_sentence = _one_sentence(items)
    if sum(statements) * 2 <= len(statements) and not one_sentence:
        return len(items) > 1 and not _NOT_NEWS.search(introduction) and all(_previews(items, headings))
    if BRINGS.search(introduction):
        return True
    if _last_sentence_not_news(introduction):
        return False
    if one_sentence:
        return True
    previews = sum(statement and preview for statement, preview in zip(statements, _previews(items, headings),
                                                                         strict=True))
    return previews * 2 > len(statements)


def _last_sentence_not_news(introduction: str) -> bool:
    """Whether a list's introduction says it lists something else ("it supports:"). What
    introduces the list is the last sentence: one before it may say the release is out
    ("Lumen 3 est disponible ! Voici l'essentiel :")."""
    return _NOT_NEWS.search(_SENTENCE_END.split(introduction)[-1]) is not None


_SENTENCE_END = lazy_re.compile(r"[.!?。！？]\s+(?=\S)")


def _previews(items: tuple[ListItem, ...], headings: list[str]) -> list[bool]:
    """For each item, whether it shares a word with a heading of the post."""
    parts = set().union(*(_word_keys(heading) for heading in headings))
    item_keys = [_word_keys(item.text) for item in items]
    # A word most items share frames the list ("... Support" in each of a list of
    # supported versions); what names a part is each item's own.
    counts = Counter(key for keys in item_keys for key in keys)
    framing = {key for key, count in counts.items() if count * 2 > len(item_keys) > 1}
    return [not parts.isdisjoint(keys - framing) for keys in item_keys]


_JUDGED_ITEMS = 50
# Items that go on into the next ("…;", "…, and", "…，", Greek's "…·", Arabic script's "…؛"
# and "…،", or a short linking word: "… és", "… ja") and a last that ends the sentence
# (Devanagari's "…।" too).
_GOES_ON = lazy_re.compile(r"(?:[;,；，、·\u0387\u061b\u060c](?:\s+\S+)?|\s[^\W\d_]{1,3})$")
_ENDS = lazy_re.compile(r"[.。!！।]$")


def _one_sentence(items: tuple[ListItem, ...]) -> bool:
    """Whether a list is written as one sentence the sentence above it begins ("Key changes:
    a new cache;  faster startup."): it states what changed, however short its items."""
    texts = [item.text.rstrip() for item in items]
    return len(texts) > 1 and all(_GOES_ON.search(text) for text in texts[:-1]) and bool(_ENDS.search(texts[-1]))
# Enough of a post's headings to tell what it is about; a post of millions of lines has more.
_MAX_PARTS = 200
# Words a heading and a highlight share: five letters cover "Dialoge"/"Datei-Dialoge",
# CJK pairs of characters, acronyms of two letters or more.
_KEY_WORD = lazy_re.compile(r"[^\W\d_]{4,}|\b[A-Z0-9]{2,}\b|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
# A statement of what changed has a few words; a name ("Windows 10", "Python 3.12") fewer.
_STATEMENT_WORDS = 5


def _word_keys(text: str) -> set[str]:
    keys: set[str] = set()
    for word in _KEY_WORD.findall(text):
        if _UNSPACED_SCRIPT.match(word):
            keys.update(word[i:i + 2] for i in range(len(word) - 1))
        else:
            keys.add(word.casefold()[:5])
    return keys


def _statement(text: str) -> bool:
    return len(text.split()) + len(_UNSPACED_SCRIPT.findall(text)) // 2 >= _STATEMENT_WORDS


# Link labels ("English docs", "Release notes on GitHub") are a few words.
_LINK_LABEL_WORDS = 4


def _is_navigation(block: ListBlock, heading_keys: set[str]) -> bool:
    """A menu (every item one word: a highlight says what changed), a row of links, or the
    post's contents (most items a heading below)."""
    items = block.items
    return (all(len(item.text.split()) <= 1 and not _UNSPACED_SCRIPT.search(item.text) for item in items)
            or all(item.urls and len(item.text.split()) <= _LINK_LABEL_WORDS for item in items)
            # A translated contents list may word an item unlike its heading: most is enough.
            or sum(heading_key(item.text) in heading_keys for item in items) * 2 > len(items))


def _is_decoy(blocks: tuple[Block, ...], index: int, block: ListBlock, heading_keys: set[str],
              preamble: set[int | None]) -> bool:
    """A list near the top that is not the post's highlights: navigation, a list a sentence
    introduces as something else ("it supports:"), or one a part's name heads (not the
    post's title: the list under it is the post's opening)."""
    # A copy that indents the release's body lists its byline with its tag and commit.
    if _is_navigation(block, heading_keys) or is_release_byline(block.items[0].text):
        return True
    # A dump that opens with a list of names, over everything (its title too), opens with
    # the site's menu: highlights say what changed, under the title.
    if not index and not any(_statement(item.text) or _ENDS.search(item.text) for item in block.items):
        return True
    if not index or _is_summary_cue(blocks[index - 1]):
        return False
    return _introduces_what_follows(block_text(blocks[index - 1]).strip()) or (
        index - 1 not in preamble and is_part_name(blocks[index - 1]))


def _bullet_texts(block: ListBlock) -> tuple[str, ...]:
    return tuple(item.text for item in block.items if item.text)
