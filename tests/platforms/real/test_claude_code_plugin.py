"""The real Claude Code binary, offline, with ctxmode installed as this repository's plugin.

`claude plugin marketplace add <repository>` then `claude plugin install ctxmode@ctxmode`,
with `ctxmode` on PATH as a user tool install puts it (a link in a bin directory). The
plugin's tools are named `mcp__plugin_ctxmode_context-mode__<tool>`: every denial, notice
and routing block must name those.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from platforms.real.test_claude_code import OFFLINE_ENV, hooks_that_ran, trust_work_dir
from support.fake_model import FakeModel, call, reply
from support.host_checks import (
    NEEDLE,
    big_log,
    execute_named_tool,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostRun, HostWorld, npm_host

REPOSITORY = Path(__file__).resolve().parents[3]
OUR_NAME = "mcp__plugin_ctxmode_context-mode__{tool}"
ANY_OUR_TOOL = r"mcp__[\w-]+__ctx_\w+"


def user_tool_env(world: HostWorld, **extra: str) -> dict[str, str]:
    """PATH with a bin directory holding only a `ctxmode` link, as pipx or uv make one."""
    bin_dir = world.root / "bin"
    bin_dir.mkdir(exist_ok=True)
    link = bin_dir / "ctxmode"
    if not link.exists():
        link.symlink_to(Path(sys.executable).parent / "ctxmode")
    return world.env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **extra)


def install_plugin(world: HostWorld) -> None:
    binary = npm_host("claude-code", "claude")
    for args in (
        ["plugin", "marketplace", "add", str(REPOSITORY)],
        ["plugin", "install", "ctxmode@ctxmode"],
    ):
        done = world.run([binary, *args], env=user_tool_env(world))
        assert done.returncode == 0, done.describe()


def claude(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    command = [
        npm_host("claude-code", "claude"), "-p", prompt, "--output-format", "stream-json",
        "--verbose", "--include-hook-events", "--model", "claude-sonnet-4-5", "--max-turns", "8",
        "--allowedTools", "Bash,mcp__plugin_ctxmode_context-mode",
    ]  # fmt: skip
    env = user_tool_env(world, ANTHROPIC_BASE_URL=model.url, **OFFLINE_ENV)
    run = world.run(command, env=env)
    assert run.returncode == 0, run.describe()
    return run


def test_the_plugin_wires_ctxmode_and_every_tool_it_names_is_the_plugins(world: HostWorld) -> None:
    npm_host("claude-code", "claude")
    trust_work_dir(world)
    install_plugin(world)
    assert (
        not (world.home / ".claude" / "settings.json").exists()
        or "ctxmode hook" not in (world.home / ".claude" / "settings.json").read_text()
    )  # nothing but the plugin registers our hooks
    doctor = world.run(["ctxmode", "doctor"], env=user_tool_env(world))
    assert "[OK] claude-code: the plugin ctxmode@ctxmode (enabled in " in doctor.stdout, (
        doctor.stdout
    )
    assert "no host has ctxmode set up" not in doctor.stdout
    big_log(world.work)
    turns = [
        call("Bash", command="curl -s http://example.com"),
        execute_named_tool(r"mcp__[\w-]+__ctx_execute\b"),
        call("Bash", command="cat big.log"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        run = claude(world, model, "Fetch example.com, then read big.log")

    first, after_curl, after_execute, after_cat = model.main_requests
    offered_our_tools(first, OUR_NAME)
    routing = routing_block_once(first)
    assert OUR_NAME.format(tool="ctx_search") in routing
    named_tools_exist(first.text(), ANY_OUR_TOOL, first)  # block and server instructions
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    assert OUR_NAME.format(tool="ctx_fetch_and_index") in denied
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    notice = after_cat.tool_results()[-1]  # the wrapper's notice in place of 300 KB
    assert len(notice) < 4_000 and OUR_NAME.format(tool="ctx_search") in notice, notice
    named_tools_exist(notice, ANY_OUR_TOOL, after_cat)
    assert NEEDLE not in notice
    assert {"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit"} <= hooks_that_ran(run)
