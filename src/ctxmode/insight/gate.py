"""The dashboard's door: a per-launch secret on every request, our own Host only, strict headers.

The token comes in the URL once (`?t=...`) and is then kept in a cookie for this port,
so the links of the pages need not carry it. A request without it, or addressed to
another host name (a DNS-rebinding page), gets 403. Every answer forbids loading
anything from elsewhere (Content-Security-Policy) and being cached or framed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from http.cookies import SimpleCookie

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # "no-referrer" would blank Origin
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
]


def cookie_name(port: int) -> str:
    return f"ctxmode-insight-{port}"


class TokenGate:
    """ASGI middleware: 403 unless the request carries `token` and names our host and port."""

    def __init__(self, app: ASGIApp, token: str, port_of: Callable[[], int]) -> None:
        self.app = app
        self.token = token
        self.port_of = port_of  # the bound port is known only once the socket is open

    def _given(self, scope: Scope) -> tuple[str, bool]:
        """The token the request carries, and whether it came in the query string."""
        from urllib.parse import parse_qs

        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("t", [""])[0]
        if query:
            return query, True
        headers = dict(scope.get("headers", []))
        jar = SimpleCookie()
        try:
            jar.load(headers.get(b"cookie", b"").decode("latin-1"))
        except Exception:
            return "", False
        morsel = jar.get(cookie_name(self.port_of()))
        return (morsel.value if morsel else ""), False

    def _host_ok(self, scope: Scope) -> bool:
        host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1")
        port = self.port_of()
        return host in (f"127.0.0.1:{port}", f"localhost:{port}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given, from_query = self._given(scope)
        if not (self._host_ok(scope) and given and secrets.compare_digest(given, self.token)):
            await _refuse(send)
            return
        port = self.port_of()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + SECURITY_HEADERS
                if from_query:
                    cookie = f"{cookie_name(port)}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                    headers.append((b"set-cookie", cookie.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Send) -> None:
    body = b"403: this dashboard needs the link `ctxmode insight` printed (with its token).\n"
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
