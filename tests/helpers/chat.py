"""A web server on 127.0.0.1 standing in for Slack, Discord, a Matrix homeserver and a
webhook receiver at once, and the [[deliveries]] tables pointing at it.

It keeps every request it takes and answers as each service does (Slack "ok", Discord the
message, Matrix the event, a webhook 200), or with the answers a test queues. Like a
homeserver, it makes one event per Matrix transaction id, however often it is sent. Tests
set `on_arrival(n)`, called as a request arrives, before it is kept, with the number kept
so far (returning True, the request is dropped unkept, as if it never arrived), and
`on_kept(n)`, called after a request is kept, before it is answered, with the number kept.
"""

from __future__ import annotations

import http.server
import json
import threading
from dataclasses import dataclass
from typing import Any

from helpers.servers import QuietHandler, start_http_server, stop_http_server

# Each kind's path on the server, and the variable its URL is put in.
PATHS = {"slack": "/services/T0/B0/secret", "discord": "/api/webhooks/1/secret", "matrix": "",
         "webhook": "/hooks/digest"}
ROOM = "!room:example.org"
TOKEN = "matrix-token"


@dataclass(frozen=True)
class Taken:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class ChatServer:
    def __init__(self) -> None:
        self.taken: list[Taken] = []
        # (status, headers, body) given to the next requests before the usual answers.
        self.answers: list[tuple[int, dict[str, str], str]] = []
        # Matrix transaction id -> the event made for it.
        self.events: dict[str, str] = {}
        self.on_arrival = None
        self.on_kept = None
        # The next requests kept have their connections closed without an answer.
        self.lose_answers = 0
        self.lock = threading.Lock()

    def __enter__(self) -> ChatServer:
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                server.handle(self)

            do_PUT = do_POST  # noqa: N815

        self.httpd = start_http_server(Handler)
        return self

    def __exit__(self, *_exc: object) -> None:
        stop_http_server(self.httpd)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def handle(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        if self.on_arrival and self.on_arrival(len(self.taken)):
            handler.close_connection = True
            return
        request = Taken(handler.command, handler.path, dict(handler.headers.items()), body)
        with self.lock:
            self.taken.append(request)
            answer = self.answers.pop(0) if self.answers else None
            lose, self.lose_answers = self.lose_answers > 0, max(0, self.lose_answers - 1)
        if self.on_kept:
            self.on_kept(len(self.taken))
        if lose:
            handler.close_connection = True
            return
        status, headers, text = answer or self.usual_answer(request)
        data = text.encode("utf-8")
        try:
            handler.send_response(status)
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:
            pass  # the client was killed while it waited

    def usual_answer(self, request: Taken) -> tuple[int, dict[str, str], str]:
        if "/send/m.room.message/" in request.path:
            transaction = request.path.rsplit("/", 1)[1]
            with self.lock:
                event = self.events.setdefault(transaction, f"$event{len(self.events)}")
            return 200, {"Content-Type": "application/json"}, json.dumps({"event_id": event})
        if request.path.startswith(PATHS["discord"]):
            return 200, {"Content-Type": "application/json"}, json.dumps({"id": str(len(self.taken))})
        return 200, {"Content-Type": "text/plain"}, "ok"

    def of(self, kind: str) -> list[Taken]:
        """The requests a delivery of `kind` made."""
        if kind == "matrix":
            return [t for t in self.taken if "/_matrix/" in t.path]
        return [t for t in self.taken if t.path.startswith(PATHS[kind])]


def deliveries_section(kinds: tuple[str, ...] = ("slack", "discord", "matrix", "webhook")) -> str:
    """A [[deliveries]] table for each kind, its URL in the variable CHAT_<KIND>_URL."""
    tables = []
    for kind in kinds:
        lines = ["[[deliveries]]", f'kind = "{kind}"', f'url_env = "CHAT_{kind.upper()}_URL"']
        if kind == "matrix":
            lines += ['token_env = "CHAT_MATRIX_TOKEN"', f'room = "{ROOM}"']
        tables.append("\n".join(lines))
    return "\n" + "\n\n".join(tables) + "\n"


def delivery_environment(server: ChatServer) -> dict[str, str]:
    """The variables deliveries_section names, pointing at `server`."""
    return {**{f"CHAT_{kind.upper()}_URL": server.url + path for kind, path in PATHS.items()},
            "CHAT_MATRIX_TOKEN": TOKEN}
