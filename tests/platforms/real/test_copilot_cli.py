"""The real GitHub Copilot CLI binary, offline, with what `ctxmode setup copilot-cli` wrote."""

from __future__ import annotations

import json

from ctxmode.hooks import guidance
from ctxmode.platforms import load
from support.cli import ctx
from support.fake_model import FakeModel, Reply, ToolCall, call, reply
from support.host_checks import (
    execute_named_tool,
    named_tools_exist,
    nudge_once,
    offered_our_tools,
    routing_block_once,
    tallied_events,
)
from support.hosts import HOSTS_DIR, HostRun, HostWorld, npm_host

OUR_NAME = "context-mode-{tool}"  # the host joins server and tool with a hyphen
ANY_OUR_TOOL = r"context-mode-ctx_[a-z_]+\b"


def copilot(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("copilot-cli", "copilot")
    env = world.env(
        COPILOT_OFFLINE="true",
        COPILOT_PROVIDER_BASE_URL=f"{model.url}/v1",
        COPILOT_MODEL="gpt-5",
        # The binary unpacks ~235 MB per HOME otherwise; keep it inside the clone's .hosts/.
        COPILOT_PKG_CACHE_HOME=str(HOSTS_DIR / "npm" / "copilot-cli" / "pkg-cache"),
    )
    run = world.run([binary, "-p", prompt, "--allow-all-tools", "--output-format", "json"],
                    env=env, timeout=240)  # fmt: skip
    assert run.returncode == 0, run.describe()
    return run


def test_curl_is_denied_naming_a_tool_the_model_can_call(world: HostWorld) -> None:
    npm_host("copilot-cli", "copilot")
    copilot_home = world.home / ".copilot"
    done = ctx("setup", "copilot-cli", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    turns = [
        call("bash", command="curl -s http://example.com", description="fetch"),
        execute_named_tool(r"[\w-]+-ctx_execute\b"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        copilot(world, model, "Fetch example.com")

    hooks = json.loads((copilot_home / "hooks" / "context-mode.json").read_text())["hooks"]
    wired = {load("copilot-cli").events[name.lower()] for name in hooks}
    assert tallied_events("copilot-cli", world.home) == wired - {
        "pre_compact"
    }  # no compaction here
    first, after_curl, after_execute = model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied  # a deny the host honours, not an echo that ran
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)  # from the sessionStart hook, which this version shows
    named_tools_exist(after_execute.text(), ANY_OUR_TOOL, after_execute)

    undone = ctx("setup", "copilot-cli", "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    ours = ("hooks/context-mode.json", "mcp-config.json")
    assert not [name for name in ours if (copilot_home / name).exists()]


def test_tips_before_a_tool_reach_the_model(world: HostWorld) -> None:
    npm_host("copilot-cli", "copilot")
    (world.work / "notes.txt").write_text("needle\n")
    done = ctx("setup", "copilot-cli", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    turns = [
        call("view", path=str(world.work / "notes.txt")),
        call("grep", pattern="needle"),
        call("bash", command="echo one && echo two", description="list"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        copilot(world, model, "Look around")

    prefix = OUR_NAME.format(tool="")
    after_view, after_grep, after_bash = model.main_requests[1:4]
    nudge_once(after_view, guidance.read_nudge(prefix), ANY_OUR_TOOL)
    nudge_once(after_grep, guidance.grep_nudge(prefix), ANY_OUR_TOOL)
    nudge_once(after_bash, guidance.bash_nudge(prefix), ANY_OUR_TOOL)


def test_project_scope_hooks_run_in_a_trusted_folder_and_uninstall(world: HostWorld) -> None:
    npm_host("copilot-cli", "copilot")
    copilot_home = world.home / ".copilot"
    copilot_home.mkdir()
    # What trusting the folder at the first interactive start leaves behind: the host
    # runs a repo's .github/hooks only for a trusted folder.
    config = {"trustedFolders": [str(world.work)]}
    (copilot_home / "config.json").write_text(json.dumps(config))
    done = ctx("setup", "copilot-cli", "--project", str(world.work), cwd=world.root,
               env=world.env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (copilot_home / "hooks").exists()  # the project's hooks, not the user's
    turns = [
        call("bash", command="curl -s http://example.com", description="fetch"),
        execute_named_tool(r"[\w-]+-ctx_execute\b"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        copilot(world, model, "Fetch example.com")

    after_curl, after_execute = model.main_requests[1:3]
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)

    undone = ctx("setup", "copilot-cli", "--project", str(world.work), "--uninstall",
                 cwd=world.root, env=world.env())  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert not (world.work / ".github" / "hooks" / "context-mode.json").exists()
    assert "context-mode" in (copilot_home / "mcp-config.json").read_text()  # other repos' too
    undone = ctx("setup", "copilot-cli", "--uninstall", cwd=world.root, env=world.env())
    assert undone.returncode == 0, undone.stderr
    assert not (copilot_home / "mcp-config.json").exists()


def test_the_subagent_prompt_carries_the_routing_block(world: HostWorld) -> None:
    npm_host("copilot-cli", "copilot")
    done = ctx("setup", "copilot-cli", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    task = "Count the files here."
    arguments = {"description": "Count files", "prompt": task,
                 "agent_type": "general-purpose", "name": "counter"}  # fmt: skip
    turns = [Reply(tool_calls=[ToolCall("task", arguments)]), reply("one file")]
    with world.fake_model(turns) as model:
        copilot(world, model, "Look around")

    (subagent,) = [r for r in model.main_requests if task in r.last_message_text()]
    block = routing_block_once(subagent)
    assert named_tools_exist(block, ANY_OUR_TOOL, subagent)
