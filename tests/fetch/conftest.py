"""Local HTTP servers on 127.0.0.1 (threads, `http.server`) and a knowledge-base stand-in."""

from __future__ import annotations

import http.server
import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxmode.storage import schema
from ctxmode.store.knowledge import KnowledgeBase

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


def respond(
    body: bytes | str,
    content_type: str = "text/plain; charset=utf-8",
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Handler:
    data = body.encode() if isinstance(body, str) else body

    def handle(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)

    return handle


def redirect(location: str, status: int = 302) -> Handler:
    def handle(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(status)
        request.send_header("Location", location)
        request.send_header("Content-Length", "0")
        request.end_headers()

    return handle


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 serving `routes` (path -> handler)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.scheme = "https" if tls else "http"
        self.routes: dict[str, Handler] = {}
        self.hits: Counter[str] = Counter()
        self.host_headers: list[str] = []
        self.release = threading.Event()  # set at teardown: stalled handlers give up
        server = self

        class _Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.hits[self.path] += 1
                server.host_headers.append(self.headers.get("Host", ""))
                handler = server.routes.get(self.path)
                if handler is None:
                    respond("nothing here", status=404)(self)
                    return
                try:
                    handler(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (cap, timeout): expected

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def __enter__(self) -> LocalServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as running:
        yield running


def fixed_resolver(table: dict[str, list[str]]) -> Callable[..., list[tuple[object, ...]]]:
    """A getaddrinfo-compatible resolver answering from `table` (name -> addresses)."""

    def resolve(host: str, port: int, family: int = 0, type: int = 0, *rest: int) -> list:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in table[host]
        ]

    return resolve


class RecordingKnowledgeBase(KnowledgeBase):
    """The real knowledge base, noting which threads index."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.indexing_threads: set[int] = set()

    def index_text(self, label: str, text: str, fmt: str = "markdown", **kwargs: Any) -> Any:
        self.indexing_threads.add(threading.get_ident())
        return super().index_text(label, text, fmt, **kwargs)

    def stored(self, label: str) -> tuple[str, str, str | None]:
        """(chunk contents joined, format, url) of a source."""
        row = self.conn.execute(
            "SELECT id, fmt, url FROM kb_sources WHERE label = ?", (label,)
        ).fetchone()
        assert row is not None, f"{label} not indexed"
        contents = self.conn.execute(
            "SELECT content FROM kb_chunks WHERE source_id = ? ORDER BY id", (row["id"],)
        )
        return "\n".join(r[0] for r in contents), row["fmt"], row["url"]


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[RecordingKnowledgeBase]:
    with RecordingKnowledgeBase(
        schema.open_project_db(str(tmp_path)), owns_connection=True
    ) as base:
        yield base
