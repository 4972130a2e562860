"""Which addresses a URL found in fetched content may reach, and urllib3 connection pools
that connect only to addresses they have checked.

The operator's configured URLs are trusted. A URL that comes from a server (a feed entry's
link, a redirect) is fetched without a check only on the configured URL's own origin
(scheme, host, port); anywhere else its host must resolve to public addresses only, so a
feed cannot make us read 169.254.169.254, 10.x, another loopback port or a LAN printer
and publish what they say.

The check is made where the connection is made: the guarded connection resolves the host
once, refuses it unless every address is public, and connects to those very addresses, so
a name whose DNS answer changes between a check and a connection (DNS rebinding) gains
nothing. TLS still names and verifies the host, and the Host header is the URL's own.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util.connection import allowed_gai_family
from urllib3.util.timeout import _DEFAULT_TIMEOUT, _TYPE_TIMEOUT

# host, port -> the IP addresses the host resolves to (a test passes its own).
Resolver = Callable[[str, int], Sequence[str]]
Origin = tuple[str, str, int]

DEFAULT_PORTS = {"http": 80, "https": 443}
# NAT64 (RFC 6052) carries an IPv4 address in the low 32 bits: a gateway would reach it.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class AddressRefused(Exception):
    """A host that resolves to an address a URL from fetched content may not reach.

    Deliberately not an OSError: urllib3 and requests let it through unwrapped and do not
    retry it, so the fetcher reports it as it is.
    """


def origin(url: str) -> Origin | None:
    """(scheme, host, port) of `url`, with the scheme's default port filled in; None when
    the URL has no host or a port that is no number."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not parts.hostname or port is None:
        return None
    return scheme, parts.hostname.lower(), port


def address_problem(address: str) -> str | None:
    """What keeps a URL from fetched content from reaching `address` ("a loopback
    address"), or None for a public one."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address carried in an IPv6 one (mapped, 6to4, NAT64) is where it leads.
        embedded = ip.ipv4_mapped or ip.sixtofour or (
            ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None)
        if embedded is not None:
            inner = address_problem(str(embedded))
            return f"{inner} ({embedded})" if inner else None
    for kind, flag in (
        ("a loopback", ip.is_loopback), ("a link-local", ip.is_link_local), ("a multicast", ip.is_multicast),
        ("an unspecified", ip.is_unspecified), ("a private", ip.is_private), ("a reserved", ip.is_reserved),
    ):
        if flag:
            return f"{kind} address"
    return None if ip.is_global else "not a public address"


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the resolver's order, each once."""
    found = socket.getaddrinfo(host, port, allowed_gai_family(), socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


class _GuardedConnection(HTTPConnection):
    """An HTTP connection that resolves its host once, refuses any address that is not
    public, and connects to the addresses it checked."""

    # Set on the subclass made for each adapter (see _pool_classes).
    resolver: Resolver

    def _new_conn(self) -> socket.socket:
        # As urllib3's own _new_conn, with the lookup and the check before the connection.
        try:
            addresses = self.resolver(self._dns_host, self.port)
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        except UnicodeError as exc:  # a label too long for IDNA
            raise NameResolutionError(self.host, self, socket.gaierror(str(exc))) from exc
        if not addresses:
            raise NameResolutionError(self.host, self, socket.gaierror("no address"))
        for address in addresses:
            problem = address_problem(address)
            if problem:
                raise AddressRefused(_refusal(self._dns_host, address, problem))
        try:
            sock = _connect(addresses, self.port, self.timeout, self.source_address, self.socket_options)
        except TimeoutError as exc:
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})",
            ) from exc
        except OSError as exc:
            raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc
        sys.audit("http.client.connect", self, self.host, self.port)
        return sock


class _GuardedHTTPSConnection(_GuardedConnection, HTTPSConnection):
    """The same for https: TLS wraps the checked socket and verifies the URL's host name."""


def _refusal(host: str, address: str, problem: str) -> str:
    named = f"{address} is {problem}" if host == address else f"{host} resolves to {address}, {problem}"
    return (f"not fetched: {named}; links and redirects away from the source's own origin"
            " must lead to public addresses, unless the source sets allow_private = true")


def _connect(
    addresses: Sequence[str], port: int, timeout: _TYPE_TIMEOUT,
    source_address: tuple[str, int] | None, options: Sequence[tuple[int, int, int | bytes]] | None,
) -> socket.socket:
    """A socket connected to the first of `addresses` that answers; no name is looked up."""
    last: OSError | None = None
    for address in addresses:
        ip = ipaddress.ip_address(address)
        family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            for option in options or ():
                sock.setsockopt(*option)
            if timeout is not _DEFAULT_TIMEOUT:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect((address, port))
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    assert last is not None
    raise last


def _pool_classes(resolver: Resolver) -> dict[str, type[HTTPConnectionPool]]:
    """Connection pools for http and https whose connections use `resolver`."""
    plain = type("GuardedHTTPConnection", (_GuardedConnection,), {"resolver": staticmethod(resolver)})
    secure = type("GuardedHTTPSConnection", (_GuardedHTTPSConnection,), {"resolver": staticmethod(resolver)})
    return {
        "http": type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": plain}),
        "https": type("GuardedHTTPSConnectionPool", (HTTPSConnectionPool,), {"ConnectionCls": secure}),
    }


class GuardedPoolManager(urllib3.PoolManager):
    """A pool manager whose every connection goes through the address check.

    It is never a proxy manager: a proxy would look the name up itself, where no check can
    see.
    """

    def __init__(self, resolver: Resolver = resolve, **kwargs: Any):
        super().__init__(**kwargs)
        self.pool_classes_by_scheme = _pool_classes(resolver)
