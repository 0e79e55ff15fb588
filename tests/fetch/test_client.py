"""HTTP fetching against real local servers: SSRF at every hop, pinning, caps, timeouts."""

from __future__ import annotations

import gzip
import http.server
import socket
import threading

import pytest

from ctxmode.fetch.client import fetch_raw
from ctxmode.fetch.errors import FetchError

from .conftest import LocalServer, fixed_resolver, redirect, respond


def fetch_error(url: str, **options) -> str:
    with pytest.raises(FetchError) as caught:
        fetch_raw(url, **options)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_loopback_is_fetched_by_default(server: LocalServer):
    server.routes["/"] = respond("hello", "text/plain")
    raw = fetch_raw(server.url("/"), strict=False)
    assert (raw.status, raw.body, raw.content_type) == (200, b"hello", "text/plain")


def test_loopback_is_refused_in_strict_mode(server: LocalServer):
    server.routes["/"] = respond("hello")
    message = fetch_error(server.url("/"), strict=True)
    assert message.startswith("blocked: 127.0.0.1 is a loopback address")
    assert server.hits["/"] == 0


def test_strict_mode_comes_from_the_environment(server: LocalServer, monkeypatch):
    server.routes["/"] = respond("hello")
    monkeypatch.setenv("CTX_FETCH_STRICT", "1")
    assert fetch_error(server.url("/")).startswith("blocked: 127.0.0.1")


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://0xa9fea9fe/",
        "http://0251.0376.0251.0376/",
        "http://169.254.43518/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://good@169.254.169.254/",
        "http://127.0.0.1:80@169.254.169.254/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://0.0.0.0:8080/",
    ],
)
def test_metadata_addresses_are_refused_in_every_form(url: str):
    message = fetch_error(url, strict=False, timeout_s=2)
    assert message.startswith("blocked: ")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/", "gopher://x/"])
def test_other_schemes_are_refused(url: str):
    assert "only http and https" in fetch_error(url)


def test_invalid_urls_get_one_line():
    assert fetch_error("http://[::1/").startswith("invalid URL")


def test_a_redirect_to_cloud_metadata_is_refused_at_the_hop(server: LocalServer):
    server.routes["/go"] = redirect("http://169.254.169.254/latest/meta-data/")
    message = fetch_error(server.url("/go"), strict=False)
    assert message.startswith("blocked: 169.254.169.254 is a link-local/cloud metadata address")
    assert f"redirect from {server.url('/go')}" in message


def test_a_redirect_to_a_name_resolving_to_metadata_is_refused(server: LocalServer):
    server.routes["/go"] = redirect("http://evil.test/")
    resolver = fixed_resolver({"evil.test": ["169.254.169.254"]})
    message = fetch_error(server.url("/go"), strict=False, resolver=resolver)
    assert "169.254.169.254" in message and "evil.test resolves to it" in message


def test_a_redirect_to_another_scheme_is_refused(server: LocalServer):
    server.routes["/go"] = redirect("file:///etc/passwd")
    assert "only http and https" in fetch_error(server.url("/go"))


def test_five_redirects_are_followed_and_six_refused(server: LocalServer):
    for n in range(1, 7):
        server.routes[f"/r{n}"] = redirect(f"/r{n - 1}", status=301 if n % 2 else 307)
    server.routes["/r0"] = respond("arrived")
    raw = fetch_raw(server.url("/r5"))
    assert raw.body == b"arrived"
    assert raw.final_url == server.url("/r0")
    assert "too many redirects" in fetch_error(server.url("/r6"))


def test_a_redirect_loop_is_refused(server: LocalServer):
    server.routes["/loop"] = redirect("/loop")
    assert "too many redirects (more than 5)" in fetch_error(server.url("/loop"))
    assert server.hits["/loop"] == 6


def test_http_errors_name_status_and_url(server: LocalServer):
    assert fetch_error(server.url("/missing")) == f"HTTP 404 Not Found for {server.url('/missing')}"


def test_a_declared_body_over_the_cap_is_refused_unread(server: LocalServer):
    def huge(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", str(51 * 2**20))
        request.end_headers()
        request.wfile.write(b"x" * 1024)
        request.close_connection = True

    server.routes["/huge"] = huge
    assert fetch_error(server.url("/huge")).startswith("body exceeds 50 MB (Content-Length")


def test_an_undeclared_body_is_capped_while_streaming(server: LocalServer):
    def endless(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Connection", "close")
        request.end_headers()
        while not server.release.is_set():
            request.wfile.write(b"y" * 4096)
        request.close_connection = True

    server.routes["/endless"] = endless
    message = fetch_error(server.url("/endless"), max_bytes=64 * 1024)
    assert message == f"body exceeds 65,536 bytes for {server.url('/endless')}"


def test_the_cap_counts_decompressed_bytes(server: LocalServer):
    bomb = gzip.compress(b"z" * 200_000)
    server.routes["/bomb"] = respond(bomb, "text/plain", headers={"Content-Encoding": "gzip"})
    assert len(bomb) < 10_000
    assert fetch_error(server.url("/bomb"), max_bytes=100_000).startswith("body exceeds")


def test_a_server_that_never_answers_times_out(server: LocalServer):
    server.routes["/stall"] = lambda request: server.release.wait()
    assert fetch_error(server.url("/stall"), timeout_s=0.5) == (
        f"timed out after 0.5 s fetching {server.url('/stall')}"
    )


def test_a_trickling_body_is_bounded_by_the_total_timeout(server: LocalServer):
    def trickle(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Connection", "close")
        request.end_headers()
        while not server.release.wait(0.05):  # each byte arrives well within a read timeout
            request.wfile.write(b".")
            request.wfile.flush()
        request.close_connection = True

    server.routes["/trickle"] = trickle
    assert fetch_error(server.url("/trickle"), timeout_s=0.6).startswith("timed out after 0.6 s")


def test_a_closed_port_is_a_connect_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert fetch_error(f"http://127.0.0.1:{port}/").startswith("could not connect to 127.0.0.1")


def test_dns_failures_say_what_to_do():
    resolver = fixed_resolver({})
    message = fetch_error("http://nowhere.test/", resolver=resolver)
    assert message.startswith("DNS lookup failed for nowhere.test") and "check the host" in message

    def busy(*args: object) -> list:
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    assert "retry once" in fetch_error("http://busy.test/", resolver=busy)


def test_the_connection_goes_to_the_checked_address_not_a_second_lookup(server: LocalServer):
    """DNS rebinding: the first answer passes the check; any later lookup would be metadata."""
    server.routes["/"] = respond("pinned")
    answers = iter([["127.0.0.1"]])
    calls: list[str] = []

    def rebinding(host: str, port: int, *rest: int) -> list:
        calls.append(host)
        addresses = next(answers, ["169.254.169.254"])
        return fixed_resolver({host: addresses})(host, port)

    raw = fetch_raw(f"http://rebind.test:{server.port}/", resolver=rebinding)
    assert raw.body == b"pinned"
    assert calls == ["rebind.test"]
    assert server.host_headers[-1] == f"rebind.test:{server.port}"


def test_a_name_with_one_bad_answer_among_good_ones_is_refused(server: LocalServer):
    server.routes["/"] = respond("never")
    resolver = fixed_resolver({"mixed.test": ["127.0.0.1", "169.254.169.254"]})
    message = fetch_error(f"http://mixed.test:{server.port}/", resolver=resolver)
    assert message.startswith("blocked: 169.254.169.254")
    assert server.hits["/"] == 0


def test_proxy_variables_are_ignored(server: LocalServer, monkeypatch):
    server.routes["/"] = respond("direct")
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    assert fetch_raw(server.url("/")).body == b"direct"


def test_a_resolver_that_hangs_is_bounded_by_the_timeout():
    released = threading.Event()

    def hanging(*args: object) -> list:
        released.wait(10)
        return []

    try:
        message = fetch_error("http://slow.test/", resolver=hanging, timeout_s=0.3)
    finally:
        released.set()
    assert message == "DNS lookup for slow.test timed out (retry once)"
