"""The post's highlight list: what it says, near the top, is new."""

from __future__ import annotations

import re

from newsletter.text.outline import Block, Heading, ListBlock, block_text

# Labels that introduce a post's highlight list.
_SUMMARY_CUE = re.compile(
    r"summary|highlights?|key (?:features|changes)|what'?s new|tl;?dr|at a glance|"
    r"总结|摘要|亮点|要点|概要|重点|まとめ|ハイライト|주요|요약|zusammenfassung|überblick|höhepunkte|"
    r"résumé|en bref|points forts|faits marquants|resumen|destacados|novedades|riepilogo|in breve|"
    r"resumo|destaques|samenvatting|hoogtepunten|итоги|кратко|основные|главное", re.I)


def _is_summary_cue(block: Block) -> bool:
    text = block_text(block).strip()
    if not text:
        return False
    introduces = text.endswith((":", "：")) or isinstance(block, Heading) or len(text) <= 40
    return introduces and bool(_SUMMARY_CUE.search(text))


def highlights_of(blocks: tuple[Block, ...], preamble: set[int | None]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The post's own highlight list: the list after a summary label in the post's opening
    part (up to its second heading: an "Overview" may come first), else the first list
    before the first heading. Returns the bullets and the indexes of the blocks they came
    from."""
    headings = [i for i, b in enumerate(blocks) if isinstance(b, Heading) and i not in preamble]
    first_heading = headings[0] if headings else len(blocks)
    opening_end = headings[1] if len(headings) > 1 else len(blocks)
    for index in range(1, opening_end):
        if isinstance(blocks[index], ListBlock) and _is_summary_cue(blocks[index - 1]):
            return _bullet_texts(blocks[index]), (index - 1, index)
    for index in range(first_heading):
        if isinstance(blocks[index], ListBlock):
            return _bullet_texts(blocks[index]), (index,)
    return (), ()


def _bullet_texts(block: ListBlock) -> tuple[str, ...]:
    return tuple(item.text for item in block.items if item.text)
