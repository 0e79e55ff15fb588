"""The shims' shared JSON-lines reader (bridge.js), driven by node on real child processes:
the bridge's own child and Pi's MCP client (pi/mcp.js) read through the same code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None and not os.environ.get("CI"), reason="node is not installed"
)


def run_node(directory: Path, script: str) -> object:
    """Run `script` as an ES module beside our shims; what it prints is JSON."""
    source = files("ctxmode.plugins")
    for name, text in (("bridge.js", source / "bridge.js"), ("mcp.js", source / "pi" / "mcp.js")):
        (directory / name).write_text(text.read_text(encoding="utf-8"), encoding="utf-8")
    (directory / "check.mjs").write_text(script, encoding="utf-8")
    done = subprocess.run(
        [NODE or "node", "check.mjs"], cwd=directory, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_lines_split_across_chunks_blank_and_bad_lines(tmp_path: Path):
    script = """
import { JsonLines } from './bridge.js'
const got = [], bad = []
const lines = new JsonLines((m) => got.push(m), (l) => bad.push(l))
for (const chunk of ['{"id":1}\\n\\n  {"i', 'd":2}\\r\\nnot json\\n{"id":', '3'])
  lines.push(chunk)
lines.reset()  // the child died mid-line: its half line is not glued to the next one's
lines.push('{"id":4}\\n')
console.log(JSON.stringify({ got, bad }))
"""
    assert run_node(tmp_path, script) == {
        "got": [{"id": 1}, {"id": 2}, {"id": 4}],
        "bad": ["not json"],
    }


def test_pis_mcp_client_lists_our_tools_from_ctxmode_serve(tmp_path: Path):
    serve = [sys.executable, "-m", "ctxmode", "serve"]
    script = f"""
import {{ McpClient }} from './mcp.js'
const logged = []
const client = new McpClient({json.dumps(serve)}, {{ cwd: process.cwd(), clientName: 'ctxmode-pi',
  log: (line) => logged.push(line) }})
const tools = await client.listTools(60000)
client.close()
console.log(JSON.stringify({{ names: tools.map((tool) => tool.name), logged }}))
"""
    found = run_node(tmp_path, script)
    assert "ctx_execute" in found["names"] and "ctx_search" in found["names"]
    assert found["logged"] == []
