"""A post's text -> Summary: parse it, then apply the rules of each part.

The same reading also tells, for `newsletter summarize --explain`, what each heading was
taken for and which rule decided: the explanation comes from the deciding code itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from newsletter.models import Summary
from newsletter.summarize.cues import SALUTATION
from newsletter.summarize.dates import dateline_of, parse_published
from newsletter.summarize.features import HeadingRole, features_of
from newsletter.summarize.forum_post import forum_post
from newsletter.summarize.highlights import highlights_of
from newsletter.summarize.language import language_of
from newsletter.summarize.metadata import (
    author_of,
    canonical_url_of,
    subtitle_of,
    title_of,
)
from newsletter.summarize.opening_parts import contents_parts
from newsletter.summarize.release_page import byline_tail
from newsletter.summarize.scrape_groups import regroup_scrape
from newsletter.text.outline import Block, Code, Document, Heading, ListBlock, Paragraph, block_text, list_text
from newsletter.text.parse import parse


@dataclass(frozen=True)
class _Reading:
    """A post as read: its summary, and where each part of it was found."""

    summary: Summary
    blocks: tuple[Block, ...]
    feature_roles: tuple[HeadingRole, ...]
    title_index: int | None
    title_rule: str
    subtitle_index: int | None
    byline_index: int | None
    salutation_index: int | None
    summary_indexes: tuple[int, ...]
    furniture: tuple[int, ...]
    contents: tuple[int, ...]


def summarize(text: str, *, media_type: str | None = None, url: str | None = None) -> Summary:
    """What one post says: its title, author, language, highlights and features.

    `media_type` is what the transport said the text is ("text/html"), `url` where the post
    was read; both are hints, the text itself decides. Never raises on any text.
    """
    return summarize_document(parse(text, media_type, base_url=url), url=url)


def summarize_document(document: Document, *, url: str | None = None) -> Summary:
    """The Summary of a post already parsed (the pipeline parses once and also reports the
    Document's front-matter problem)."""
    return _read(document, url).summary


def explain(text: str, *, media_type: str | None = None) -> tuple[HeadingRole, ...]:
    """Every heading-like block of the post in order, with the role given to it and why."""
    reading = _read(parse(text, media_type), None)
    blocks = reading.blocks
    roles = list(reading.feature_roles)
    if reading.title_index is not None:
        roles.append(HeadingRole(reading.title_index, block_text(blocks[reading.title_index]), "title",
                                 reading.title_rule))
    if reading.subtitle_index is not None:
        roles.append(HeadingRole(reading.subtitle_index, block_text(blocks[reading.subtitle_index]), "skipped",
                                 "the post's subtitle, under its title"))
    if reading.byline_index is not None:
        roles.append(HeadingRole(reading.byline_index, block_text(blocks[reading.byline_index]), "byline",
                                 "names the author"))
    if reading.salutation_index is not None:
        roles.append(HeadingRole(reading.salutation_index, block_text(blocks[reading.salutation_index]), "skipped",
                                 "a mail's salutation, over its first paragraph"))
    if reading.summary_indexes:
        cue = reading.summary_indexes[0]
        cued = len(reading.summary_indexes) > 1
        reason = "introduces the highlights" if cued else "a scrape's first list, its label lost"
        roles.append(HeadingRole(cue, block_text(blocks[cue]) or list_text(blocks[cue])[:80], "highlights", reason))
    for index in reading.contents:
        if not isinstance(blocks[index], ListBlock):
            roles.append(HeadingRole(index, block_text(blocks[index]), "skipped",
                                     "navigation: over a list naming the post's own parts"))
    for index in reading.furniture:
        if isinstance(blocks[index], Heading):
            roles.append(HeadingRole(index, block_text(blocks[index]), "skipped", "page furniture around the title"))
    for index, block in enumerate(blocks):
        hashed = next((line.strip() for line in block.text.splitlines() if line.lstrip().startswith("#")), None) \
            if isinstance(block, Code) else None
        if hashed:
            roles.append(HeadingRole(index, hashed, "code", "a '#' line inside code, never a heading"))
    return tuple(sorted(roles, key=lambda role: role.block_index))


def _read(document: Document, url: str | None) -> _Reading:
    blocks = document.blocks
    author, byline_index = author_of(document)
    title, title_index, title_rule = title_of(document, byline_index)
    forum = forum_post(blocks) if document.format == "text" and author is None else None
    if forum is not None:
        # The first post's header names its poster; the topic's title stands above it.
        author, byline_index = forum.author, forum.date_index
        if forum.title_index is not None:
            title, title_index = block_text(blocks[forum.title_index]), forum.title_index
            title_rule = "a forum topic's title, above its first post's header"
    subtitle_index = subtitle_of(blocks, title_index, byline_index, author, title)
    # What a page scrape kept above the title is the site's furniture, not the post, and so
    # are the few lines between a scrape's title and the byline under it (badges, buttons).
    furniture = tuple(range(title_index or 0))
    if (document.format == "text" and title_index is not None and byline_index is not None
            and 0 < byline_index - title_index <= _TITLE_TO_BYLINE):
        furniture += tuple(range(title_index + 1, byline_index))
    salutation_index = _salutation(blocks, title_index)
    furniture += tuple(index for index in (byline_tail(blocks, byline_index),) if index is not None)
    # The post's contents, a heading over a list naming its parts, and the list.
    contents = tuple(index for heading in contents_parts(blocks) for index in (heading, heading + 1))
    preamble = {title_index, subtitle_index, byline_index, salutation_index, *furniture, *contents}
    scrape = document.format == "text"
    bullets, summary_indexes = highlights_of(blocks, preamble, scrape=scrape)
    skipped = {index for index in (*preamble, *summary_indexes) if index is not None}
    features, feature_roles = features_of(
        regroup_scrape(blocks, bullets, skipped) if scrape else blocks, skipped, author, scrape=scrape,
        highlights=bullets)
    summary = Summary(
        title=title,
        author=author,
        language=language_of(document),
        canonical_url=canonical_url_of(document) or url,
        summary_bullets=bullets,
        features=features,
        format=document.format,
        published=parse_published(document.meta.get("date") or dateline_of(blocks)),
        links=document.links,
    )
    return _Reading(summary, blocks, feature_roles, title_index, title_rule, subtitle_index, byline_index,
                    salutation_index, summary_indexes, furniture, contents)


# A byline further below the title than this signs the post rather than heading it.
_TITLE_TO_BYLINE = 5


def _salutation(blocks: tuple[Block, ...], title_index: int | None) -> int | None:
    """The index of a mail's opening salutation ("Hello everyone", "開発者の皆さま"): a plain
    text keeps it as a line of its own, which reads like a heading."""
    first = blocks[0] if blocks and title_index != 0 else None
    return 0 if isinstance(first, (Heading, Paragraph)) and SALUTATION.fullmatch(first.text.strip()) else None
