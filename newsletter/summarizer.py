"""Outline of a post -> Summary. (Placeholder until the summarizer lands.)"""

from __future__ import annotations

from newsletter.models import Summary


def summarize(text: str, *, media_type: str | None = None, url: str | None = None) -> Summary:
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.strip()), None)
    return Summary(
        title=title, author=None, language="en", canonical_url=url,
        summary_bullets=(), features=(), format="text",
    )
