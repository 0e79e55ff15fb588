"""The real Codex CLI, offline, with what `ctxmode setup codex` wrote."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmode.hooks import guidance
from ctxmode.platforms.codex import PLATFORM as codex_host
from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, ToolCall, call, reply
from support.host_checks import (
    named_tools_exist,
    nudge_once,
    offered_our_tools,
    routing_block_once,
    tallied_events,
    tool_named_in,
)
from support.hosts import HostRun, HostWorld, npm_host

# Codex groups an MCP server's tools in a namespace; the model sees (and we name) bare names.
NAMESPACE = "mcp__context_mode"
ANY_OUR_TOOL = r"\bctx_[a-z_]+\b"


def user_config(model: FakeModel, extra: str = "") -> str:
    """A user's own config.toml: the fake provider and the offline opt-outs."""
    return f"""model = "gpt-5"
model_provider = "fake"
check_for_update_on_startup = false
# Optional MCP servers get a short start-up grace; a loaded CI box needs more.
mcp_optional_startup_grace_ms = 20000
{extra}
[model_providers.fake]
name = "fake"
base_url = "{model.url}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"

[analytics]
enabled = false

[features]
plugins = false
apps = false
"""


def codex_home(world: HostWorld) -> Path:
    home = world.home / ".codex"
    home.mkdir(exist_ok=True)
    return home


def host_env(world: HostWorld, codex_on_path: bool) -> dict[str, str]:
    env = world.env(CODEX_HOME=str(codex_home(world)), FAKE_API_KEY="fake-key")
    if codex_on_path:  # our hook probes `codex --version` to know it may rewrite a command
        env["PATH"] = f"{npm_host('codex', 'codex').parent}:{env['PATH']}"
    return env


def codex(world: HostWorld, prompt: str, *, codex_on_path: bool = False) -> HostRun:
    command = [
        npm_host("codex", "codex"), "exec", "-C", world.work, "--json", "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", prompt,
    ]  # fmt: skip
    run = world.run(command, env=host_env(world, codex_on_path))
    assert run.returncode == 0, run.describe()
    return run


def setup(world: HostWorld, *options: str, codex_on_path: bool = False) -> None:
    done = ctx("setup", "codex", *options, cwd=world.work, env=host_env(world, codex_on_path))
    assert done.returncode == 0, done.stderr


def execute_the_named_tool(request: Request) -> Reply:
    """Call ctx_execute by the name our deny reason gave, in the namespace offering it."""
    name = tool_named_in(request.tool_results()[-1], r"\bctx_execute\b")
    namespace = next(ns for ns, members in request.namespaces().items() if name in members)
    code = "echo FACT-$((40 + 2))"
    return Reply(tool_calls=[ToolCall(name, {"language": "shell", "code": code}, namespace)])


def empty_developer_messages(request: Request) -> list[dict]:
    return [
        item for item in request.body.get("input", [])
        if item.get("role") == "developer"
        and not "".join(part.get("text", "") for part in item.get("content", [])).strip()
    ]  # fmt: skip


def test_user_scope_session_denies_curl_runs_ctx_execute_and_uninstalls(world: HostWorld) -> None:
    npm_host("codex", "codex")
    turns = [call("exec_command", cmd="curl -s http://example.com"), execute_the_named_tool]
    with world.fake_model([*turns, reply("done")]) as model:
        config = codex_home(world) / "config.toml"
        original = user_config(model)
        config.write_text(original)
        setup(world)
        codex(world, "Fetch example.com")

    first, after_curl, after_execute = model.main_requests
    assert NAMESPACE in first.namespaces()
    offered_our_tools(first, "{tool}")
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied  # no `codex` on the hook's PATH: a deny, not a rewrite
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)
    named_tools_exist(after_execute.system(), ANY_OUR_TOOL, after_execute)
    assert not empty_developer_messages(after_execute)

    setup(world, "--uninstall")
    assert config.read_text() == original
    assert not (codex_home(world) / "hooks.json").exists()


def test_project_scope_rewrites_curl_when_codex_is_on_path(world: HostWorld) -> None:
    npm_host("codex", "codex")
    trusted = f'\n[projects."{world.work}"]\ntrust_level = "trusted"\n'
    turns = [call("exec_command", cmd="curl -s http://example.com"), execute_the_named_tool]
    with world.fake_model([*turns, reply("done")]) as model:
        config = codex_home(world) / "config.toml"
        config.write_text(user_config(model, trusted))
        setup(world, "--project", str(world.work), codex_on_path=True)
        codex(world, "Fetch example.com", codex_on_path=True)

    first, after_curl, after_execute = model.main_requests
    offered_our_tools(first, "{tool}")
    rewritten = after_curl.tool_results()[-1]
    named_tools_exist(rewritten, ANY_OUR_TOOL, after_curl)
    assert "ctx_execute" in rewritten
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)

    setup(world, "--project", str(world.work), "--uninstall")
    assert not (world.work / ".codex" / "hooks.json").exists()
    assert not (world.work / ".codex" / "config.toml").exists()


def test_auto_compaction_brings_back_the_last_request(world: HostWorld) -> None:
    npm_host("codex", "codex")
    fact = "ZEBRA-17"
    turns = [call("exec_command", cmd="git status"), reply("noted")]  # fails: not a repo
    summary = reply("The user asked for notes.")  # the compaction summary lacks the fact
    with world.fake_model(turns, side_reply=lambda _: summary) as model:
        # Every fake response reports 110 tokens: a limit of 50 compacts after the first.
        limit = "model_auto_compact_token_limit = 50\n"
        (codex_home(world) / "config.toml").write_text(user_config(model, limit))
        setup(world)
        codex(world, f"Remember: the build flag is {fact}. Write notes.")

    [compaction] = [r for r in model.requests if r not in model.main_requests]
    assert "COMPACTION" in compaction.last_message_text()
    after = model.main_requests[-1]
    assert model.requests.index(after) > model.requests.index(compaction)
    guide = after.text().split('<session_guide source=\\"compact\\"')[1]
    assert fact in guide.split("</session_guide>")[0]
    routing_block_once(after)
    named_tools_exist(after.system(), ANY_OUR_TOOL, after)
    # Every hook setup registered ran, and nothing else.
    registered = json.loads((codex_home(world) / "hooks.json").read_text())["hooks"]
    assert tallied_events("codex", world.home) == {codex_host.events[e.lower()] for e in registered}


def test_the_shell_tip_reaches_the_model(world: HostWorld) -> None:
    npm_host("codex", "codex")
    with world.fake_model(
        [call("exec_command", cmd="echo one && echo two"), reply("done")]
    ) as model:
        (codex_home(world) / "config.toml").write_text(user_config(model))
        setup(world, codex_on_path=True)  # the version probe finds a codex that shows it
        codex(world, "Look around", codex_on_path=True)

    after_shell = model.main_requests[1]
    nudge_once(after_shell, guidance.bash_nudge(""), ANY_OUR_TOOL)  # Codex: bare names
