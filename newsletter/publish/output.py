"""Writing archive files so a reader never sees half of one, even if the process dies."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from newsletter.errors import PublishError

# Temporary files are named ".<name>.newsletter-<random>.tmp", so cleaning up after a
# killed writer removes only what this program wrote, never another program's files in a
# shared web root.
_TEMP_MARK = ".newsletter-"
_TEMP_SUFFIX = ".tmp"
# Files `write_all_atomic` writes at once.
_WRITERS = 8


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, then rename it over."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}{_TEMP_MARK}", suffix=_TEMP_SUFFIX)
    except OSError as exc:
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except OSError as exc:
        os.unlink(temp)
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None


def write_all_atomic(files: Mapping[Path, bytes | str]) -> None:
    """Each file as `write_atomic` writes it, several at once: the wait for the disk to take
    a file (its fsync, ~4 ms on the benchmark machine) was most of writing a post page, and
    waits that overlap are served together."""
    with ThreadPoolExecutor(_WRITERS) as writers:
        for _ in writers.map(write_atomic, files.keys(), files.values()):
            pass


def staged(path: Path) -> Path:
    """A name to write `path` under before it is put in place (`put_in_place`): one that
    `remove_stale_temporaries` clears if the process dies in between."""
    return path.with_name(f".{path.name}{_TEMP_MARK}staged{_TEMP_SUFFIX}")


def put_in_place(path: Path) -> None:
    """Rename the file written at `staged(path)` to `path`."""
    try:
        os.replace(staged(path), path)
    except OSError as exc:
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None


def remove(path: Path) -> None:
    """Delete an output that no longer belongs in the archive."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise PublishError(f"{path}: cannot remove: {exc.strerror or exc}") from None


def remove_stale_temporaries(folders: Iterable[Path]) -> None:
    """Delete the temporary files a killed writer of this program left in `folders`.

    Only safe while no other writer can be at work there, that is under the build lock.
    """
    for folder in folders:
        # Listed by name, not globbed: the posts' and the features' folders hold a file per
        # post, and every build looks.
        try:
            names = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):  # writing there will say what is wrong
            continue
        for name in names:
            if name.startswith(".") and name.endswith(_TEMP_SUFFIX) and _TEMP_MARK in name[1:-len(_TEMP_SUFFIX)]:
                remove(folder / name)
