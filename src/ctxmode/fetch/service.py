"""Fetch URLs and index them into the knowledge base, with a TTL cache (ctx_fetch_and_index).

Fetches run in parallel threads (up to 8); indexing is serial on the calling thread, so the
knowledge base and the cache table are only touched from one thread. A cache hit still
passes the SSRF check, so a URL that strict mode now forbids is refused even when cached.
A call is bounded: at most 20 URLs, and one deadline (60 s) that every fetch ends by.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ctxmode.fetch import client, policy
from ctxmode.fetch.client import MAX_BYTES, TIMEOUT_S, Resolver
from ctxmode.fetch.convert import FetchedDocument, to_document
from ctxmode.fetch.errors import FetchError, one_line
from ctxmode.fetch.policy import classify_address
from ctxmode.storage import db

__all__ = [
    "DEFAULT_TTL_MS",
    "FetchCache",
    "FetchError",
    "FetchOutcome",
    "FetchedDocument",
    "classify_address",
    "fetch_and_index",
    "fetch_document",
]

DEFAULT_TTL_MS = 24 * 60 * 60 * 1000
PREVIEW_CHARS = 3072
MAX_CONCURRENCY = 8
MAX_URLS = 20  # per call; the rest are reported as not fetched
DEADLINE_S = 60.0  # for the whole call: no fetch runs past it
# A source re-indexed this long after our fetch holds someone else's text under the label.
_REINDEX_SLACK_S = 1.0


if TYPE_CHECKING:
    from ctxmode.store.knowledge import KnowledgeBase, SourceInfo


@dataclass(frozen=True)
class FetchOutcome:
    """What happened to one requested URL. `preview` is the start of the text (new fetches)."""

    url: str
    label: str
    status: Literal["new", "cache", "error"]
    chunk_count: int = 0
    byte_count: int = 0
    preview: str = ""
    error: str | None = None
    age_s: float | None = None
    title: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class CacheEntry:
    url: str
    fetched_at: float
    byte_count: int
    chunk_count: int
    kind: str
    title: str | None


class FetchCache:
    """The `fetch_cache` table of the project database: which URL each label came from."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def lookup(self, label: str) -> CacheEntry | None:
        row = self.conn.execute(
            "SELECT url, fetched_at, byte_count, chunk_count, kind, title "
            "FROM fetch_cache WHERE label = ?",
            (label,),
        ).fetchone()
        return None if row is None else CacheEntry(*row)

    def record(
        self, label: str, url: str, doc: FetchedDocument, chunk_count: int, at: float
    ) -> None:
        with db.write_transaction(self.conn):
            self.conn.execute(
                "INSERT INTO fetch_cache(label, url, final_url, fetched_at, status, content_type,"
                " kind, byte_count, chunk_count, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(label) DO UPDATE SET url = excluded.url,"
                " final_url = excluded.final_url, fetched_at = excluded.fetched_at,"
                " status = excluded.status, content_type = excluded.content_type,"
                " kind = excluded.kind, byte_count = excluded.byte_count,"
                " chunk_count = excluded.chunk_count, title = excluded.title",
                (
                    label,
                    url,
                    doc.final_url,
                    at,
                    doc.status,
                    doc.content_type,
                    doc.kind,
                    doc.byte_count,
                    chunk_count,
                    doc.title,
                ),
            )

    def count_hit(self, label: str) -> None:
        with db.write_transaction(self.conn):
            self.conn.execute("UPDATE fetch_cache SET hits = hits + 1 WHERE label = ?", (label,))


def fetch_document(
    url: str,
    *,
    strict: bool | None = None,
    timeout_s: float = TIMEOUT_S,
    max_bytes: int = MAX_BYTES,
    resolver: Resolver = socket.getaddrinfo,
) -> FetchedDocument:
    """Fetch `url` (SSRF-checked, redirects re-checked) and convert it; raise FetchError."""
    try:
        raw = client.fetch_raw(
            url, strict=strict, timeout_s=timeout_s, max_bytes=max_bytes, resolver=resolver
        )
        return to_document(raw.url, raw.final_url, raw.status, raw.content_type, raw.body)
    except FetchError:
        raise
    except Exception as exc:  # never let a library's traceback reach the model
        raise FetchError(f"fetch failed for {url}: {type(exc).__name__}: {one_line(exc)}") from None


def cached_age(
    url: str, entry: CacheEntry | None, source: SourceInfo | None, *, now: float, ttl_s: float
) -> float | None:
    """Seconds since `url` was fetched under this label, if that copy is still fresh; else None.

    The label's chunks must still be in the knowledge base, must come from this same URL, and
    must not have been re-indexed by something else since the fetch.
    """
    if source is None or entry is None or entry.url != url or ttl_s <= 0:
        return None
    if source.indexed_at > entry.fetched_at + _REINDEX_SLACK_S:
        return None
    age = max(0.0, now - entry.fetched_at)
    return age if age < ttl_s else None


def _fetch_quietly(
    url: str, options: dict[str, Any], deadline: float, deadline_s: float
) -> FetchedDocument | FetchError:
    """Fetch within what is left of the call's `deadline` (a monotonic time)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return FetchError(f"not fetched: the call's {deadline_s:g} s deadline passed first")
    try:
        return fetch_document(url, **{**options, "timeout_s": min(options["timeout_s"], left)})
    except FetchError as exc:
        return exc


def fetch_and_index(
    kb: KnowledgeBase,
    requests: Sequence[tuple[str, str | None]],
    *,
    ttl_ms: int | None = None,
    force: bool = False,
    concurrency: int = 1,
    strict: bool | None = None,
    timeout_s: float = TIMEOUT_S,
    max_bytes: int = MAX_BYTES,
    resolver: Resolver = socket.getaddrinfo,
    clock: Callable[[], float] = time.time,
    deadline_s: float = DEADLINE_S,
    max_urls: int = MAX_URLS,
) -> list[FetchOutcome]:
    """Fetch each (url, source label or None) and index it; one outcome per request, in order.

    `ttl_ms` (default 24 h; 0 = always refetch) and `force` control the cache, the project
    database's `fetch_cache` table beside `kb.conn`. Never raises for a bad URL: its outcome
    carries the error. Requests past `max_urls`, and fetches the `deadline_s` of the whole
    call leaves no time for, are error outcomes too.
    """
    strict = policy.strict_from_env() if strict is None else strict
    cache = FetchCache(kb.conn)
    ttl_s = (DEFAULT_TTL_MS if ttl_ms is None else max(0, ttl_ms)) / 1000
    deadline = time.monotonic() + deadline_s
    jobs = [(url.strip(), (label or "").strip() or url.strip()) for url, label in requests]
    outcomes: list[FetchOutcome | None] = [None] * len(jobs)
    for index, (url, label) in enumerate(jobs[max_urls:], max_urls):
        error = f"not fetched: at most {max_urls} URLs per call"
        outcomes[index] = FetchOutcome(url, label, "error", error=error)
    jobs = jobs[:max_urls]
    misses: list[int] = []
    for index, (url, label) in enumerate(jobs):
        hit = None if force else _cache_hit(kb, cache, url, label, clock(), ttl_s)
        if hit is None:
            misses.append(index)
            continue
        try:  # the SSRF check runs on cache hits too (strict mode may have been turned on)
            client.check_url(client.parse_url(url), strict=strict, resolver=resolver)
        except FetchError as exc:
            outcomes[index] = FetchOutcome(url, label, "error", error=str(exc))
            continue
        cache.count_hit(label)
        outcomes[index] = hit
    options = {
        "strict": strict,
        "timeout_s": timeout_s,
        "max_bytes": max_bytes,
        "resolver": resolver,
    }
    workers = max(1, min(int(concurrency), MAX_CONCURRENCY, len(misses)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ctxmode-fetch") as pool:
        pending: dict[int, Future[FetchedDocument | FetchError]] = {
            index: pool.submit(_fetch_quietly, jobs[index][0], options, deadline, deadline_s)
            for index in misses
        }
        for index in misses:  # index serially, in request order, as each fetch completes
            url, label = jobs[index]
            outcomes[index] = _store(kb, cache, url, label, pending[index].result(), clock)
    return [outcome for outcome in outcomes if outcome is not None]


def _cache_hit(
    kb: KnowledgeBase, cache: FetchCache, url: str, label: str, now: float, ttl_s: float
) -> FetchOutcome | None:
    entry = cache.lookup(label)
    source = kb.get_source(label)
    age = cached_age(url, entry, source, now=now, ttl_s=ttl_s)
    if age is None or entry is None or source is None:
        return None
    return FetchOutcome(
        url,
        label,
        "cache",
        chunk_count=source.chunk_count,
        byte_count=entry.byte_count,
        age_s=age,
        title=entry.title,
        kind=entry.kind,
    )


def _store(
    kb: KnowledgeBase,
    cache: FetchCache,
    url: str,
    label: str,
    fetched: FetchedDocument | FetchError,
    clock: Callable[[], float],
) -> FetchOutcome:
    if isinstance(fetched, FetchError):
        return FetchOutcome(url, label, "error", error=str(fetched))
    try:
        chunk_count = kb.index_text(label, fetched.text, fetched.kind, url=fetched.url).chunk_count
        cache.record(label, url, fetched, chunk_count, clock())
    except Exception as exc:  # a locked or broken database is an outcome, not a crash
        message = f"could not index {label}: {type(exc).__name__}: {one_line(exc)}"
        return FetchOutcome(url, label, "error", error=message)
    return FetchOutcome(
        url,
        label,
        "new",
        chunk_count=chunk_count,
        byte_count=fetched.byte_count,
        preview=fetched.text[:PREVIEW_CHARS],
        age_s=0.0,
        title=fetched.title,
        kind=fetched.kind,
    )
