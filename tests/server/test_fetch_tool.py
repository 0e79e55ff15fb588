"""ctx_fetch_and_index over MCP, against HTTP servers on 127.0.0.1 only."""

from __future__ import annotations

import http.server
import threading

import pytest

PAGE = b"""<html><head><title>Widget docs</title><script>var tracking = 1;</script></head>
<body><nav>Home | About</nav><main><h1>Widget configuration</h1>
<p>The frobnication threshold defaults to 42 requests per second.</p>
<pre><code class="language-python">widget.configure(threshold=42)</code></pre></main></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/to-metadata":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture
def web():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_page_is_fetched_converted_indexed_then_served_from_cache(mcp_run, web):
    async def scenario(session):
        first = await session.call("ctx_fetch_and_index", url=f"{web}/docs", source="widget-docs")
        again = await session.call("ctx_fetch_and_index", url=f"{web}/docs", source="widget-docs")
        forced = await session.call(
            "ctx_fetch_and_index", url=f"{web}/docs", source="widget-docs", force="true"
        )
        found = await session.call(
            "ctx_search", queries=["frobnication threshold"], source="widget-docs"
        )
        return first, again, forced, found

    first, again, forced, found = mcp_run(scenario)
    assert not first[1] and "[new] 'widget-docs'" in first[0]
    assert "tracking" not in first[0] and "Home | About" not in first[0]
    assert "[cache]" in again[0]
    assert "[new]" in forced[0]
    assert "42 requests per second" in found[0]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://0xa9fea9fe/",
        "http://[::ffff:169.254.169.254]/",
        "file:///etc/passwd",
    ],
)
def test_metadata_addresses_in_every_spelling_are_refused(mcp_run, url):
    async def scenario(session):
        return await session.call("ctx_fetch_and_index", url=url)

    text, is_error = mcp_run(scenario)
    assert is_error
    assert "Traceback" not in text


def test_loopback_redirect_to_metadata_is_refused_at_the_hop(mcp_run, web):
    async def scenario(session):
        return await session.call("ctx_fetch_and_index", url=f"{web}/to-metadata")

    text, is_error = mcp_run(scenario)
    assert is_error and "169.254.169.254" in text


def test_strict_mode_refuses_loopback(mcp_run, web):
    async def scenario(session):
        return await session.call("ctx_fetch_and_index", url=f"{web}/docs")

    text, is_error = mcp_run(scenario, env={"CTXMODE_FETCH_STRICT": "1"})
    assert is_error and "127.0.0.1" in text


def test_batch_requests_report_each_url(mcp_run, web):
    async def scenario(session):
        return await session.call(
            "ctx_fetch_and_index",
            requests=[{"url": f"{web}/a", "source": "a"}, {"url": "http://169.254.169.254/"}],
            concurrency="2",
        )

    text, is_error = mcp_run(scenario)
    assert not is_error
    assert "1 new" in text and "1 failed" in text
