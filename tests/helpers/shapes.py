"""The invented posts in tests/fixtures/shapes/ and the summarizer tests' view of a summary."""

from __future__ import annotations

from pathlib import Path

from newsletter.summarize import summarize
from newsletter.text.encoding import decode

SHAPES = Path(__file__).parent.parent / "fixtures" / "shapes"


def features(text: str) -> list[tuple[str, str | None, str | None]]:
    """Each feature of the post as (heading, stability, section)."""
    return [(f.heading, f.stability, f.section) for f in summarize(text).features]


def read(name: str) -> str:
    """A fixture post's text, decoded as the collector decodes a file (legacy encodings too)."""
    return decode((SHAPES / name).read_bytes())
