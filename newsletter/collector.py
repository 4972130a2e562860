"""Sources -> posts. Each source kind is one function; a failing source becomes an error
in its result and never stops the others."""

from __future__ import annotations

import logging
import stat
from collections.abc import Callable
from pathlib import Path

import feedparser
import requests

from newsletter import __version__
from newsletter.config import SourceConfig
from newsletter.formats import decode
from newsletter.models import Post, SourceResult

log = logging.getLogger(__name__)

# Posts larger than this are skipped: no release note is this long, and reading one
# whole would let a single file exhaust memory.
MAX_POST_BYTES = 5 * 1024 * 1024
USER_AGENT = f"newsletter/{__version__} (+https://pypi.org/project/newsletter/)"
TIMEOUT = (5, 20)


class SourceError(Exception):
    """A source cannot be read as a whole."""


def collect_folder(source: SourceConfig) -> SourceResult:
    folder = source.path.resolve()
    if not folder.is_dir():
        raise SourceError(f"{source.path}: not a folder")
    posts, skipped = [], []
    for path in sorted(folder.glob(source.glob)):
        relative = path.relative_to(folder).as_posix()
        try:
            data = _read_post_file(folder, path)
        except SourceError as exc:
            skipped.append((str(path), str(exc)))
            continue
        if data is None:
            continue
        posts.append(Post(source=source.name, location=relative, text=decode(data)))
    return SourceResult(source=source.name, posts=tuple(posts), skipped=tuple(skipped))


def _read_post_file(folder: Path, path: Path) -> bytes | None:
    """The file's bytes, None for entries that are not posts (folders, hidden files)."""
    if any(part.startswith(".") for part in path.relative_to(folder).parts):
        return None
    try:
        info = path.lstat()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode) and not path.resolve().is_relative_to(folder):
        raise SourceError("a link that leaves the folder, not read")
    if not path.is_file():
        raise SourceError("not a regular file")
    if path.stat().st_size > MAX_POST_BYTES:
        raise SourceError(f"larger than {MAX_POST_BYTES // (1024 * 1024)} MB, not read")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if not data.strip():
        raise SourceError("empty file")
    return data


def _get(url: str) -> requests.Response:
    try:
        response = requests.get(url, timeout=TIMEOUT, headers={"User-Agent": USER_AGENT})
        response.raise_for_status()
    except requests.RequestException as exc:
        raise SourceError(f"{url}: {exc}") from None
    return response


def collect_page(source: SourceConfig) -> SourceResult:
    response = _get(source.url)
    post = Post(
        source=source.name, location=source.url, url=response.url,
        text=decode(response.content, response.encoding),
        media_type=response.headers.get("Content-Type", "").split(";")[0] or None,
    )
    return SourceResult(source=source.name, posts=(post,))


def collect_feed(source: SourceConfig) -> SourceResult:
    response = _get(source.url)
    parsed = feedparser.parse(response.content)
    if parsed.bozo and not parsed.entries:
        raise SourceError(f"{source.url}: not a feed: {parsed.bozo_exception}")
    posts = []
    for entry in parsed.entries:
        link = entry.get("link") or entry.get("id")
        content = entry.get("content") or [{"value": entry.get("summary", ""), "type": "text/html"}]
        if not link or not content[0]["value"]:
            continue
        posts.append(Post(
            source=source.name, location=link, url=link, text=content[0]["value"],
            media_type=content[0].get("type") or "text/html",
        ))
    return SourceResult(source=source.name, posts=tuple(posts))


COLLECTORS: dict[str, Callable[[SourceConfig], SourceResult]] = {
    "folder": collect_folder,
    "page": collect_page,
    "feed": collect_feed,
}


def collect(sources: tuple[SourceConfig, ...]) -> list[SourceResult]:
    results = []
    for source in sources:
        try:
            results.append(COLLECTORS[source.kind](source))
        except SourceError as exc:
            results.append(SourceResult(source=source.name, error=str(exc)))
    return results
