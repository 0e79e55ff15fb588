"""Fetch benchmark: per-URL latency of a loopback HTML fetch + convert, against baselines.

Run: `.venv/bin/python bench/fetch_latency.py` (optionally `--runs 50`).

Serves a generated ~60 KB documentation page from a thread on 127.0.0.1 and times, each as
the median of `--runs` calls in this same process:
  baseline  a bare `httpx2.get` of the page (same SSL context reuse; no checks, no conversion)
  convert   `to_document` on the same bytes (selectolax pre-pass + html-to-markdown)
  fetch     `fetch_document` (SSRF check, pinned connection, body cap, HTML -> markdown)
  index     `fetch_and_index` into a fresh knowledge base, force-refetching each time
  cache     `fetch_and_index` answered from the cache (SSRF check included)
  refuse    a loopback 302 -> 169.254.169.254 refused at the hop
The reference spawns a Node subprocess per URL (446-500 ms per HTML page on loopback, as
measured for it on this kind of machine).
Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import http.server
import statistics
import tempfile
import threading
import time
from collections.abc import Callable

SECTION = """<h2 id="s{n}">Section {n} <a class="headerlink" href="#s{n}">¶</a></h2>
<p>Paragraph {n} explains the <code>option_{n}</code> setting and links to
<a href="/ref/{n}">the reference</a>. It is long enough to look like prose: the quick
brown fox jumps over the lazy dog while the configuration loader reads every file.</p>
<div class="highlight-python"><pre><span class="k">def</span> handler_{n}(event):
    return process(event, retries={n})</pre></div>
<table><thead><tr><th>key</th><th>default</th></tr></thead>
<tbody><tr><td>timeout_{n}</td><td>{n}s</td></tr><tr><td>retries</td><td>3</td></tr></tbody></table>
"""


def page(sections: int = 60) -> bytes:
    nav = "".join(f'<li><a href="/p{n}">Page {n}</a></li>' for n in range(80))
    body = "".join(SECTION.format(n=n) for n in range(sections))
    return (
        "<!doctype html><html><head><title>Bench page</title><script>var x=1;</script>"
        f"</head><body><nav><ul>{nav}</ul></nav><main><h1>Bench page</h1>{body}</main>"
        "<footer>footer</footer></body></html>"
    ).encode()


def serve(body: bytes) -> tuple[http.server.ThreadingHTTPServer, int]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return httpd, httpd.server_address[1]


def median_ms(action: Callable[[], object], runs: int) -> tuple[float, float]:
    """(p50, p90) in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.9))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    import httpx2

    from ctxmode.fetch import fetch_and_index, fetch_document
    from ctxmode.fetch.convert import to_document
    from ctxmode.fetch.errors import FetchError
    from ctxmode.store.knowledge import KnowledgeBase

    plain = {"trust_env": False, "verify": httpx2.create_ssl_context(trust_env=False)}
    body = page()
    html = "text/html; charset=utf-8"
    httpd, port = serve(body)
    url = f"http://127.0.0.1:{port}/doc"
    fetch_document(url)  # warm-up: lazy imports, SSL context, first connection

    def refuse() -> None:
        try:
            fetch_document(f"http://127.0.0.1:{port}/redirect")
        except FetchError:
            return
        raise AssertionError("redirect to metadata was not refused")

    with tempfile.TemporaryDirectory() as project, KnowledgeBase.open(project) as kb:
        fetch_and_index(kb, [(url, "bench")])
        rows = [
            ("baseline httpx2.get", median_ms(lambda: httpx2.get(url, **plain), args.runs)),
            (
                "convert only (HTML->md)",
                median_ms(lambda: to_document(url, url, 200, html, body), args.runs),
            ),
            ("fetch_document (HTML->md)", median_ms(lambda: fetch_document(url), args.runs)),
            (
                "fetch_and_index (force)",
                median_ms(lambda: fetch_and_index(kb, [(url, "bench")], force=True), args.runs),
            ),
            (
                "fetch_and_index (cache)",
                median_ms(lambda: fetch_and_index(kb, [(url, "bench")]), args.runs),
            ),
            ("302 -> metadata refused", median_ms(refuse, args.runs)),
        ]
    httpd.shutdown()
    httpd.server_close()

    baseline = rows[0][1][0]
    print(f"page: {len(body):,} bytes of HTML, {args.runs} runs each, loopback 127.0.0.1")
    print(f"{'case':<28}{'p50 ms':>9}{'p90 ms':>9}{'x baseline':>12}")
    for name, (p50, p90) in rows:
        print(f"{name:<28}{p50:>9.2f}{p90:>9.2f}{p50 / baseline:>12.1f}")
    print("reference (measured before): HTML 446-500 ms per URL (Node subprocess + Turndown)")


if __name__ == "__main__":
    main()
