"""The post's highlight list: what it says, near the top, is new."""

from __future__ import annotations

import re

from newsletter.summarize.cues import is_grouping_name
from newsletter.summarize.metadata import is_date
from newsletter.text.outline import Block, Heading, ListBlock, block_text

# Labels that introduce a post's highlight list.
_SUMMARY_CUE = re.compile(
    r"summary|highlights?|what'?s (?:new|changed|inside)|tl;?dr|at a glance|in short|in a nutshell|"
    r"(?:key )?takeaways|what you need to know|"
    r"(?:key|main|major|notable|important|headline|big|top)(?: new)? (?:features|changes|improvements|additions)|"
    r"(?:this|the) (?:release|version|update) (?:includes|contains|brings|adds|comes with|features|introduces|"
    r"delivers)|"
    r"in this (?:release|version)|"
    r"总结|摘要|亮点|要点|概要|重点|主要|更新内容|本次更新|新特性|新功能|"
    r"まとめ|ハイライト|主な|変更点|新機能|リリースの内容|주요|요약|새로운 기능|zusammenfassung|überblick|höhepunkte|"
    r"résumé|en bref|points forts|faits marquants|resumen|destacados|novedades|riepilogo|in breve|"
    r"resumo|destaques|samenvatting|hoogtepunten|итоги|кратко|основные|главное", re.IGNORECASE)


# Scripts written without spaces between words: one "word" may be a whole highlight.
_UNSPACED_SCRIPT = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _is_summary_cue(block: Block) -> bool:
    text = block_text(block).strip()
    if not text:
        return False
    introduces = text.endswith((":", "：")) or isinstance(block, Heading) or len(text) <= 40
    return introduces and bool(_SUMMARY_CUE.search(text))


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
    # opening: a highlights part may follow a preface. Nor does a scrape's date line.
    opening_end = next((i for i in headings if not (is_grouping_name(block_text(blocks[i]))
                                                    or _is_summary_cue(blocks[i]) or is_date(block_text(blocks[i])))),
                       len(blocks))
    for index in range(1, opening_end):
        block = blocks[index]
        if index not in preamble and isinstance(block, ListBlock) and _is_summary_cue(blocks[index - 1]):
            return _bullet_texts(block), (index - 1, index)
    heading_keys = {_key(block_text(blocks[i])) for i in headings}
    # Only a scrape loses the label above its highlights: elsewhere an unlabeled list is not one.
    for index in range(first_heading if scrape else 0):
        block = blocks[index]
        if (index not in preamble and isinstance(block, ListBlock) and not block.quoted
                and not _is_decoy(blocks, index, block, heading_keys)):
            return _bullet_texts(block), (index,)
    return (), ()


# Link labels ("English docs", "Release notes on GitHub") are a few words.
_LINK_LABEL_WORDS = 4


def _is_decoy(blocks: tuple[Block, ...], index: int, block: ListBlock, heading_keys: set[str]) -> bool:
    """A list near the top that is not the post's highlights: a menu (every item one word:
    a highlight says what changed), a row of links, the post's contents (most items a
    heading below), or a list a sentence introduces as something else ("it supports:")."""
    items = block.items
    if (all(len(item.text.split()) <= 1 and not _UNSPACED_SCRIPT.search(item.text) for item in items)
            or all(item.urls and len(item.text.split()) <= _LINK_LABEL_WORDS for item in items)
            # A translated contents list may word an item unlike its heading: most is enough.
            or sum(_key(item.text) in heading_keys for item in items) * 2 > len(items)):
        return True
    introduction = block_text(blocks[index - 1]).strip() if index else ""
    return introduction.endswith((":", "：")) and not _is_summary_cue(blocks[index - 1])


# A contents list numbers its entries as the headings do ("2. Language changes").
_SECTION_NUMBER = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+")


def _key(text: str) -> str:
    return " ".join(_SECTION_NUMBER.sub("", text).casefold().split())


def _bullet_texts(block: ListBlock) -> tuple[str, ...]:
    return tuple(item.text for item in block.items if item.text)
