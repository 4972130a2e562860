"""Shared fixtures: a config over a temporary folder of posts, a fixed clock, the shared dir."""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
import werkzeug

from newsletter import config as config_module

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "posts"
NOW = datetime(2026, 11, 2, 9, 30, tzinfo=timezone.utc)


def shared_dir() -> Path | None:
    """The project's shared folder (seed posts, gold labels, validators) beside the clone,
    or None in a clone that has none."""
    path = Path(os.environ.get("NEWSLETTER_SHARED_DIR", REPO.parent / "shared"))
    return path if path.is_dir() else None


@pytest.fixture
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("no ../shared folder beside this clone (seed posts, gold labels, validators)")
    return path


@pytest.fixture
def posts_dir(tmp_path: Path) -> Path:
    """A copy of the bundled example posts that a test may change."""
    folder = tmp_path / "posts"
    shutil.copytree(EXAMPLES, folder)
    return folder


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path: Path, posts_dir: Path) -> config_module.Config:
    path = write_config(tmp_path, f"""
[site]
title = "Test digest"
url = "https://digest.example.org/"
author = "Test team"

[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"
""")
    return config_module.load(path)


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver on IPv4 loopback: tests never leave this machine."""
    return ("127.0.0.1", 0)


def serve_document(server, path: str, body: str | bytes, content_type: str = "text/html; charset=utf-8") -> None:
    """Serve `body` at `path` with an ETag and a Last-Modified date, answering 304 to a
    request that sends that ETag back, as a well-behaved web server does."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    validators = {
        "ETag": f'"{hashlib.sha256(data).hexdigest()[:16]}"',
        "Last-Modified": "Mon, 02 Nov 2026 08:00:00 GMT",
    }

    def handler(request: werkzeug.Request) -> werkzeug.Response:
        if request.headers.get("If-None-Match") == validators["ETag"]:
            return werkzeug.Response(status=304, headers=validators)
        return werkzeug.Response(data, content_type=content_type, headers=validators)

    server.expect_request(path).respond_with_handler(handler)
