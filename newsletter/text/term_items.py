"""List items that are a name on the marker's line over an indented description: a mail's
or a plain page's way of writing a definition list ("* $cfgSyncInterval" then the lines
saying what it does, indented under it). Each names one thing the part announces."""

from __future__ import annotations

# A name is short and is no sentence: it ends in none of a sentence's stops.
_MAX_NAME_WORDS = 8
_SENTENCE_END = (".", ":", ";", ",", "!", "?", "。", "：", "；", "，", "！", "？")


def is_named_item(lines: list[str], indented: int) -> bool:
    """Whether an item's lines (its marker line first, stripped) are a name over a
    description every line of which was indented under it."""
    name = lines[0]
    return (len(lines) > 1 and indented == len(lines) - 1 and 0 < len(name.split()) <= _MAX_NAME_WORDS
            and not name.endswith(_SENTENCE_END))
