"""A post's outline -> Summary: its metadata, highlight bullets and announced features.

The rules follow how release posts are built rather than what they say: a feature is a
heading with nothing but prose beneath it, a section is a heading with features beneath it
(and a feature too when it has its own text above them), a maturity label is a bracketed
word from STABILITIES wherever it stands. Words matter only as a second signal, through
small multilingual cue lists (cues.py: a "Summary:" label, a closing "Thanks", an
"Example" aside). `explain` gives every heading's role and the rule that decided it.
Pure: no I/O, and no input makes it raise.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from newsletter.summarize.features import HeadingRole
    from newsletter.summarize.labels import split_label
    from newsletter.summarize.language import detect_language
    from newsletter.summarize.summary import explain, summarize, summarize_document

__all__ = ["HeadingRole", "detect_language", "explain", "split_label", "summarize", "summarize_document"]

# name -> the module that defines it, imported on first use: the package itself is imported
# by `newsletter` at every start (see newsletter/__init__.py), and the summarizer's modules
# (the parsers, the language model) are needed only once a post is read.
_EXPORTS = {
    "HeadingRole": "newsletter.summarize.features",
    "detect_language": "newsletter.summarize.language",
    "explain": "newsletter.summarize.summary",
    "split_label": "newsletter.summarize.labels",
    "summarize": "newsletter.summarize.summary",
    "summarize_document": "newsletter.summarize.summary",
}


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'newsletter.summarize' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
