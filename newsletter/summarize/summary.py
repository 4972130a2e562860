"""A post's text -> Summary: parse it, then apply the rules of each part."""

from __future__ import annotations

from newsletter.models import Summary
from newsletter.summarize.features import features_of
from newsletter.summarize.highlights import highlights_of
from newsletter.summarize.metadata import (
    author_of,
    canonical_url_of,
    dateline_of,
    language_of,
    parse_published,
    title_of,
)
from newsletter.summarize.scrape_groups import regroup_scrape
from newsletter.text.parse import parse


def summarize(text: str, *, media_type: str | None = None, url: str | None = None) -> Summary:
    document = parse(text, media_type, base_url=url)
    blocks = document.blocks
    author, byline_index = author_of(document)
    title, title_index = title_of(document, byline_index)
    # What a page scrape kept above the title is the site's furniture, not the post.
    furniture = set(range(title_index or 0))
    bullets, summary_indexes = highlights_of(blocks, {title_index, byline_index, *furniture})
    skipped = {title_index, byline_index, *summary_indexes, *furniture} - {None}
    return Summary(
        title=title,
        author=author,
        language=language_of(document),
        canonical_url=canonical_url_of(document) or url,
        summary_bullets=bullets,
        features=features_of(regroup_scrape(blocks, bullets, skipped) if document.format == "text" else blocks,
                           skipped, author),
        format=document.format,
        published=parse_published(document.meta.get("date") or dateline_of(blocks)),
        links=document.links,
    )
