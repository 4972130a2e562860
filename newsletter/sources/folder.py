"""A folder source: every post file its glob matches, read one at a time."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from newsletter.config import FolderSource
from newsletter.errors import SourceError
from newsletter.models import CacheValidators, Post, SourceResult

# The default glob of a folder source (config.FolderSource).
_EVERYTHING = "**/*"
# Posts larger than this are skipped: no release note is this long, and reading one
# whole would let a single file exhaust memory.
MAX_POST_BYTES = 5 * 1024 * 1024


@dataclass
class FileValidators:
    """The validators of a folder's last full read of each file, by location (`known`), and
    those of the files read in full now (`learned`), as a web source's fetcher keeps them."""

    known: Mapping[str, CacheValidators]
    learned: dict[str, CacheValidators] = field(default_factory=dict)


def collect_folder(source: FolderSource, fetch: FileValidators) -> SourceResult:
    """Every post file the glob matches. Collecting lists the folder; each file is read only
    when iteration of the posts reaches it, so a build holds one post's text at a time
    however many the folder has. A file whose size and modification time are those of its
    last full read is not read again (as a web server's ETag would say "unchanged"), so a
    folder of ten thousand posts costs ten thousand `stat` calls, not a read of each."""
    folder = source.path.resolve()
    if not folder.is_dir():
        raise SourceError(f"{source.path}: not a folder")
    to_read, skipped, unchanged, listed = [], [], [], []
    known = fetch.known
    for relative, path in _matching(folder, source.glob):
        listed.append(relative)
        try:
            etag = _post_file_etag(folder, path, relative)
        except SourceError as exc:
            skipped.append((path, str(exc)))
            continue
        if etag is None:
            continue
        # A plain tuple, equal to the named one: a validator is made for the files read only.
        if known.get(relative) == (etag, None):
            unchanged.append(relative)
        else:
            to_read.append((Path(path), relative, CacheValidators(etag)))
    # Read and reported in the order of their parts, as pathlib sorts paths (the skipped by
    # their paths, whose parts after the folder's are their locations'); the unchanged
    # files, most of a large folder, are only counted.
    to_read.sort(key=lambda file: file[1].split("/"))
    skipped.sort(key=lambda problem: problem[0].split(os.sep))
    return SourceResult(
        source=source.name, posts=_read_post_files(source.name, to_read, fetch, skipped),
        skipped=skipped, unchanged=tuple(unchanged), gone=frozenset(fetch.known.keys() - set(listed)),
    )


def _matching(folder: Path, pattern: str) -> Iterator[tuple[str, str]]:
    """The location ("/" between its parts) and the path of everything in `folder` that
    `pattern` matches, in no order. A folder of ten thousand posts is listed on every build:
    the default pattern is listed with os.scandir, without a Path object per file."""
    if pattern == _EVERYTHING:
        return _everything_in(str(folder), "")
    prefix = len(str(folder).rstrip(os.sep)) + 1
    return ((str(path)[prefix:].replace(os.sep, "/"), str(path)) for path in folder.glob(pattern))


def _everything_in(folder: str, prefix: str) -> Iterator[tuple[str, str]]:
    """What Path(folder).glob("**/*") finds: every entry below the folder, into the folders in
    it but not through links to folders, and none of a folder it may not list."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except PermissionError:
        return
    for entry in entries:
        relative = prefix + entry.name
        yield relative, entry.path
        if entry.is_dir(follow_symlinks=False):
            yield from _everything_in(entry.path, relative + "/")


def _read_post_files(
    source: str, files: list[tuple[Path, str, CacheValidators]], fetch: FileValidators,
    skipped: list[tuple[str, str]],
) -> Iterator[Post]:
    """The post of each (path, location, validators) in `files`, read as it is asked for.
    A file that cannot be read joins `skipped`; one read in full leaves its validators in
    `fetch.learned`."""
    # Imported here: the text package loads every parser, and a folder whose files are all
    # unchanged needs none.
    from newsletter.text.encoding import decode

    for path, relative, validators in files:
        try:
            text = decode(_read_post_file(path))
        except SourceError as exc:
            skipped.append((str(path), str(exc)))
            continue
        fetch.learned[relative] = validators
        yield Post(source=source, location=relative, text=text)


def _post_file_etag(folder: Path, path: str, relative: str) -> str | None:
    """What identifies this version of a post file: its size and modification time, as a
    web server's ETag would. None for entries that are not posts (folders, hidden files)."""
    if relative.startswith(".") or "/." in relative:  # a hidden file, or one in a hidden folder
        return None
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            target = Path(path).resolve(strict=True)
        except (OSError, RuntimeError):  # Python 3.11 reports a link loop as RuntimeError
            raise SourceError("a link that leads nowhere (a missing target or a loop), not read") from None
        if not target.is_relative_to(folder):
            raise SourceError("a link that leaves the folder, not read")
        try:
            info = target.stat()
        except OSError as exc:
            raise SourceError(f"cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SourceError("not a regular file")
    if info.st_size > MAX_POST_BYTES:
        raise SourceError(f"larger than {MAX_POST_BYTES // (1024 * 1024)} MB, not read")
    return f"{info.st_size}-{info.st_mtime_ns}"


def _read_post_file(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if not data.strip():
        raise SourceError("empty file")
    return data
