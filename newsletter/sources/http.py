"""HTTP GET for the collector, as a polite and careful client, on urllib3.

Connection pools serve the whole run and keep a few connections open per host, so that a
host's next request (the next feed on it, an entry's page) reuses one instead of connecting
again. Every request is bounded: one deadline covers connecting, the answer and the body,
which is read in small steps so that a server dripping bytes cannot hold us; the body, once
decompressed, has a size cap, so a gzip bomb cannot fill memory; redirects are followed by
hand, a few at most, and only to http(s). No cookie is kept or sent.

Connection errors, 429 and 5xx answers are retried with exponential backoff, honouring
Retry-After. The wait is kept per host, so every request to a host that asked us to slow
down waits; a host that keeps answering 429 is not asked again in the same run.

Validators (ETag, Last-Modified) make a request conditional: an unchanged document costs
one 304 answer and no body, on a connection left open for the next request.

A URL the operator configured is trusted, and so is its origin: it is fetched as curl or
requests would, through the proxy the environment names (http_proxy, https_proxy,
all_proxy, unless no_proxy exempts the host), with the login ~/.netrc holds for its host,
checking TLS against REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE when set (else certifi's
certificates). The environment is read once per origin, as it does not change during a
run. Any other URL (a feed entry's link, a redirect to another origin) goes through pools
whose connections reach public addresses only (see guard.py), with none of those from the
environment, unless the source sets allow_private.
"""

from __future__ import annotations

import email.utils
import http
import logging
import netrc
import os
import threading
import time
import urllib.request
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import certifi
import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NewConnectionError,
    ProtocolError,
    ProxyError,
    ReadTimeoutError,
    SSLError,
)

from newsletter import lazy_re
from newsletter.config import HttpConfig
from newsletter.errors import BudgetSpent, FetchError
from newsletter.models import CacheValidators
from newsletter.sources.guard import AddressRefused, GuardedPoolManager, Origin, Resolver, origin, resolve
from newsletter.version import __version__

log = logging.getLogger(__name__)

USER_AGENT = f"newsletter/{__version__} (+https://pypi.org/project/newsletter/)"
# The body is decompressed here, under the size cap, so only what that code decodes is
# announced.
ACCEPT_ENCODING = "gzip, deflate"
MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# The first retry waits this many seconds; each further one twice as long.
BACKOFF = 1.0
# A server asking us to come back later than this is not retried in this run.
MAX_RETRY_AFTER = 120.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
CHUNK = 64 * 1024
# Hosts whose connections a pool manager keeps open at once; the collector works on fewer
# hosts than this at a time (see collect.py), so a host's connections last until its
# sources are done.
HOSTS_KEPT = 32
# Not header text (RFC 9110 allows a tab among the controls).
NOT_HEADER_TEXT = lazy_re.compile("[\x00-\x08\x0a-\x1f\x7f]")


class _Retryable(Exception):
    """A failure worth another attempt later: the connection, or the server's load."""

    def __init__(self, problem: str, *, retry_after: float | None = None, status: int | None = None):
        super().__init__(problem)
        self.retry_after = retry_after
        self.status = status


@dataclass(frozen=True)
class Response:
    # The URL the document came from, after redirects.
    url: str
    body: bytes
    media_type: str | None
    # The charset the Content-Type header names, kept only when it decodes the body.
    charset: str | None
    # What to send next time to ask whether the document changed.
    validators: CacheValidators
    # The server said the document has not changed since `validators` (HTTP 304): no body.
    not_modified: bool = False

    @property
    def text(self) -> str:
        # Imported here: the text package loads every parser, and an unchanged document (a
        # 304) needs none.
        from newsletter.text.encoding import decode

        return decode(self.body, self.charset)


@dataclass(frozen=True)
class _Trust:
    """Which URLs are fetched without the address check: those on the configured URL's
    origin, or all of them when the source allows private addresses."""

    origin: Origin | None
    allow_private: bool

    def allows(self, url: str) -> bool:
        return self.allow_private or (self.origin is not None and origin(url) == self.origin)


@dataclass(frozen=True)
class _Route:
    """How requests to one trusted origin go: straight or through a proxy, and with the
    login ~/.netrc holds for the host, if any."""

    pools: urllib3.PoolManager
    headers: dict[str, str]


class _Host:
    def __init__(self, per_host: int):
        self.slots = threading.Semaphore(per_host)
        # time.monotonic() before which no request goes to this host.
        self.not_before = 0.0
        # Why no more requests go to this host in this run, once it has said so.
        self.refused: str | None = None


class Fetcher:
    """Fetches URLs under the limits of `settings`; safe to share between threads.

    `sleep` and `clock` are the waiting and the time it takes, `resolver` the name lookup
    of URLs from fetched content; tests pass their own.
    """

    def __init__(
        self, settings: HttpConfig, *, sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic, resolver: Resolver = resolve,
    ):
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        # When the build's time for requests ends: none is sent after it, none read past it.
        self.build_ends = clock() + settings.build_budget
        # At most per_host connections are kept per host, as many as requests in flight.
        self._pool_settings: dict[str, Any] = {"num_pools": HOSTS_KEPT, "maxsize": settings.per_host}
        # For trusted origins: straight, or through a proxy (by its URL).
        self.direct = urllib3.PoolManager(**self._pool_settings, **certificates())
        self._proxies: dict[str, urllib3.ProxyManager] = {}
        self._routes: dict[Origin | None, _Route] = {}
        # For every other URL.
        self.guarded = GuardedPoolManager(resolver, **self._pool_settings, ca_certs=certifi.where())
        self._hosts: dict[str, _Host] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes every connection kept open."""
        for pools in (self.direct, self.guarded, *self._proxies.values()):
            pools.clear()

    def get(
        self, url: str, validators: CacheValidators | None = None, *, accept: str = "*/*",
        source_url: str | None = None, allow_private: bool = False, source_ends: float | None = None,
    ) -> Response:
        """The document at `url`, or a not-modified Response when `validators` still hold.

        `source_url` is the configured URL `url` was found through (by default `url`
        itself): a URL, or redirect hop, on another origin than that one must lead to a
        public address, unless `allow_private`. `source_ends` is when the source's time
        budget runs out (on `clock`).

        Raises FetchError naming the URL and the problem; BudgetSpent once the source's or
        the build's time budget has run out.
        """
        if source_ends is not None and source_ends < self.build_ends:
            ends, budget = source_ends, f"the source's time budget ({self.settings.source_budget:g} s)"
        else:
            ends, budget = self.build_ends, f"the build's time budget ({self.settings.build_budget:g} s)"
        _check_scheme(url, url)
        trusted = _Trust(origin(source_url or url), allow_private)
        headers = {
            "User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING, "Accept": accept,
            **_conditional_headers(validators),
        }
        host = self._host(url)
        attempt = 0
        while True:
            with host.slots:
                if host.refused:
                    raise FetchError(url, host.refused)
                wait = host.not_before - self.clock()
                if wait > 0:
                    self.sleep(wait)
                if self.clock() >= ends:
                    raise BudgetSpent(url, f"not fetched: {budget} is spent")
                try:
                    return self._attempt(url, headers, validators, trusted, ends)
                except FetchError:
                    if self.clock() >= ends:
                        raise BudgetSpent(url, f"not read in full: {budget} ran out") from None
                    raise
                except _Retryable as failure:
                    delay = BACKOFF * 2 ** attempt if failure.retry_after is None else failure.retry_after
                    if delay <= MAX_RETRY_AFTER and attempt < self.settings.retries:
                        log.debug("%s: %s; retrying in %.1f s", url, failure, delay)
                        host.not_before = max(host.not_before, self.clock() + delay)
                        attempt += 1
                        continue
                    if failure.status == 429:
                        host.refused = "the server keeps answering 429 Too Many Requests"
                    if delay > MAX_RETRY_AFTER:
                        problem = f"{failure}, asks to retry after {delay:.0f} s"
                    else:
                        problem = f"{failure} (after {attempt + 1} attempts)" if attempt else str(failure)
                    raise FetchError(url, problem) from None

    def _host(self, url: str) -> _Host:
        key = host_of(url)
        with self._lock:
            if key not in self._hosts:
                self._hosts[key] = _Host(self.settings.per_host)
            return self._hosts[key]

    def _route(self, url: str) -> _Route:
        key = origin(url)
        with self._lock:
            if key not in self._routes:
                proxy = environment_proxy(url)
                if proxy and proxy not in self._proxies:
                    self._proxies[proxy] = urllib3.ProxyManager(proxy, **self._pool_settings, **certificates())
                self._routes[key] = _Route(self._proxies[proxy] if proxy else self.direct, _netrc_login(url))
            return self._routes[key]

    def _attempt(
        self, start_url: str, headers: dict[str, str], sent: CacheValidators | None, trusted: _Trust,
        ends: float,
    ) -> Response:
        deadline = min(self.clock() + self.settings.timeout, ends)
        url = start_url
        for _hop in range(MAX_REDIRECTS + 1):
            remaining = deadline - self.clock()
            if remaining <= 0:
                raise FetchError(start_url, f"no answer within {self.settings.timeout:g} s")
            response = self._send(start_url, url, headers, trusted, remaining)
            try:
                if response.status in REDIRECT_STATUSES and "Location" in response.headers:
                    url = urljoin(url, response.headers["Location"])
                    _check_scheme(start_url, url)
                    continue
                return self._read(start_url, url, response, deadline, sent)
            finally:
                # The connection goes back to its pool: still open if the body was read to
                # its end, else closed (what is left of a body is never read).
                response.close()
                response.release_conn()
        raise FetchError(start_url, f"more than {MAX_REDIRECTS} redirects")

    def _send(
        self, start_url: str, url: str, headers: dict[str, str], trusted: _Trust, timeout: float,
    ) -> urllib3.BaseHTTPResponse:
        try:
            # Checked on every hop: a redirect from a trusted origin can lead anywhere.
            if trusted.allows(url):
                route = self._route(url)
                pools, headers = route.pools, {**headers, **route.headers}
            else:
                pools = self.guarded
            return pools.urlopen(
                "GET", url, headers=headers, redirect=False, retries=False, timeout=timeout,
                preload_content=False, decode_content=False,
            )
        except AddressRefused as exc:
            where = "" if url == start_url else f"redirected to {url!r}, "
            raise FetchError(start_url, f"{where}{exc}") from None
        except NewConnectionError as exc:
            raise _Retryable(f"cannot connect: {_reason(exc)}") from None
        except ConnectTimeoutError:
            raise _Retryable("cannot connect: timed out") from None
        except ReadTimeoutError:
            raise FetchError(start_url, f"no answer within {self.settings.timeout:g} s") from None
        except (ProtocolError, ProxyError, SSLError) as exc:
            raise _Retryable(f"cannot connect: {_reason(exc)}") from None
        except HTTPError as exc:
            raise FetchError(start_url, str(exc)) from None

    def _read(
        self, start_url: str, url: str, response: urllib3.BaseHTTPResponse, deadline: float,
        sent: CacheValidators | None,
    ) -> Response:
        status = response.status
        if status == 304 and sent is not None:
            # A 304 has no body, but only reading it to its end (at once: its length is 0)
            # hands the connection back to the pool open.
            response.read(decode_content=False)
            return Response(url, b"", None, None, sent, not_modified=True)
        if status in RETRY_STATUSES:
            raise _Retryable(
                _status_line(status), status=status, retry_after=_retry_after(response.headers.get("Retry-After")),
            )
        if not 200 <= status < 300:
            raise FetchError(start_url, _status_line(status))
        body = self._body(start_url, response, deadline)
        media_type, charset = _content_type(response.headers.get("Content-Type"))
        if charset and not _decodes(body, charset):
            # The header is wrong; the document's own declaration or detection decides.
            charset = None
        validators = CacheValidators(
            etag=_header_text(response.headers.get("ETag")),
            last_modified=_header_text(response.headers.get("Last-Modified")),
        )
        return Response(url, body, media_type, charset, validators)

    def _body(self, start_url: str, response: urllib3.BaseHTTPResponse, deadline: float) -> bytes:
        cap = self.settings.max_bytes
        too_large = FetchError(start_url, f"larger than {cap} bytes, not read")
        inflate = _inflater(start_url, response.headers.get("Content-Encoding"))
        if inflate is None and _content_length(response) > cap:
            raise too_large
        body = bytearray()
        try:
            # read1 returns whatever one read of the socket brings, so the deadline is
            # checked however slowly the bytes come.
            while chunk := response.read1(CHUNK, decode_content=False):
                if self.clock() > deadline:
                    raise FetchError(start_url, f"not received in full within {self.settings.timeout:g} s")
                body += inflate(chunk, cap + 1 - len(body)) if inflate else chunk
                if len(body) > cap:
                    raise too_large
        except ReadTimeoutError:
            raise FetchError(start_url, f"not received in full within {self.settings.timeout:g} s") from None
        except (HTTPError, OSError) as exc:
            raise _Retryable(f"connection broken: {_reason(exc)}") from None
        return bytes(body)


def certificates() -> dict[str, Any]:
    """What a configured URL's TLS certificate is checked against: the bundle (a file or a
    folder) the environment names, as for requests and curl, else certifi's."""
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or certifi.where()
    return {"ca_cert_dir": bundle} if os.path.isdir(bundle) else {"ca_certs": bundle}


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for `url`'s scheme (http_proxy, https_proxy, or
    all_proxy), unless no_proxy lists its host."""
    parts = urlsplit(url)
    if urllib.request.proxy_bypass(parts.netloc):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme.lower()) or proxies.get("all")


def _netrc_login(url: str) -> dict[str, str]:
    """The Authorization header for the login that the netrc file (the one NETRC names,
    else ~/.netrc) holds for `url`'s host, as requests and curl send it; {} for none."""
    named = os.environ.get("NETRC")
    paths = [os.path.expanduser(path) for path in ([named] if named else ["~/.netrc", "~/_netrc"])]
    path = next((path for path in paths if os.path.exists(path)), None)
    if path is None:
        return {}
    try:
        entry = netrc.netrc(path).authenticators(urlsplit(url).hostname or "")
    except (netrc.NetrcParseError, OSError):
        return {}
    if entry is None:
        return {}
    login, account, password = entry
    return urllib3.make_headers(basic_auth=f"{login or account}:{password}")


def normalize_url(url: str) -> str:
    """The one spelling of a URL that every source reaching the same page agrees on:
    scheme and host in lower case, no default port, no fragment, no utm_* tracking
    parameters (feeds add them to their links)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    netloc = parts.netloc.lower()
    default_port = {"http": ":80", "https": ":443"}.get(scheme)
    if default_port and netloc.endswith(default_port):
        netloc = netloc[: -len(default_port)]
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(key.startswith("utm_") for key, _ in pairs):
        query = urlencode([(key, value) for key, value in pairs if not key.startswith("utm_")])
    return urlunsplit((scheme, netloc, parts.path or "/", query, ""))


def host_of(url: str) -> str:
    """The host (and port) a URL's requests go to, as the per-host limit counts them."""
    return urlsplit(url).netloc.lower()


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def _check_scheme(start_url: str, url: str) -> None:
    if not is_http_url(url):
        where = "" if url == start_url else f"redirected to {url!r}, "
        raise FetchError(start_url, f"{where}not an http(s) URL")


def _header_text(value: str | None) -> str | None:
    """`value` if it is valid header text, to be sent back; a control character (a NUL,
    which PostgreSQL cannot even store) makes it None, and the next request unconditional."""
    return None if value is None or NOT_HEADER_TEXT.search(value) else value


def _conditional_headers(validators: CacheValidators | None) -> dict[str, str]:
    headers = {}
    if validators and validators.etag:
        headers["If-None-Match"] = validators.etag
    if validators and validators.last_modified:
        headers["If-Modified-Since"] = validators.last_modified
    return headers


def _status_line(status: int) -> str:
    # The standard phrase, not the server's: that text would reach logs and terminals.
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"status {status}"


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait, from a Retry-After header in seconds or as an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _content_length(response: urllib3.BaseHTTPResponse) -> int:
    try:
        return int(response.headers.get("Content-Length", "0"))
    except ValueError:
        return 0


def _inflater(url: str, encoding: str | None) -> Callable[[bytes, int], bytes] | None:
    """A function giving at most `limit` decompressed bytes of each chunk, or None for a
    body sent as is."""
    encoding = (encoding or "identity").strip().lower()
    if encoding == "identity":
        return None
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise FetchError(url, f"sent in an unsupported Content-Encoding ({encoding})")
    # 32 + MAX_WBITS: accept a gzip or a zlib header, whichever comes.
    inflater = zlib.decompressobj(32 + zlib.MAX_WBITS)

    def inflate(chunk: bytes, limit: int) -> bytes:
        # Input left over when `limit` is reached is dropped: the caller stops there,
        # the body being over the cap.
        try:
            return inflater.decompress(chunk, limit)
        except zlib.error as exc:
            raise FetchError(url, f"cannot decompress the {encoding} body: {exc}") from None

    return inflate


def _content_type(header: str | None) -> tuple[str | None, str | None]:
    """(media type, charset) from a Content-Type header."""
    if not header:
        return None, None
    media_type, *params = header.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media_type.strip().lower() or None, charset


def _decodes(body: bytes, charset: str) -> bool:
    try:
        body.decode(charset)
    except (LookupError, UnicodeDecodeError):
        return False
    return True


def _reason(exc: BaseException) -> str:
    """The root of a connection failure in a few words ("Connection refused"), rather than
    the layers of wrappers requests and urllib3 put around it."""
    current: BaseException | None = exc
    for _depth in range(10):
        if current is None:
            break
        if isinstance(current, OSError) and current.strerror:
            return current.strerror
        nested = getattr(current, "reason", None)
        if not isinstance(nested, BaseException):
            nested = next((a for a in current.args if isinstance(a, BaseException)), None)
        current = nested or current.__cause__ or current.__context__
    return str(exc)


PAGE_ACCEPT = "text/html, application/xhtml+xml;q=0.9, text/*;q=0.8, */*;q=0.1"
TEXT_MEDIA_TYPES = ("text/", "application/xhtml+xml", "application/xml")


class SourceFetcher:
    """The fetcher as one source uses it: its requests carry the validators of this
    source's last full read of each URL, and the validators of new reads are kept."""

    def __init__(
        self, fetcher: Fetcher, known: Mapping[str, CacheValidators], *,
        source_url: str | None = None, allow_private: bool = False,
    ):
        self.fetcher = fetcher
        self.known = known
        self.learned: dict[str, CacheValidators] = {}
        # Made as the source's collection starts: its time budget runs from now.
        self.ends = fetcher.clock() + fetcher.settings.source_budget
        # The configured URL: its origin is trusted, any other must be public (see Fetcher.get).
        self.source_url = source_url
        self.allow_private = allow_private

    @property
    def per_host(self) -> int:
        return self.fetcher.settings.per_host

    def get(self, url: str, *, accept: str) -> Response:
        response = self.fetcher.get(
            url, self.known.get(url), accept=accept, source_url=self.source_url, allow_private=self.allow_private,
            source_ends=self.ends,
        )
        if not response.not_modified:
            self.learned[url] = response.validators
        return response

    def get_page(self, url: str) -> Response:
        response = self.get(url, accept=PAGE_ACCEPT)
        if response.media_type and not response.media_type.startswith(TEXT_MEDIA_TYPES):
            raise FetchError(url, f"not a text page ({response.media_type})")
        return response
