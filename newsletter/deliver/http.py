"""Posting one request to a chat service or webhook, with the waits its answers ask for.

A 429 is waited out for as long as the answer asks (its Retry-After header, in seconds or
as a date, or the `retry_after` / `retry_after_ms` of a Discord or Matrix body), up to
RETRY_AFTER_CAP; a 5xx, or a connection that cannot be made, is tried again after growing
waits; then the post is left for the next run. Any other 4xx, and a redirect (none is
followed: the operator's URL is the one address posted to), is a refusal for good.

A connection lost once the request was sent is not tried again in the same run: the
service may have taken the post before its answer was lost. The outbox leaves it pending
for the next run.

The URL is a secret: no message here shows more of it than its host.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal
from urllib.parse import urlsplit

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NameResolutionError,
    NewConnectionError,
    ProxyError,
    SSLError,
)

from newsletter.publish.sanitize import one_line
from newsletter.sources.http import certificates, environment_proxy
from newsletter.version import __version__

log = logging.getLogger(__name__)

# Seconds to wait before each new attempt after a 5xx or a connection that failed.
RETRY_DELAYS = (2.0, 4.0, 8.0)
# The longest a 429 is waited out; asked to wait longer, the post waits for the next run.
RETRY_AFTER_CAP = 60.0
# 429s taken in one run before the post is left for the next.
RATE_LIMITED_TRIES = 5
TIMEOUT = urllib3.Timeout(connect=10.0, read=30.0)
# Of an answer's body, what is read: enough for any error a service sends.
ANSWER_BYTES = 64 * 1024

Outcome = Literal["sent", "failed", "deferred", "unconfirmed"]


@dataclass(frozen=True)
class Target:
    """Where a delivery posts, as its environment variables say."""

    url: str
    token: str | None


@dataclass(frozen=True)
class Request:
    method: Literal["POST", "PUT"]
    url: str
    body: bytes
    headers: dict[str, str]


def json_request(method: Literal["POST", "PUT"], url: str, body: bytes, **headers: str) -> Request:
    return Request(method, url, body, {
        "Content-Type": "application/json", "User-Agent": f"newsletter/{__version__}", **headers})


class Poster:
    """The connection pools of a run: straight, or through the proxy the environment names
    for a URL, with the certificates it names, as the collector's (sources/http.py). Each
    request goes on a connection of its own, so that a kept-alive connection the server
    closed is never mistaken for a post it lost."""

    def __init__(self) -> None:
        self.direct = urllib3.PoolManager(**certificates())
        self.proxies: dict[str, urllib3.ProxyManager] = {}

    def close(self) -> None:
        for pools in (self.direct, *self.proxies.values()):
            pools.clear()

    def _pools(self, url: str) -> urllib3.PoolManager:
        proxy = environment_proxy(url)
        if proxy is None:
            return self.direct
        if proxy not in self.proxies:
            self.proxies[proxy] = urllib3.ProxyManager(proxy, **certificates())
        return self.proxies[proxy]

    def post(self, request: Request, where: str, sleep: Callable[[float], object],
             delays: tuple[float, ...] = RETRY_DELAYS) -> tuple[Outcome, str | None]:
        """("sent", None), or the outcome and the answer or reason that led to it; `where`
        names the post in the log."""
        host = urlsplit(request.url).hostname or "?"
        waits = iter(delays)
        rate_limited = 0
        while True:
            try:
                response = self._pools(request.url).request(
                    request.method, request.url, body=request.body, headers={**request.headers, "Connection": "close"},
                    redirect=False, retries=False, timeout=TIMEOUT, preload_content=False)
            except (NewConnectionError, ConnectTimeoutError, NameResolutionError, SSLError, ProxyError) as exc:
                status, text = None, ""
                answer = f"cannot connect to {host}: {_reason(exc)}"
            except HTTPError as exc:
                return "unconfirmed", (f"connection to {host} lost after the post was sent, before the answer"
                                       f" ({_reason(exc)})")
            else:
                status, text = response.status, _body(response)
                answer = one_line(f"{status} {text}", 200)
            if status is not None and status < 300:
                return "sent", None
            if status == 429:
                rate_limited += 1
                wait = retry_after(response.headers.get("Retry-After"), text)
                if rate_limited >= RATE_LIMITED_TRIES or (wait or 0) > RETRY_AFTER_CAP:
                    return "deferred", f"rate limited by {host}: {answer}"
                wait = wait if wait is not None else next(waits, RETRY_AFTER_CAP)
            elif status is not None and status < 500:
                if 300 <= status < 400:
                    answer += " (a redirect: none is followed; set the variable to the address it leads to)"
                return "failed", answer
            else:
                wait = next(waits, None)
                if wait is None:
                    return "deferred", answer
            log.info("%s: %s; trying again in %g s", where, answer, wait)
            sleep(wait)


def _body(response: urllib3.BaseHTTPResponse) -> str:
    """The start of an answer's body; "" if it breaks off: its status has been read, and
    says how the post went."""
    try:
        return response.read(ANSWER_BYTES, decode_content=True).decode("utf-8", "replace")
    except HTTPError:
        return ""
    finally:
        response.release_conn()


def retry_after(header: str | None, body: str) -> float | None:
    """Seconds an answer asks to wait: its Retry-After header (seconds, or an HTTP date),
    else the `retry_after` (seconds, Discord) or `retry_after_ms` (Matrix) of its JSON body."""
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass
        try:
            moment = parsedate_to_datetime(header)
        except (TypeError, ValueError):
            moment = None
        if moment is not None:
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            return max(0.0, (moment - datetime.now(UTC)).total_seconds())
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for key, scale in (("retry_after", 1.0), ("retry_after_ms", 0.001)):
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return float(value) * scale
    return None


def _reason(exc: Exception) -> str:
    """What went wrong, without the connection urllib3 names first ("HTTPConnection(host=...,
    port=...): "); its messages never carry the URL's path, where a webhook keeps its key."""
    return one_line(str(exc).split("): ", 1)[-1], 200) or type(exc).__name__
