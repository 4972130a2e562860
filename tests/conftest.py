"""Shared fixtures: a config over a temporary folder of posts, a fixed clock, the shared dir,
a real SMTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default as default_policy
from pathlib import Path

import pytest
import werkzeug
from aiosmtpd.controller import Controller

from newsletter import config as config_module
from newsletter.models import Entry, Feature, StoredPost, Summary
from newsletter.state import lock

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


def stored_post(
    post_id: int, title: str, *, language: str = "en", url: str | None = None,
    bullets: tuple[str, ...] = (), features: tuple[Feature, ...] = (),
    first_seen: datetime = NOW, changed: datetime | None = None, published: datetime | None = None,
    canonical_url: str | None = None, author: str | None = None,
) -> StoredPost:
    """A post as the store would hand it to the publishers, without running the pipeline."""
    return StoredPost(
        id=post_id, source="posts", location=f"post-{post_id}.md", url=url,
        content_hash=f"hash-{post_id}", first_seen=first_seen, last_seen=first_seen,
        changed=changed or first_seen,
        summary=Summary(
            title=title, author=author, language=language, canonical_url=canonical_url,
            summary_bullets=bullets, features=features, format="markdown", published=published,
        ),
    )


def large_entry(number: int, *, published: datetime = NOW) -> Entry:
    """A post with long bullets, many features in several sections, and a translation."""
    features = tuple(
        Feature(f"Feature {i} of post {number}: " + "a considerably long heading " * 3,
                ("stable", "beta", "prototype", None)[i % 4], f"Section {i // 10}")
        for i in range(60)
    )
    bullets = tuple(f"Highlight {i} of post {number}: " + "lots of detail " * 30 for i in range(12))
    primary = stored_post(
        number * 2, f"Project {number} release {number}.0 with a long title " + "x" * 40,
        url=f"https://blog.example.com/{number}", bullets=bullets, features=features,
        published=published,
    )
    translation = stored_post(
        number * 2 + 1, f"Projekt {number}", language="de", url=f"https://blog.example.com/de/{number}",
        published=published,
    )
    return Entry(id=f"https://blog.example.com/{number}", primary=primary, alternates=(translation,))


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


# -- a real SMTP server on 127.0.0.1 ---------------------------------------------


@dataclass
class Received:
    recipient: str
    raw: bytes
    # Which connection brought it: the client's (host, port).
    peer: tuple

    @property
    def message(self) -> EmailMessage:
        return BytesParser(policy=default_policy).parsebytes(self.raw)


class SmtpSink:
    """An aiosmtpd handler that keeps every message it accepts. Tests set how it answers:
    `refuse` maps an address to its RCPT answer, `data_answers` are given to the next DATA
    commands before the usual 250, `on_mail(n)` is called at each MAIL FROM and `on_data(n)`
    after a message is kept, before it is acknowledged, with the number kept so far."""

    def __init__(self):
        self.received: list[Received] = []
        self.refuse: dict[str, str] = {}
        self.data_answers: list[str] = []
        self.on_mail = None
        self.on_data = None
        self.lock = threading.Lock()

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.on_mail:
            self.on_mail(len(self.received))
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.data_answers:
                return self.data_answers.pop(0)
            for recipient in envelope.rcpt_tos:
                self.received.append(Received(recipient, envelope.original_content, session.peer))
        if self.on_data:
            self.on_data(len(self.received))
        return "250 Message accepted"

    def by_recipient(self) -> dict[str, list[Received]]:
        grouped: dict[str, list[Received]] = {}
        for item in self.received:
            grouped.setdefault(item.recipient, []).append(item)
        return grouped


@dataclass
class SmtpServer:
    sink: SmtpSink
    port: int


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on, for a server to take."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp_server() -> SmtpServer:
    sink = SmtpSink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(sink, port)
    finally:
        controller.stop()


def email_section(port: int, subscribers: list[str], **extra: str) -> str:
    """An [email] table for a server on 127.0.0.1:`port`; `extra` adds TOML lines as is."""
    lines = [
        "[email]", 'host = "127.0.0.1"', f"port = {port}", 'security = "none"',
        'from = "Test digest <digest@example.org>"',
        'unsubscribe_mailto = "unsubscribe@example.org"',
        'unsubscribe_url = "https://digest.example.org/unsubscribe"',
        f"subscribers = {json.dumps(subscribers, ensure_ascii=False)}",
        *(f"{key} = {value}" for key, value in extra.items()),
    ]
    return "\n".join(lines) + "\n"


@contextmanager
def held_elsewhere(path: Path):
    """The lock file `path` held by another thread, as another process would hold it."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock.exclusive(path):
            taken.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(timeout=10)
    try:
        yield
    finally:
        release.set()
        holder.join()
