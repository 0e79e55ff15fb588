"""`ctxmode serve` answers initialize and tools/list before loading the SDK or what tools need.

Hosts wait for the handshake, so the front that answers it (`server/front.py`) listens
with the standard library and our small modules only; the SDK loads behind it, and the
sandbox, the knowledge base, SQLite, fetching and the dashboard load in the background
after that, before the model's first call. The server runs under `-X importtime` with the
real MCP client over stdio; its import log (unbuffered C stderr) is read as it grows.
Timings are bench/serve.py's business, not this test's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from ctxmode.server.handlers import HANDLERS, handler_for
from ctxmode.server.tools import TOOL_NAMES

# Module name prefixes only a tool call may load.
FIRST_CALL_ONLY = (
    "sqlite3",
    "ctxmode.storage.db",
    "ctxmode.storage.schema",
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


# What the front must answer without.
SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "click")


def loaded_too_early(modules: set[str]) -> set[str]:
    return {name for name in modules if name.startswith(FIRST_CALL_ONLY)}


def test_the_front_listens_before_the_sdk_or_anything_a_tool_call_needs_is_imported():
    statement = "import ctxmode.server.main, ctxmode._entry"  # all that runs before it listens
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement], capture_output=True, text=True
    )
    modules = imported(traced.stderr)
    assert "ctxmode.server.front" in modules
    assert loaded_too_early(modules) == set()
    assert {name for name in modules if name.split(".")[0] in SDK} == set()


def imports_after_tools_list(project: str, until: set[str]) -> set[str]:
    """The server's imports once `until` were all imported with no tool called (or 120 s)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-X", "importtime", "-m", "ctxmode", "serve"],
        env=dict(os.environ),
        cwd=project,
    )

    async def main() -> set[str]:
        with tempfile.TemporaryFile("w+") as errlog:
            transport = stdio_client(params, errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=120) as client:
                assert len((await client.list_tools()).tools) == len(TOOL_NAMES)
                with anyio.move_on_after(120):
                    while not until <= imported(_read(errlog)):
                        await anyio.sleep(0.1)
                loaded = imported(_read(errlog))
                arguments = {"content": "# Notes\nthe widget", "source": "notes"}
                result = await client.call_tool("ctx_index", arguments)
                assert not result.is_error, result.content
                return loaded

    return anyio.run(main)


def _read(errlog: Any) -> str:
    errlog.seek(0)
    return errlog.read()


def test_what_tool_calls_need_loads_in_the_background_before_the_first_call(tmp_path):
    handlers = {module for module, _ in HANDLERS.values()}
    loaded = imports_after_tools_list(str(tmp_path), {"sqlite3", *handlers})
    assert {"sqlite3", "ctxmode.store.knowledge", *handlers} <= loaded


def test_every_listed_tool_has_a_handler():
    assert set(HANDLERS) == set(TOOL_NAMES)
    for name in TOOL_NAMES:
        assert callable(handler_for(name)), name
