"""Writing archive files so a reader never sees half of one, even if the process dies."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from newsletter.errors import PublishError

_TEMP_SUFFIX = ".tmp"


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, then rename it over."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=_TEMP_SUFFIX)
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


def remove(path: Path) -> None:
    """Delete an output that no longer belongs in the archive."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise PublishError(f"{path}: cannot remove: {exc.strerror or exc}") from None


def remove_stale_temporaries(folder: Path) -> None:
    """Delete the temporary files a killed writer left under `folder`.

    Only safe while no other writer can be at work there, that is under the build lock.
    """
    for temp in folder.rglob(f".*{_TEMP_SUFFIX}"):
        remove(temp)
