"""split_label looks for a label only in text holding one of the brackets every label opens
with (labels._OPENING_BRACKETS): the pattern must never match text without one, and must
match a label in each of them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from newsletter.summarize import labels

# Bracket-like characters the label pattern does not open with: never a label.
_OTHER_OPENINGS = "{<⟨〔［「『«‹⦅"
_CLOSING = {"(": ")", "[": "]", "（": "）", "【": "】"}
_WORDS = ["beta", "Beta", "experimental", "Preview support", "稳定版", "deprecated", "GA", "alpha"]


def test_every_opening_the_shortcut_keeps_opens_a_label():
    assert set(_CLOSING) == set(labels._OPENING_BRACKETS)
    for opening, closing in _CLOSING.items():
        assert labels.split_label(f"Faster sync {opening}beta{closing}") == ("Faster sync", "beta"), opening


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=labels._OPENING_BRACKETS), max_size=30),
       st.sampled_from(_OTHER_OPENINGS), st.sampled_from(_WORDS),
       st.sampled_from(")]）】}>⟩〕］」』»›⦆"), st.text(max_size=10).filter(lambda t: not set(t) & set("([（【")))
def test_the_label_pattern_matches_no_text_without_an_opening_bracket(before, opening, word, closing, after):
    text = f"{before}{opening}{word}{closing}{after}"
    assert labels._LABEL.search(text) is None
    assert labels.split_label(text)[1] is None
