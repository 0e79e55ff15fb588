"""The real Qwen Code binary, offline, with what `ctxmode setup qwen-code` wrote.

Qwen Code defers MCP tools: their names and descriptions reach the model in a listing
inside the prompt (called through `tool_call`, or directly by name), not in the tool list.
"""

from __future__ import annotations

import json
import re

from ctxmode.platforms import load
from support.cli import ctx
from support.fake_model import FakeModel, Request, call, reply
from support.host_checks import OUR_TOOLS, execute_named_tool, routing_block_once, tallied_events
from support.hosts import HostRun, HostWorld, npm_host

OUR_NAME = "mcp__context-mode__{tool}"
ANY_OUR_TOOL = r"mcp__context-mode__ctx_[a-z_]+\b"
DEFERRED = re.compile(r'- \\"(mcp__[\w-]+__\w+)\\": ')  # a deferred tool's listing line
SETTINGS = {"security": {"auth": {"selectedType": "openai"}}}


def qwen(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("qwen-code", "qwen")
    command = [binary, "-p", prompt, "-o", "stream-json", "--yolo", "--auth-type", "openai",
               "-m", "qwen3-coder"]  # fmt: skip
    env = world.env(OPENAI_BASE_URL=f"{model.url}/v1", OPENAI_API_KEY="fake-key",
                    QWEN_CODE_SUPPRESS_YOLO_WARNING="1")  # fmt: skip
    run = world.run(command, env=env)
    assert run.returncode == 0, run.describe()
    return run


def offered(request: Request) -> set[str]:
    """The tools the model can call: the tool list plus the deferred MCP tools listed."""
    return set(request.tool_names()) | set(DEFERRED.findall(request.text()))


def assert_named_tools_offered(text: str, request: Request) -> None:
    unknown = sorted(set(re.findall(ANY_OUR_TOOL, text)) - offered(request))
    assert not unknown, f"we named tools the host does not offer: {unknown}"


def test_curl_is_denied_naming_a_tool_the_model_can_call(world: HostWorld) -> None:
    npm_host("qwen-code", "qwen")
    settings = world.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SETTINGS), encoding="utf-8")
    done = ctx("setup", "qwen-code", cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    turns = [
        call("run_shell_command", command="curl -s http://example.com"),
        execute_named_tool(r"mcp__[\w-]+__ctx_execute\b"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        qwen(world, model, "Fetch example.com")

    qwen_code = load("qwen-code")
    registered = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    wired = {qwen_code.events[name.lower()] for name in registered}
    # No compaction here, and no call failed.
    assert tallied_events("qwen-code", world.home) == wired - {
        "pre_compact",
        "post_tool_use_failure",
    }
    first, after_curl, after_execute = model.main_requests[:3]
    assert {OUR_NAME.format(tool=tool) for tool in OUR_TOOLS} <= offered(first)
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    assert_named_tools_offered(denied, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)
    assert_named_tools_offered(after_execute.text(), after_execute)

    undone = ctx("setup", "qwen-code", "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    restored = json.loads(settings.read_text(encoding="utf-8"))
    restored.pop("$version", None)  # the host's own settings migration
    assert restored == SETTINGS


def test_project_scope_setup_is_what_the_host_loads_and_uninstalls(world: HostWorld) -> None:
    npm_host("qwen-code", "qwen")
    settings = world.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SETTINGS), encoding="utf-8")
    done = ctx("setup", "qwen-code", "--project", str(world.work), cwd=world.root,
               env=world.env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text(encoding="utf-8")) == SETTINGS  # the user's: untouched
    turns = [
        call("run_shell_command", command="curl -s http://example.com"),
        execute_named_tool(r"mcp__[\w-]+__ctx_execute\b"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        qwen(world, model, "Fetch example.com")

    after_curl, after_execute = model.main_requests[1:3]
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    assert_named_tools_offered(denied, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)

    undone = ctx("setup", "qwen-code", "--project", str(world.work), "--uninstall",
                 cwd=world.root, env=world.env())  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert not (world.work / ".qwen" / "settings.json").exists()
