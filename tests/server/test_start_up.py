"""`ctxmode serve` answers initialize and tools/list without loading what only tools need.

Hosts list our tools before their model's first turn only if start-up is quick, so the
sandbox, the knowledge base, SQLite, fetching and the dashboard load on the first call.
The server runs under `-X importtime` with the real MCP client over stdio; its import
log (unbuffered C stderr) is read once tools/list has been answered. Timings are
bench/serve.py's business, not this test's.
"""

from __future__ import annotations

import os
import sys
import tempfile

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from ctxmode.server.handlers import HANDLERS, handler_for
from ctxmode.server.tools import TOOL_NAMES

# Module name prefixes only a tool call may load.
FIRST_CALL_ONLY = (
    "sqlite3",
    "ctxmode.db",
    "ctxmode.schema",
    "ctxmode.store",
    "ctxmode.sandbox",
    "ctxmode.fetch",
    "ctxmode.insight",
    "ctxmode.session",
    "ctxmode.policy",
    "ctxmode.server.exec_tools",
    "ctxmode.server.knowledge_tools",
    "ctxmode.server.admin_tools",
    "html_to_markdown",
    "selectolax",
)


def imported(importtime_log: str) -> set[str]:
    lines = importtime_log.splitlines()
    return {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}


def loaded_too_early(modules: set[str]) -> set[str]:
    return {name for name in modules if name.startswith(FIRST_CALL_ONLY)}


def imports_before_and_after_an_index(project: str) -> tuple[set[str], set[str]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-X", "importtime", "-m", "ctxmode", "serve"],
        env=dict(os.environ),
        cwd=project,
    )

    async def main() -> tuple[set[str], set[str]]:
        with tempfile.TemporaryFile("w+") as errlog:
            transport = stdio_client(params, errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=120) as client:
                assert len((await client.list_tools()).tools) == len(TOOL_NAMES)
                errlog.seek(0)
                listed = imported(errlog.read())
                arguments = {"content": "# Notes\nthe widget", "source": "notes"}
                result = await client.call_tool("ctx_index", arguments)
                assert not result.is_error, result.content
                errlog.seek(0)
                return listed, imported(errlog.read())

    return anyio.run(main)


def test_listing_tools_loads_nothing_a_tool_call_needs_and_the_first_call_does(tmp_path):
    listed, after_index = imports_before_and_after_an_index(str(tmp_path))
    assert "ctxmode.server.app" in listed  # the log is the server's
    assert loaded_too_early(listed) == set()
    assert {"sqlite3", "ctxmode.store.knowledge", "ctxmode.server.knowledge_tools"} <= after_index


def test_every_listed_tool_has_a_handler():
    assert set(HANDLERS) == set(TOOL_NAMES)
    for name in TOOL_NAMES:
        assert callable(handler_for(name)), name
