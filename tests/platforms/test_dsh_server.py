"""`ctxmode serve` as DSH's MCP client starts it: twice, in the workspace, with a scrubbed env."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import dsh

SCRUBBED = re.compile("KEY|PASSWORD|SECRET|TOKEN", re.IGNORECASE)


def dsh_child_env(environ: dict[str, str]) -> dict[str, str]:
    """What dsh-mcp-client hands its stdio server: no DSH_*, nothing that looks like a secret."""
    return {k: v for k, v in environ.items() if not k.startswith("DSH_") and not SCRUBBED.search(k)}


def test_a_discover_probe_is_refused_and_eof_exits_zero(tmp_path: Path):
    probe = {"jsonrpc": "2.0", "id": 0, "method": "server/discover",
             "params": {"_meta": {"protocolVersion": "2026-07-28"}}}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "ctxmode", "serve"],
        input=json.dumps(probe) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dsh_child_env(dict(os.environ)),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == 0 and reply["error"]["code"] == -32601  # method not found: a clean no


def test_the_server_finds_what_the_adapter_indexed_in_the_same_workspace(tmp_path: Path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    lines = "\n".join(f"build step {n} ok" for n in range(4_000)) + "\nbuild step marker-4242\n"
    body = {"tool": "bash", "input": {"command": "make"}, "cwd": str(workspace), "config": {},
            "tools": ["mcp__context-mode__ctx_execute"],
            "result": {"content": [{"type": "text", "text": lines}], "isError": False}}  # fmt: skip
    event = dsh.parse(body, "post-execute")
    label = rules.handle(event).meta["label"]

    env = dsh_child_env({**os.environ, "DSH_HOME": "/nowhere", "DEEPSEEK_API_KEY": "sk-x"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=env, cwd=str(workspace)
    )

    async def search() -> str:
        async with Client(params, read_timeout_seconds=120) as client:
            found = await client.call_tool(
                "ctx_search", {"queries": ["marker-4242"], "source": label}
            )
            return "\n".join(block.text for block in found.content)

    assert "marker-4242" in anyio.run(search)
