"""A part's name that joins kinds of change ("New features and enhancements:"): it groups
the parts under it, whatever mark ends it."""

from __future__ import annotations

import re

from newsletter import lazy_re
from newsletter.summarize.cues import GROUP_PHRASE

# "and" in a few languages, a comma, an ampersand.
_JOINED = lazy_re.compile(r"\s*(?:,|&|\b(?:and|und|et|y|e|en|i)\b)\s*", re.IGNORECASE)


def joins_kinds_of_change(name: str) -> bool:
    parts = [part for part in _JOINED.split(name.strip().rstrip(":：?？").strip()) if part]
    return len(parts) > 1 and all(GROUP_PHRASE.fullmatch(part) for part in parts)
