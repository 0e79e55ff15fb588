"""The dashboard's Starlette app: four read-only pages, a purge that asks first, a health probe.

Every page takes `?project=<key>` (one project) or `?project=all`; the default is the
project the dashboard was started for, else all. Pages read through read-only
connections; only the purge's POST, with its CSRF token, opens a database for writing.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ctxmode import stats
from ctxmode.errors import CtxmodeError
from ctxmode.insight import accounting, charts, hookhealth, hooklog, knowledge, sessions
from ctxmode.insight.gate import TokenGate
from ctxmode.insight.projects import (
    ALL,
    PerFileCache,
    Project,
    Scope,
    discover,
    owner_of,
    scope_for,
)

SESSION_LIST_LIMIT = 500
PAGES = (("/", "Overview"), ("/sessions", "Sessions"), ("/knowledge", "Knowledge base"),
         ("/hooks", "Hooks"))  # fmt: skip


@dataclass
class Dashboard:
    """What every request shares: the secrets, the data root, the cached hook tally."""

    data_root: str
    default_root: str  # the project directory the dashboard was started for ("" = none)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    port: int = 0
    last_request: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        logs = os.path.join(self.data_root, "logs")
        self.hook_log = hooklog.HookLog(logs)
        self.logs_dir = logs
        self.host_checks = hookhealth.HostChecks(self.default_root or os.getcwd())
        self._owners: dict[str, str] = {}  # hook call directory -> project key ("" = none)
        self._owners_for: list[Project] = []
        self.cache = PerFileCache()

    def scope(self, request: Request) -> tuple[Scope, list[Project]]:
        self.last_request = time.monotonic()
        known = discover(self.data_root)
        wanted = request.query_params.get("project") or self._default_key(known)
        return scope_for(wanted, known), known

    def _default_key(self, known: list[Project]) -> str:
        mine = [p for p in known if self.default_root and p.root == self.default_root]
        return mine[0].key if mine else ALL

    def warm(self) -> None:
        """Parse the hook tally and sum every project's tool calls before a page asks."""
        self.hook_log.decided()
        accounting.overview(scope_for(ALL, discover(self.data_root)), [], self.cache)

    def in_scope(self, directory: str, scope: Scope, known: list[Project]) -> bool:
        """Does a hook call made in `directory` belong to `scope`? (All of them do for "all".)"""
        if scope.is_all:
            return True
        if self._owners_for != known:  # a project appeared or went: attribute afresh
            self._owners, self._owners_for = {}, list(known)
        if directory not in self._owners:
            found = owner_of(directory, known)
            self._owners[directory] = found.key if found else ""
        return self._owners[directory] in scope.keys

    def decided(self, scope: Scope, known: list[Project]) -> list[hooklog.HookCall]:
        calls = self.hook_log.decided()
        return [c for c in calls if self.in_scope(c.project_dir, scope, known)]

    def latency_samples(
        self, scope: Scope, known: list[Project]
    ) -> dict[hooklog.LatencyKey, list[float]]:
        samples = self.hook_log.latency_samples()
        return {k: v for k, v in samples.items() if self.in_scope(k[0], scope, known)}


def size(n: float) -> str:
    n = int(n)
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def when(timestamp: float | None) -> str:
    if not timestamp:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def age(timestamp: float) -> str:
    seconds = max(0.0, time.time() - timestamp)
    for unit, span in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= span:
            return f"{seconds / span:.0f} {unit}"
    return f"{seconds:.0f} s"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("ctxmode.insight", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(size=size, when=when, age=age, tokens=stats.estimated_tokens)
    return env


class Pages:
    """The request handlers, bound to one `Dashboard`."""

    def __init__(self, dashboard: Dashboard) -> None:
        self.d = dashboard
        self.env = _environment()

    def render(
        self, name: str, request: Request, scope: Scope, known: list[Project], **values: object
    ) -> HTMLResponse:
        def link(path: str, **query: str) -> str:
            query = {"project": scope.key, **query}
            return f"{path}?{urlencode(query)}"

        template = self.env.get_template(name)
        html = template.render(
            pages=PAGES, path=request.url.path, scope=scope, known=known, link=link,
            token_rule=stats.TOKEN_RULE, host_cap=stats.host_output_cap(), **values,
        )  # fmt: skip
        return HTMLResponse(html)

    async def overview(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        figures = accounting.overview(scope, self.d.decided(scope, known), self.d.cache)
        days = sorted(figures.by_day.items())
        tools = sorted(figures.by_tool.items(), key=lambda kv: kv[1].kept_out, reverse=True)
        hosts = sorted(figures.by_host.items(), key=lambda kv: kv[1].kept_out, reverse=True)
        steered = sorted(figures.steered.items(), key=lambda kv: (-kv[1], kv[0]))
        return self.render(
            "overview.html", request, scope, known, figures=figures, tools=tools, hosts=hosts,
            steered=steered, steered_total=sum(figures.steered.values()),
            day_chart=charts.day_columns([(d, m.kept_out) for d, m in days], shown=size),
            tool_chart=charts.horizontal_bars([(t, m.kept_out) for t, m in tools[:12]], shown=size),
            days=days, request_done=request.query_params.get("done", ""),
        )  # fmt: skip

    async def session_list(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        rows, total = sessions.list_sessions(scope, SESSION_LIST_LIMIT)
        return self.render("sessions.html", request, scope, known, rows=rows, total=total)

    async def session_page(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        key, sid = request.path_params["key"], request.path_params["sid"]
        detail = sessions.session_detail(scope_for(key, known), key, sid)
        if detail is None:
            return PlainTextResponse("no such session", status_code=404)
        decided = [c for c in self.d.hook_log.decided() if c.session_id == sid]
        return self.render(
            "session.html", request, scope, known, detail=detail, decided=decided[-200:]
        )

    async def knowledge_page(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        query = request.query_params.get("q", "").strip()
        found = knowledge.search(scope, query) if query else []
        return self.render(
            "knowledge.html", request, scope, known, projects=knowledge.sources(scope),
            query=query, found=found,
        )  # fmt: skip

    async def hooks_page(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        latencies = hookhealth.latencies(self.d.latency_samples(scope, known))
        return self.render(
            "hooks.html", request, scope, known, latencies=latencies,
            errors=hooklog.error_lines(self.d.logs_dir), checks=self.d.host_checks.get(),
            calls=latencies[0].calls if latencies else 0,
        )  # fmt: skip

    async def purge_confirm(self, request: Request) -> Response:
        scope, known = self.d.scope(request)
        if scope.is_all:
            return PlainTextResponse("choose one project to purge", status_code=400)
        sid = request.query_params.get("session", "")
        return self.render(
            "purge.html",
            request,
            scope,
            known,
            target=scope.projects[0],
            session=sid,
            csrf=self.d.csrf,
        )

    async def purge(self, request: Request) -> Response:
        from ctxmode.insight import purge

        form = parse_qs((await request.body())[:10_000].decode("utf-8", "replace"))
        field_of = {name: values[0] for name, values in form.items()}
        if not purge.allowed(request, field_of, self.d.csrf, self.d.port):
            return PlainTextResponse("purge refused: missing or wrong CSRF token", status_code=403)
        known = discover(self.d.data_root)
        try:
            target = scope_for(field_of.get("project", ""), known).projects[0]
        except LookupError as error:
            return PlainTextResponse(str(error), status_code=404)
        try:
            message = purge.run(target, field_of.get("session", ""))
        except (CtxmodeError, sqlite3.Error) as error:  # locked or damaged: say so
            return PlainTextResponse(f"purge failed: {error}", status_code=503)
        query = urlencode({"project": target.key, "done": message})
        return RedirectResponse(f"/?{query}", status_code=303)

    async def health(self, request: Request) -> Response:
        return PlainTextResponse("ok")

    async def style(self, request: Request) -> Response:
        from importlib.resources import files

        css = files("ctxmode.insight").joinpath("templates/style.css").read_text("utf-8")
        return Response(css, media_type="text/css")


def build_app(dashboard: Dashboard) -> Starlette:
    pages = Pages(dashboard)
    routes = [
        Route("/", pages.overview),
        Route("/sessions", pages.session_list),
        Route("/sessions/{key}/{sid:path}", pages.session_page),
        Route("/knowledge", pages.knowledge_page),
        Route("/hooks", pages.hooks_page),
        Route("/purge", pages.purge_confirm, methods=["GET"]),
        Route("/purge", pages.purge, methods=["POST"]),
        Route("/health", pages.health),
        Route("/style.css", pages.style),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(TokenGate, token=dashboard.token, port_of=lambda: dashboard.port)],
        exception_handlers={LookupError: _not_found},
    )
    return app


async def _not_found(request: Request, error: Exception) -> Response:
    return PlainTextResponse(str(error), status_code=404)
