"""`ctx_insight` over the real MCP client: one dashboard, started once, gone with its server."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.request

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from .browser import DIRECT


async def _insight_twice(project: str) -> list[str]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=dict(os.environ), cwd=project
    )
    replies = []
    async with Client(params, read_timeout_seconds=120) as client:
        for _ in range(2):
            result = await client.call_tool("ctx_insight", {})
            replies.append(result.content[0].text)
    return replies


def _url(reply: str) -> str:
    line = next(line for line in reply.splitlines() if line.startswith("Dashboard"))
    return line.split(": ", 1)[1]


def test_ctx_insight_starts_one_dashboard_and_hands_out_its_url(data_root, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    first, second = anyio.run(_insight_twice, str(project))
    with open(data_root / "insight" / "dashboard.json", encoding="utf-8") as handle:
        running = json.load(handle)
    try:
        assert _url(first) == _url(second)  # the second call found the running one
        assert _url(first).startswith(running["url"] + "&project=")
        assert oct(os.stat(data_root / "insight" / "dashboard.json").st_mode & 0o777) == "0o600"
        with DIRECT.open(urllib.request.Request(_url(first)), timeout=10) as page:
            body = page.read().decode()
        assert page.status == 200 and str(project) in body
        assert _exits(running["pid"])  # it went with the MCP server that started it
    finally:
        if not _exits(running["pid"], 0):
            os.kill(running["pid"], signal.SIGTERM)


def _exits(pid: int, within: float = 20) -> bool:
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
