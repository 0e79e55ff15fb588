"""HTTP GET in-process with httpx2, pinned to addresses the SSRF policy approved.

Each hop resolves its host once (`resolver`, default `socket.getaddrinfo`), checks EVERY
answer, and records them as the only addresses that host may connect to. The connection
pool's network backend then connects to those pinned addresses instead of resolving again,
so DNS rebinding between check and connect is impossible; TLS still verifies (and sends SNI
for) the host name. Redirects are followed by hand, each hop re-checked. A single deadline
bounds DNS-to-last-byte; the body is capped while streaming; env proxies are ignored.
"""

from __future__ import annotations

import functools
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import httpcore2
import httpx2

from ctxmode.fetch import policy
from ctxmode.fetch.errors import FetchError, one_line

Resolver = Callable[..., list[tuple[Any, ...]]]

MAX_BYTES = 50 * 2**20
TIMEOUT_S = 30.0
MAX_REDIRECTS = 5
USER_AGENT = "ctxmode-fetch/0.1"
ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# getaddrinfo errors worth one more try (the resolver or network was busy, not "no such host").
_TRANSIENT_DNS = frozenset(
    code
    for code in (getattr(socket, "EAI_AGAIN", None), getattr(socket, "EAI_FAIL", None))
    if code is not None
)


@dataclass(frozen=True)
class RawResponse:
    """A successful (2xx) response body, after redirects."""

    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes


class _Timeout(Exception):
    """The overall deadline passed outside httpx (e.g. during DNS)."""


def _remaining(deadline: float, timeout: float | None, error: type[Exception]) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("deadline exceeded")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    """A socket stream whose every read/write/handshake waits at most until the deadline.

    httpx timeouts are per operation; a server trickling a byte every few seconds would
    otherwise hold a fetch open far beyond the total budget.
    """

    def __init__(self, inner: httpcore2.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        wait = _remaining(self._deadline, timeout, httpcore2.ReadTimeout)
        return self._inner.read(max_bytes, wait)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        wait = _remaining(self._deadline, timeout, httpcore2.WriteTimeout)
        self._inner.write(buffer, wait)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        wait = _remaining(self._deadline, timeout, httpcore2.ConnectTimeout)
        return _DeadlineStream(
            self._inner.start_tls(ssl_context, server_hostname, wait), self._deadline
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedBackend(httpcore2.SyncBackend):
    """Connects a host only to the addresses pinned for it; never resolves anything itself."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline
        self.pins: dict[str, list[str]] = {}

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        addresses = self.pins.get(host)
        if not addresses:
            raise FetchError(f"blocked: {host} was not checked before connecting")
        failure: Exception | None = None
        for address in addresses:
            wait = _remaining(self.deadline, timeout, httpcore2.ConnectTimeout)
            try:
                stream = super().connect_tcp(address, port, wait, local_address, socket_options)
            except httpcore2.ConnectError as exc:
                failure = exc
                continue
            return _DeadlineStream(stream, self.deadline)
        assert failure is not None
        raise failure


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return httpx2.create_ssl_context(trust_env=False)


class _PinnedTransport(httpx2.HTTPTransport):
    """httpx2's transport with its connection pool built on the pinning backend."""

    def __init__(self, backend: _PinnedBackend, ssl_context: ssl.SSLContext) -> None:
        super().__init__(verify=ssl_context, trust_env=False)
        # HTTPTransport offers no network_backend argument; its pool is the one seam.
        self._pool = httpcore2.ConnectionPool(
            ssl_context=ssl_context, network_backend=backend, max_connections=4
        )


def parse_url(url: str) -> httpx2.URL:
    """Parse `url` (http/https only) or raise a one-line FetchError."""
    try:
        parsed = httpx2.URL(url.strip())
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        _refuse_unparsable_address(url)
        raise FetchError(f"invalid URL {url!r}: {one_line(exc)}") from None
    policy.check_scheme(parsed.scheme)
    return parsed


def _refuse_unparsable_address(url: str) -> None:
    """Name the real problem when httpx rejects an address spelling that is a blocked IP."""
    try:
        host = urllib.parse.urlsplit(url.strip()).hostname or ""
    except ValueError:
        return
    verdict = policy.judge_address(host) if policy.parse_ip_literal(host) else None
    if verdict is not None and verdict.verdict == "blocked":
        policy.check_addresses(host, [verdict.address], strict=False)


def _call_with_timeout(function: Callable[[], Any], timeout_s: float) -> Any:
    """`function()` in a daemon thread; _Timeout if it has not returned within `timeout_s`.

    A daemon thread (not an executor) so a lookup stuck in the C resolver never delays exit.
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as exc:  # handed to the caller's thread
            outcome.append((False, exc))

    worker = threading.Thread(target=run, name="ctxmode-dns", daemon=True)
    worker.start()
    worker.join(max(timeout_s, 0.0))
    if not outcome:
        raise _Timeout("call timed out")
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def resolve(host: str, port: int, resolver: Resolver, timeout_s: float = TIMEOUT_S) -> list[str]:
    """Every address `resolver` (getaddrinfo-compatible) gives for host:port, zone ids kept off.

    getaddrinfo has no timeout of its own, so it runs in a thread we stop waiting for.
    """
    try:
        answers = _call_with_timeout(lambda: resolver(host, port, 0, socket.SOCK_STREAM), timeout_s)
    except socket.gaierror as exc:
        transient = exc.errno in _TRANSIENT_DNS
        hint = "temporary DNS failure, retry once" if transient else "check the host name"
        raise FetchError(
            f"DNS lookup failed for {host}: {one_line(exc.strerror or exc)} ({hint})"
        ) from None
    except (OSError, UnicodeError) as exc:
        raise FetchError(
            f"DNS lookup failed for {host}: {one_line(exc)} (retry once if the network was busy)"
        ) from None
    return [policy.strip_zone(str(answer[4][0])) for answer in answers]


def check_url(
    url: httpx2.URL,
    *,
    strict: bool,
    resolver: Resolver = socket.getaddrinfo,
    timeout_s: float = TIMEOUT_S,
) -> tuple[str, list[str]]:
    """(host as the connection pool sees it, approved addresses) or a PolicyError/FetchError."""
    policy.check_scheme(url.scheme)
    host = url.raw_host.decode("ascii")
    policy.check_hostname(host)
    literal = policy.parse_ip_literal(host)
    port = url.port or (443 if url.scheme == "https" else 80)
    if literal is not None:
        return host, policy.check_addresses(host, [literal], strict=strict)
    try:
        addresses = resolve(host, port, resolver, timeout_s)
    except _Timeout:
        raise FetchError(f"DNS lookup for {host} timed out (retry once)") from None
    return host, policy.check_addresses(host, addresses, strict=strict)


def _redirect_target(response: httpx2.Response, current: httpx2.URL) -> httpx2.URL | None:
    location = response.headers.get("location")
    if response.status_code not in _REDIRECT_STATUSES or not location:
        return None
    try:
        return current.join(location)
    except (httpx2.InvalidURL, ValueError) as exc:
        raise FetchError(
            f"invalid redirect from {current} to {location!r}: {one_line(exc)}"
        ) from None


def format_size(n_bytes: int) -> str:
    """50 MB for whole mebibytes, else the byte count: the cap as users set it."""
    return f"{n_bytes // 2**20} MB" if n_bytes % 2**20 == 0 else f"{n_bytes:,} bytes"


def _read_capped(response: httpx2.Response, max_bytes: int, url: httpx2.URL) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(
            f"body exceeds {format_size(max_bytes)} (Content-Length {int(declared):,}) for {url}"
        )
    chunks: list[bytes] = []
    total = 0
    # iter_bytes yields decoded bytes, so a small gzip bomb is capped by what it expands to.
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise FetchError(f"body exceeds {format_size(max_bytes)} for {url}")
        chunks.append(chunk)
    return b"".join(chunks)


def _raise_for_status(response: httpx2.Response, url: httpx2.URL) -> None:
    if not 200 <= response.status_code < 300:
        reason = response.reason_phrase or "error"
        raise FetchError(f"HTTP {response.status_code} {reason} for {url}")


def fetch_raw(
    url: str,
    *,
    strict: bool | None = None,
    timeout_s: float = TIMEOUT_S,
    max_bytes: int = MAX_BYTES,
    max_redirects: int = MAX_REDIRECTS,
    resolver: Resolver = socket.getaddrinfo,
    ssl_context: ssl.SSLContext | None = None,
) -> RawResponse:
    """GET `url` following at most `max_redirects` re-checked redirects; raise FetchError.

    `ssl_context` replaces the default trust store (e.g. a private CA); certificates are
    always verified against the URL's host name, whatever address it was pinned to.
    """
    strict = policy.strict_from_env() if strict is None else strict
    start = parse_url(url)
    backend = _PinnedBackend(time.monotonic() + timeout_s)
    client = httpx2.Client(
        transport=_PinnedTransport(backend, ssl_context or _ssl_context()),
        trust_env=False,
        follow_redirects=False,
        timeout=timeout_s,
        headers={"user-agent": USER_AGENT, "accept": ACCEPT},
    )
    hops = _Hops(client, backend, strict, resolver)
    try:
        with client:
            raw = hops.follow(start, max_redirects=max_redirects, max_bytes=max_bytes)
            return replace(raw, url=url)  # as asked for: the cache key
    except (httpx2.TimeoutException, httpcore2.TimeoutException, _Timeout):
        raise FetchError(f"timed out after {timeout_s:g} s fetching {url}") from None
    except httpx2.ConnectError as exc:
        host = (hops.current or start).host
        raise FetchError(f"could not connect to {host}: {one_line(exc)}") from None
    except httpx2.HTTPError as exc:
        raise FetchError(f"fetch failed for {url}: {one_line(exc)}") from None


@dataclass
class _Hops:
    """One fetch's walk along redirects: check and pin each hop's host, then request it."""

    client: httpx2.Client
    backend: _PinnedBackend
    strict: bool
    resolver: Resolver
    current: httpx2.URL | None = None

    def pin(self, url: httpx2.URL, previous: httpx2.URL | None) -> None:
        left = _remaining(self.backend.deadline, None, _Timeout)
        try:
            host, addresses = check_url(
                url, strict=self.strict, resolver=self.resolver, timeout_s=left
            )
        except policy.PolicyError as exc:
            if previous is None:
                raise
            raise policy.PolicyError(f"{exc} (redirect from {previous})") from None
        self.backend.pins[host] = addresses

    def follow(self, start: httpx2.URL, *, max_redirects: int, max_bytes: int) -> RawResponse:
        previous: httpx2.URL | None = None
        self.current = start
        for _hop in range(max_redirects + 1):
            self.pin(self.current, previous)
            with self.client.stream("GET", self.current) as response:
                target = _redirect_target(response, self.current)
                if target is None:
                    _raise_for_status(response, self.current)
                    body = _read_capped(response, max_bytes, self.current)
                    content_type = response.headers.get("content-type", "")
                    return RawResponse(
                        str(start), str(self.current), response.status_code, content_type, body
                    )
            previous, self.current = self.current, target
        raise FetchError(f"too many redirects (more than {max_redirects}) from {start}")
