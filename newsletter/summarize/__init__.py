"""A post's outline -> Summary: its metadata, highlight bullets and announced features.

The rules follow how release posts are built rather than what they say: a feature is a
heading with nothing but prose beneath it, a section is a heading with features beneath it
(and a feature too when it has its own text above them), a maturity label is a bracketed
word from STABILITIES wherever it stands. Words matter only as a second signal, through
small multilingual cue lists (cues.py: a "Summary:" label, a closing "Thanks", an
"Example" aside). `explain` gives every heading's role and the rule that decided it.
Pure: no I/O, and no input makes it raise.
"""

from newsletter.summarize.features import HeadingRole
from newsletter.summarize.labels import split_label
from newsletter.summarize.language import detect_language
from newsletter.summarize.summary import explain, summarize, summarize_document

__all__ = ["HeadingRole", "detect_language", "explain", "split_label", "summarize", "summarize_document"]
