"""A data root filled the way real use fills it: a real MCP server and real hook processes.

One project, one Claude Code session: a prompt, a curl that gets redirected, a WebFetch
that gets denied, a bulky external MCP output replaced by the hook, a compaction and the
resume that carries its snapshot; the MCP server runs a bulky command, indexes a note and
searches it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from hooks.hookproc import run_hook

SESSION_ID = "scripted-session-1"
PROMPT = "Fix the flaky login test and keep the retry budget at three"
NOTE = """# Retry budget

The login client retries three times with exponential backoff before giving up.

## Flaky login test

The test waits on a mocked clock; a real sleep made it flaky under load.
"""


async def _mcp_calls(project: Path, env: dict[str, str]) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=env, cwd=str(project)
    )
    async with Client(params, read_timeout_seconds=120) as client:
        bulky = "for i in range(4000):\n    print(f'row {i}: status=ok latency={i % 97} ms')"
        await client.call_tool(
            "ctx_execute", {"language": "python", "code": bulky, "intent": "latency above 90"}
        )
        await client.call_tool("ctx_index", {"content": NOTE, "source": "retry-notes"})
        await client.call_tool("ctx_search", {"queries": ["retry budget backoff"]})


def _hook(project: Path, env: dict[str, str], event: str, **payload: object) -> None:
    body = {"session_id": SESSION_ID, "cwd": str(project), "transcript_path": "", **payload}
    done = run_hook("claude-code", event, json.dumps(body), env=env)
    assert done.returncode == 0, done.stderr


def fill(data_root: Path, project: Path) -> None:
    """Run the scripted session against `data_root` for the project directory `project`."""
    project.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CTXMODE_DIR": str(data_root), "CTXMODE_MCP_READY": "1"}
    env.pop("CTXMODE_PROJECT_DIR", None)
    _hook(project, env, "sessionstart", hook_event_name="SessionStart", source="startup")
    _hook(project, env, "userpromptsubmit", hook_event_name="UserPromptSubmit", prompt=PROMPT)
    _hook(project, env, "pretooluse", tool_name="Bash",
          tool_input={"command": "curl -s https://api.example.com/items"})  # fmt: skip
    _hook(project, env, "pretooluse", tool_name="WebFetch",
          tool_input={"url": "https://docs.example.com/retry", "prompt": "retries"})  # fmt: skip
    _hook(project, env, "pretooluse", tool_name="Bash", tool_input={"command": "ls"})
    _hook(project, env, "posttooluse", tool_name="Edit",
          tool_input={"file_path": str(project / "login.py"), "old_string": "a", "new_string": "b"},
          tool_response="ok")  # fmt: skip
    issues = "\n".join(f"issue {i}: login flaky on retry {i % 3}" for i in range(2500))
    _hook(project, env, "posttooluse", tool_name="mcp__github__list_issues",
          tool_input={"repo": "o/r"}, tool_response=issues)  # fmt: skip
    anyio.run(_mcp_calls, project, env)
    _hook(project, env, "precompact", hook_event_name="PreCompact", trigger="auto")
    _hook(project, env, "sessionstart", hook_event_name="SessionStart", source="compact")
