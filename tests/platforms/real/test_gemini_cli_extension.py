"""The real Gemini CLI binary, offline, with ctxmode installed as this repository's extension.

`gemini extensions install plugins/gemini-cli` with `ctxmode` on PATH as a user tool install
puts it: the extension carries our hooks and MCP server, and every tool we name is one
Gemini CLI offers.
"""

from __future__ import annotations

import json

from platforms.real.test_claude_code_plugin import REPOSITORY, user_tool_env
from platforms.real.test_gemini_cli import ANY_OUR_TOOL, OUR_NAME, SETTINGS, hooks_that_ran
from support.fake_model import call, reply
from support.host_checks import (
    execute_named_tool,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostWorld, npm_host


def test_the_extension_wires_ctxmode_and_names_tools_gemini_offers(world: HostWorld) -> None:
    binary = npm_host("gemini-cli", "gemini")
    settings = world.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(SETTINGS), encoding="utf-8")
    installed = world.run(
        [binary, "extensions", "install", str(REPOSITORY / "plugins" / "gemini-cli"), "--consent"],
        env=user_tool_env(world, GEMINI_CLI_NO_RELAUNCH="true"),
        stdin="y\n",  # "Do you want to trust this folder and continue?" (else: not installed)
    )
    assert installed.returncode == 0, installed.describe()
    assert (world.home / ".gemini" / "extensions" / "ctxmode" / "hooks" / "hooks.json").exists()
    doctor = world.run(["ctxmode", "doctor"], env=user_tool_env(world))
    assert "[OK] gemini-cli: the extension in " in doctor.stdout, doctor.stdout
    turns = [
        call("run_shell_command", command="curl -s http://example.com"),
        execute_named_tool(r"mcp_[\w-]+_ctx_execute\b"),
        reply("done"),
    ]
    command = [binary, "-p", "Fetch example.com", "-o", "stream-json", "--yolo", "--skip-trust",
               "-m", "gemini-2.5-flash", "--debug"]  # fmt: skip
    with world.fake_model(turns) as model:
        env = user_tool_env(
            world, GOOGLE_GEMINI_BASE_URL=model.url, GEMINI_API_KEY="fake-key",
            GEMINI_CLI_NO_RELAUNCH="true",
        )  # fmt: skip
        run = world.run(command, env=env)
    assert run.returncode == 0, run.describe()
    assert "hooks" not in json.loads(settings.read_text(encoding="utf-8"))  # only the extension
    assert {"BeforeTool", "AfterTool", "SessionStart"} <= hooks_that_ran(run)
    first, after_curl, after_execute = model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    redirected = after_curl.tool_results()[-1]
    assert "was not run" in redirected
    named_tools_exist(redirected, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)
    named_tools_exist(after_execute.text(), ANY_OUR_TOOL, after_execute)
