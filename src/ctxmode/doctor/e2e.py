"""`ctxmode doctor --e2e`: run each set-up host's registered hooks and MCP server as it would.

The commands come from the host's own config files, not from what setup would write
now, so a moved virtualenv, a deleted interpreter or a server that no longer starts
shows up here. Hooks get a host-shaped payload on stdin and a host's bare environment
(HOME, PATH, locale); the server is started with the MCP client and must list our
tools. Both use a throwaway data root, so the check never lands in the user's memory.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxmode import settings
from ctxmode.doctor import FAIL, OK, Check

if TYPE_CHECKING:
    from ctxmode.vocab.platform import Platform

HOOK_TIMEOUT_S = 20.0
SERVER_TIMEOUT_S = 60.0
REQUIRED_TOOLS = ("ctx_execute", "ctx_batch_execute", "ctx_search", "ctx_index")
# What hosts pass on to hooks and MCP servers at the least (Kimi passes only these).
HOST_ENV = ("HOME", "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "CTXMODE_CONFIG_DIR")


@dataclass
class Registered:
    """What one host's config files say ctxmode runs, and how to set it up again."""

    platform: Platform
    fix: str
    hooks: list[str] = field(default_factory=list)
    servers: list[dict] = field(default_factory=list)


def registered(platform: Platform, project_root: str) -> list[Registered]:
    """Per scope (the user's, then this project's) where `platform` has our entries."""
    installer = platform.installer
    user_files = set(installer.config_paths("").values()) if "user" in installer.scopes else set()
    scopes = {"": user_files}
    if "project" in installer.scopes:
        scopes[project_root] = set(installer.config_paths(project_root).values()) - user_files
    found = []
    for scope_root, files in scopes.items():
        fix = f"ctxmode setup {platform.id}"
        if scope_root:
            fix += f" --project {shlex.quote(scope_root)}"
        entry = Registered(platform, fix)
        for path in sorted(files):
            _collect(_read_config(path), entry)
        if entry.hooks or entry.servers:
            found.append(entry)
    return found


def _read_config(path: str) -> object:
    from ctxmode.platforms import _install as inst

    text = inst.read_text(path)
    if text is None:
        return None
    try:
        if path.endswith(".toml"):
            return inst.parse_toml(path, text)
        return inst.parse_json(path, text)
    except inst.InstallError:
        return None  # the plain doctor reports an unreadable config


def _collect(node: object, entry: Registered) -> None:
    """Every hook command line and server entry of ours anywhere in a parsed config."""
    from ctxmode.platforms import _install as inst

    if isinstance(node, dict):
        if inst.is_our_server(node) and not inst.is_our_command(node.get("command")):
            entry.servers.append(node)
            return
        for value in node.values():
            _collect(value, entry)
    elif isinstance(node, list):
        for value in node:
            _collect(value, entry)
    elif isinstance(node, str) and inst.is_our_command(node) and node not in entry.hooks:
        entry.hooks.append(node)


def host_env(data_root: str) -> dict[str, str]:
    env = {name: os.environ[name] for name in HOST_ENV if name in os.environ}
    env[settings.DATA_DIR.name] = data_root
    return env


def hook_payload(host_event: str, project_root: str) -> str:
    """A payload in the shapes hosts send (snake and camel case), for a harmless call."""
    command = "echo ctxmode-doctor"
    return json.dumps({
        "session_id": f"ctxmode-doctor-{os.getpid()}", "sessionId": f"ctxmode-doctor-{os.getpid()}",
        "hook_event_name": host_event, "cwd": project_root, "source": "startup",
        "prompt": "ctxmode doctor", "tool_name": "Bash", "toolName": "bash",
        "tool_input": {"command": command}, "toolArgs": json.dumps({"command": command}),
        "tool_response": {"stdout": "ctxmode-doctor", "stderr": ""}, "stop_hook_active": False,
    })  # fmt: skip


def run_hook(command: str, env: dict[str, str], cwd: str) -> str | None:
    """None when the hook answered as a host needs (exit 0, empty or JSON stdout)."""
    host_event = command.split()[-1]
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command], input=hook_payload(host_event, cwd),
            capture_output=True, text=True, env=env, cwd=cwd, timeout=HOOK_TIMEOUT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"gave no answer in {HOOK_TIMEOUT_S:.0f} s"
    except OSError as error:
        return f"could not start: {error}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [""])[-1]
        return f"exited {done.returncode}: {said}"
    if done.stdout.strip():
        try:
            json.loads(done.stdout)
        except ValueError:
            return f"printed something that is not JSON: {done.stdout[:80]!r}"
    return None


def list_server_tools(server: dict, env: dict[str, str], cwd: str) -> list[str]:
    """Start the registered server with the MCP client; the names of the tools it lists."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    given_env = server.get("env")
    extra = given_env if isinstance(given_env, dict) else {}
    params = StdioServerParameters(
        command=str(server["command"]), args=[str(a) for a in server.get("args") or []],
        env={**env, **{str(k): str(v) for k, v in extra.items()}}, cwd=cwd,
    )  # fmt: skip

    async def session_tools() -> list[str]:
        with tempfile.TemporaryFile("w+") as errlog, anyio.fail_after(SERVER_TIMEOUT_S):
            async with stdio_client(params, errlog=errlog) as (read, write):  # noqa: SIM117
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
        return [tool.name for tool in listed.tools]

    return anyio.run(session_tools)


def check_server(server: dict, env: dict[str, str], cwd: str) -> tuple[str | None, int]:
    """(problem or None, number of tools listed)."""
    try:
        tools = list_server_tools(server, env, cwd)
    except Exception as error:  # any failure to start or answer is the finding
        reason = str(error) or type(error).__name__
        return f"MCP server `{server.get('command')}` did not answer: {reason}", 0
    missing = [name for name in REQUIRED_TOOLS if name not in tools]
    if missing:
        return f"MCP server lists no {', '.join(missing)}", len(tools)
    return None, len(tools)


def _hook_problems(entry: Registered, env: dict[str, str], cwd: str) -> list[str]:
    """One line per distinct failure, naming the hook events that failed that way."""
    failed: dict[str, list[str]] = {}
    for hook in entry.hooks:
        problem = run_hook(hook, env, cwd)
        if problem:
            failed.setdefault(problem, []).append(hook.split()[-1])
    return [f"hooks {', '.join(events)} {problem}" for problem, events in failed.items()]


def check(entry: Registered, project_root: str) -> Check:
    label = f"{entry.platform.id} end to end"
    with tempfile.TemporaryDirectory(prefix="ctxmode-doctor-") as data_root:
        env = host_env(data_root)
        problems = _hook_problems(entry, env, project_root)
        tools = 0
        for server in entry.servers:
            problem, tools = check_server(server, env, project_root)
            if problem:
                problems.append(problem)
    if not entry.servers:
        problems.append("no MCP server registered")
    if problems:
        return Check(FAIL, f"{label}: broken: {'; '.join(problems)} (fix: {entry.fix})")
    return Check(OK, f"{label}: {len(entry.hooks)} hooks answered, MCP server lists {tools} tools")


def e2e_checks(project_root: str) -> list[Check]:
    from ctxmode.platforms import all_platforms

    hosts = sorted(all_platforms(), key=lambda platform: platform.id)
    entries = [entry for host in hosts for entry in registered(host, project_root)]
    if not entries:
        return [
            Check(FAIL, "end to end: no host has ctxmode set up (run `ctxmode setup <platform>`)")
        ]
    return [check(entry, project_root) for entry in entries]
