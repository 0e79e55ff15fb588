"""fetch_and_index: parallel fetches, serial indexing, and the TTL cache in the project DB."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from ctxmode.fetch.service import fetch_and_index

from .conftest import LocalServer, RecordingKnowledgeBase, respond

PAGE = "<html><body><main><h1>Title</h1><p>Text.</p><h2>More</h2><p>x</p></main></body></html>"


def cache_hits(kb: RecordingKnowledgeBase, label: str) -> int:
    return kb.conn.execute("SELECT hits FROM fetch_cache WHERE label = ?", (label,)).fetchone()[0]


def test_a_new_url_is_fetched_indexed_and_previewed(server, kb):
    server.routes["/p"] = respond(PAGE, "text/html")
    [outcome] = fetch_and_index(kb, [(server.url("/p"), None)])
    assert outcome.status == "new" and outcome.error is None
    assert outcome.label == server.url("/p") and outcome.title == "Title"
    assert outcome.chunk_count == kb.get_source(outcome.label).chunk_count == 2
    assert outcome.preview == "# Title\n\nText.\n\n## More\n\nx\n"
    assert kb.stored(outcome.label) == ("Text.\nx", "markdown", server.url("/p"))
    assert outcome.byte_count == len(PAGE)


def test_the_given_source_is_the_label(server, kb):
    server.routes["/data"] = respond('{"k": 1}', "application/json")
    [outcome] = fetch_and_index(kb, [(server.url("/data"), "api docs")])
    assert outcome.label == "api docs" and outcome.kind == "json"
    assert kb.stored("api docs")[1] == "json"


def test_a_fresh_url_is_served_from_cache_without_fetching(server, kb):
    server.routes["/p"] = respond(PAGE, "text/html")
    request = [(server.url("/p"), "docs")]
    fetch_and_index(kb, request)
    [again] = fetch_and_index(kb, request)
    assert again.status == "cache" and again.chunk_count == 2 and again.age_s is not None
    assert again.preview == "" and again.title == "Title"
    assert server.hits["/p"] == 1
    assert cache_hits(kb, "docs") == 1


@pytest.mark.parametrize("options", [{"force": True}, {"ttl_ms": 0}])
def test_force_and_ttl_zero_refetch(server, kb, options):
    server.routes["/p"] = respond(PAGE, "text/html")
    request = [(server.url("/p"), "docs")]
    fetch_and_index(kb, request)
    [again] = fetch_and_index(kb, request, **options)
    assert again.status == "new" and server.hits["/p"] == 2


def test_an_expired_entry_is_refetched(server, kb):
    server.routes["/p"] = respond(PAGE, "text/html")
    request = [(server.url("/p"), "docs")]
    fetch_and_index(kb, request)
    later = lambda: time.time() + 11  # noqa: E731
    [fresh] = fetch_and_index(kb, request, ttl_ms=60_000, clock=later)
    [stale] = fetch_and_index(kb, request, ttl_ms=10_000, clock=later)
    assert (fresh.status, stale.status) == ("cache", "new")
    assert 11 <= fresh.age_s < 60


def test_a_label_from_another_url_or_reindexed_is_not_a_hit(server, kb):
    server.routes["/a"] = respond("alpha")
    server.routes["/b"] = respond("beta")
    fetch_and_index(kb, [(server.url("/a"), "shared")])
    [other] = fetch_and_index(kb, [(server.url("/b"), "shared")])
    assert other.status == "new" and kb.stored("shared")[0] == "beta"
    later = lambda: time.time() + 5  # noqa: E731
    kb.index_text("shared", "someone else's text", "plain")
    [again] = fetch_and_index(kb, [(server.url("/b"), "shared")], clock=later)
    assert again.status == "cache"  # re-indexed within the slack: still ours
    kb.conn.execute("UPDATE kb_sources SET indexed_at = indexed_at + 5 WHERE label = 'shared'")
    [refetched] = fetch_and_index(kb, [(server.url("/b"), "shared")])
    assert refetched.status == "new" and kb.stored("shared")[0] == "beta"


def test_a_source_purged_from_the_knowledge_base_is_refetched(server, kb):
    server.routes["/p"] = respond("text")
    fetch_and_index(kb, [(server.url("/p"), "docs")])
    kb.delete_source("docs")
    [again] = fetch_and_index(kb, [(server.url("/p"), "docs")])
    assert again.status == "new"


def test_the_ssrf_check_runs_on_cache_hits(server, kb):
    server.routes["/p"] = respond("text")
    fetch_and_index(kb, [(server.url("/p"), "docs")])
    [refused] = fetch_and_index(kb, [(server.url("/p"), "docs")], strict=True)
    assert refused.status == "error" and refused.error.startswith("blocked: 127.0.0.1")


def test_errors_are_per_url_outcomes_in_request_order(server, kb):
    server.routes["/ok"] = respond("fine")
    requests = [
        (server.url("/missing"), None),
        ("http://169.254.169.254/", None),
        (server.url("/ok"), None),
        ("file:///etc/passwd", "local"),
    ]
    outcomes = fetch_and_index(kb, requests, concurrency=4)
    assert [o.status for o in outcomes] == ["error", "error", "new", "error"]
    assert outcomes[0].error == f"HTTP 404 Not Found for {server.url('/missing')}"
    assert outcomes[1].error.startswith("blocked: 169.254.169.254")
    assert [o.url for o in outcomes] == [url for url, _ in requests]
    assert [s.label for s in kb.sources()] == [server.url("/ok")]


def test_several_urls_are_fetched_in_parallel_and_indexed_serially(server, kb):
    """Every handler waits until all four requests are in flight: only parallel fetches pass."""
    arrived = threading.Barrier(4, timeout=10)

    def rendezvous(request: http.server.BaseHTTPRequestHandler) -> None:
        arrived.wait()
        respond(f"page {request.path}")(request)

    requests = []
    for n in range(4):
        server.routes[f"/{n}"] = rendezvous
        requests.append((server.url(f"/{n}"), None))
    outcomes = fetch_and_index(kb, requests, concurrency=4)
    assert [o.status for o in outcomes] == ["new"] * 4
    assert [kb.stored(o.label)[0] for o in outcomes] == [f"page /{n}" for n in range(4)]
    assert kb.indexing_threads == {threading.get_ident()}


class FailingKnowledgeBase(RecordingKnowledgeBase):
    def index_text(self, label: str, text: str, fmt: str = "markdown", **kwargs):
        raise RuntimeError("database is locked\nwith details")


def test_an_indexing_failure_is_an_outcome_not_a_crash(server, tmp_path):
    server.routes["/p"] = respond("text")
    with FailingKnowledgeBase.open(str(tmp_path)) as kb:
        [outcome] = fetch_and_index(kb, [(server.url("/p"), "docs")])
    assert outcome.status == "error"
    assert outcome.error == "could not index docs: RuntimeError: database is locked with details"


def test_previews_are_capped(server, kb):
    server.routes["/long"] = respond("word " * 5000)
    [outcome] = fetch_and_index(kb, [(server.url("/long"), None)])
    assert len(outcome.preview) == 3072


def test_the_public_names_load_lazily():
    import ctxmode.fetch as fetch

    assert fetch.classify_address("169.254.169.254") == "blocked"
    assert fetch.fetch_and_index is fetch_and_index
    with pytest.raises(AttributeError):
        _ = fetch.no_such_name


def test_the_bench_page_converts(server: LocalServer):
    from ctxmode.fetch import fetch_document

    server.routes["/p"] = respond(PAGE, "text/html")
    assert fetch_document(server.url("/p")).title == "Title"


def test_the_cache_key_is_the_url_as_given(server, kb):
    server.routes["/"] = respond("root")
    bare = f"http://127.0.0.1:{server.port}"
    [first] = fetch_and_index(kb, [(bare, None)])
    [again] = fetch_and_index(kb, [(bare, None)])
    assert (first.label, first.status, again.status) == (bare, "new", "cache")


def test_one_deadline_bounds_the_whole_call_and_silent_urls_fail_alone(server, kb):
    released = threading.Event()

    def silent(request: http.server.BaseHTTPRequestHandler) -> None:
        released.wait(30)  # a server that accepts and never answers

    server.routes["/ok"] = respond("fine")
    for n in range(3):
        server.routes[f"/silent{n}"] = silent
    requests = [(server.url(f"/silent{n}"), None) for n in range(3)] + [(server.url("/ok"), None)]
    started = time.monotonic()
    try:
        outcomes = fetch_and_index(kb, requests, concurrency=8, deadline_s=1.5)
    finally:
        released.set()
    assert time.monotonic() - started < 6  # three silent URLs cost one deadline, not three
    assert [o.status for o in outcomes] == ["error", "error", "error", "new"]


def test_a_fetch_that_cannot_start_before_the_deadline_is_not_fetched(server, kb):
    server.routes["/ok"] = respond("fine")
    outcomes = fetch_and_index(kb, [(server.url("/ok"), None)], deadline_s=0)
    assert outcomes[0].status == "error" and "deadline passed" in (outcomes[0].error or "")


def test_at_most_max_urls_are_fetched_per_call(server, kb):
    for n in range(5):
        server.routes[f"/{n}"] = respond(f"page {n}")
    requests = [(server.url(f"/{n}"), None) for n in range(5)]
    outcomes = fetch_and_index(kb, requests, concurrency=8, max_urls=3)
    assert [o.status for o in outcomes] == ["new", "new", "new", "error", "error"]
    assert outcomes[4].error == "not fetched: at most 3 URLs per call"
    assert [o.url for o in outcomes] == [url for url, _ in requests]
