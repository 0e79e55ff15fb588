"""The real Gemini CLI binary, offline, with what `ctxmode setup gemini-cli` wrote."""

from __future__ import annotations

import json
import re

from support.cli import ctx
from support.fake_model import FakeModel, call, reply
from support.host_checks import (
    execute_named_tool,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostRun, HostWorld, npm_host

OUR_NAME = "mcp_context-mode_{tool}"  # single underscores: the host's naming, not Claude's
ANY_OUR_TOOL = r"mcp_context-mode_ctx_[a-z_]+\b"  # not the call ids built from them
SETTINGS = {  # what a user's settings hold before setup: offline, API-key auth
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def gemini(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("gemini-cli", "gemini")
    command = [
        binary,
        "-p",
        prompt,
        "-o",
        "stream-json",
        "--yolo",
        "--skip-trust",
        "-m",
        "gemini-2.5-flash",
        "--debug",
    ]  # fmt: skip  (--debug: which hooks ran)
    env = world.env(
        GOOGLE_GEMINI_BASE_URL=model.url, GEMINI_API_KEY="fake-key", GEMINI_CLI_NO_RELAUNCH="true"
    )
    run = world.run(command, env=env)
    assert run.returncode == 0, run.describe()
    return run


def hooks_that_ran(run: HostRun) -> set[str]:
    output = run.stdout + run.stderr
    assert not re.search(r"Hook execution for \w+: .*fail", output), run.describe()
    return set(re.findall(r"Hook execution for (\w+): \d+ hooks? executed successfully", output))


def test_curl_is_redirected_to_a_tool_the_model_can_call(world: HostWorld) -> None:
    npm_host("gemini-cli", "gemini")
    settings = world.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SETTINGS), encoding="utf-8")
    done = ctx("setup", "gemini-cli", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    turns = [
        call("run_shell_command", command="curl -s http://example.com"),
        execute_named_tool(r"mcp_[\w-]+_ctx_execute\b"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        run = gemini(world, model, "Fetch example.com")

    registered = set(json.loads(settings.read_text(encoding="utf-8"))["hooks"])
    assert hooks_that_ran(run) == registered  # every hook setup wrote fired, and only those
    first, after_curl, after_execute = model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    redirected = after_curl.tool_results()[-1]
    assert "was not run" in redirected
    named_tools_exist(redirected, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)
    named_tools_exist(after_execute.text(), ANY_OUR_TOOL, after_execute)

    undone = ctx("setup", "gemini-cli", "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    assert json.loads(settings.read_text(encoding="utf-8")) == SETTINGS


def test_project_scope_setup_reaches_the_model_and_uninstalls(world: HostWorld) -> None:
    npm_host("gemini-cli", "gemini")
    user = world.home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps(SETTINGS), encoding="utf-8")
    # What trusting the folder at the first interactive start leaves behind: the host
    # ignores an untrusted workspace's settings.
    trusted = {str(world.work): "TRUST_FOLDER"}
    (world.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    project = world.work / ".gemini" / "settings.json"
    done = ctx("setup", "gemini-cli", "--project", str(world.work), cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    with world.fake_model([reply("done")]) as model:
        gemini(world, model, "Hello")
    first = model.main_requests[0]
    offered_our_tools(first, OUR_NAME)
    routing_block_once(first)
    named_tools_exist(first.text(), ANY_OUR_TOOL, first)
    # Our server's instructions reach the model naming our tools as this host offers them.
    instructions = first.text().split("keeps raw tool output", 1)[1][:300]
    assert OUR_NAME.format(tool="ctx_execute") in instructions
    undone = ctx("setup", "gemini-cli", "--project", str(world.work), "--uninstall",
                 cwd=world.work, env=world.env())  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert not project.exists()
    assert json.loads(user.read_text(encoding="utf-8")) == SETTINGS


def test_the_subagent_prompt_carries_the_routing_block(world: HostWorld) -> None:
    npm_host("gemini-cli", "gemini")
    settings = world.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SETTINGS), encoding="utf-8")
    done = ctx("setup", "gemini-cli", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    task = "Count the files here."
    turns = [call("invoke_agent", agent_name="generalist", prompt=task), reply("one file")]
    with world.fake_model(turns) as model:
        gemini(world, model, "Look around")

    (subagent,) = [r for r in model.main_requests if task in r.last_message_text()]
    block = routing_block_once(subagent)
    assert named_tools_exist(block, ANY_OUR_TOOL, subagent)
