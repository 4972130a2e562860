"""Servers on 127.0.0.1 as the tests use them: a web document with validators, a web server
that keeps connections open and counts them, a port to listen on, an SMTP sink that keeps
what it is sent, and the [email] table pointing at it. (The `httpserver` and `smtp_server`
fixtures in conftest.py start the servers.)"""

from __future__ import annotations

import hashlib
import http.server
import json
import socket
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default as default_policy

import werkzeug


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


@dataclass(frozen=True)
class Served:
    """One request a KeepAliveServer answered: its path, its status, and when (monotonic
    seconds) it arrived and was answered."""
    path: str
    status: int
    start: float
    end: float


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that logs nothing: the tests say what matters."""

    def log_message(self, *_args) -> None:
        pass


def start_http_server(handler: type[http.server.BaseHTTPRequestHandler]) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server on 127.0.0.1, on a free port, serving in a thread of its own."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd


def stop_http_server(httpd: http.server.ThreadingHTTPServer) -> None:
    httpd.shutdown()
    httpd.server_close()


class KeepAliveServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 that keeps connections open, as web servers
    do. It serves `documents` (path -> HTML) with an ETag, answering 304 to a request that
    sends it back, each after `delay` seconds; it counts the connections it accepted and
    records every request it served. Use it in a with-block."""

    def __init__(self, documents: dict[str, str], delay: float = 0.0):
        self.documents = {path: body.encode("utf-8") for path, body in documents.items()}
        self.delay = delay
        self.connections = 0
        self.served: list[Served] = []
        self.lock = threading.Lock()

    def __enter__(self) -> KeepAliveServer:
        server = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with server.lock:
                    server.connections += 1

            def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
                start = time.monotonic()
                time.sleep(server.delay)
                body = server.documents.get(self.path)
                etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"' if body is not None else ""
                status = 404 if body is None else 304 if self.headers.get("If-None-Match") == etag else 200
                self.send_response(status)
                if status != 404:
                    self.send_header("ETag", etag)
                if status != 304:
                    data = body or b""
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if status == 200:
                    self.wfile.write(body or b"")
                with server.lock:
                    server.served.append(Served(self.path, status, start, time.monotonic()))

        self.httpd = start_http_server(Handler)
        return self

    def __exit__(self, *_exc: object) -> None:
        stop_http_server(self.httpd)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def most_at_once(self) -> int:
        """The most requests this server was answering at the same time."""
        return max((sum(1 for other in self.served if other.start <= one.start < other.end)
                    for one in self.served), default=0)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on, for a server to take."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
    after a message is kept, before it is acknowledged, with the number kept so far. The
    next `lose_answers` messages are kept and their connections closed before the answer."""

    def __init__(self):
        self.received: list[Received] = []
        self.refuse: dict[str, str] = {}
        self.data_answers: list[str] = []
        self.on_mail = None
        self.on_data = None
        self.lose_answers = 0
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
        if self.lose_answers:
            self.lose_answers -= 1
            server.transport.abort()
        return "250 Message accepted"

    def by_recipient(self) -> dict[str, list[Received]]:
        grouped: dict[str, list[Received]] = {}
        for item in self.received:
            grouped.setdefault(item.recipient, []).append(item)
        return grouped


@dataclass
class SmtpServer:
    """What the `smtp_server` fixture yields: the sink and the port it listens on."""
    sink: SmtpSink
    port: int


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
