"""Shapes met in the ninth held-aside set, on invented posts: maturity labels in more
languages and scripts, a summary part standing beside the post's groups of features."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsletter.summarize import split_label, summarize

SHAPES = Path(__file__).parent / "fixtures" / "shapes"


def read(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def features(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(f.heading, f.stability, f.section) for f in summarize(text).features]


@pytest.mark.parametrize(("label", "stability"), [
    # Words the vocabulary lists in a few more languages.
    ("(Deneysel)", "experimental"), ("(kullanımdan kaldırıldı)", "deprecated"), ("(Pratinjau)", "preview"),
    ("(usang)", "deprecated"), ("(föråldrad)", "deprecated"),
    # Stems shared across languages: Czech, Polish, Ukrainian, German.
    ("(experimentální)", "experimental"), ("(zastaralé)", "deprecated"), ("[застаріле]", "deprecated"),
    ("(експериментальне)", "experimental"), ("(veraltete)", "deprecated"),
    # Traditional Chinese characters for the Simplified labels.
    ("（實驗性）", "experimental"), ("【預覽】", "preview"), ("（已棄用）", "deprecated"),
])
def test_maturity_labels_in_more_languages_and_scripts(label, stability):
    assert split_label(f"Faster sync {label}") == ("Faster sync", stability)


def test_a_bracketed_word_outside_the_vocabulary_is_not_a_label():
    assert split_label("Faster sync (experience)") == ("Faster sync (experience)", None)
