"""A page source: one web page, one post."""

from __future__ import annotations

from newsletter.config import PageSource
from newsletter.errors import FetchError, SourceError
from newsletter.models import Post, SourceResult
from newsletter.sources.http import SourceFetcher, normalize_url


def collect_page(source: PageSource, fetch: SourceFetcher) -> SourceResult:
    try:
        response = fetch.get_page(source.url)
    except FetchError as exc:
        raise SourceError(str(exc)) from None
    if response.not_modified:
        return SourceResult(source=source.name, not_modified=True)
    post = Post(
        source=source.name, location=source.url, url=normalize_url(response.url),
        text=response.text, media_type=response.media_type,
    )
    return SourceResult(source=source.name, posts=(post,))
