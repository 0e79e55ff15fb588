"""The real Claude Code binary, offline, with what `ctxmode setup claude-code` wrote."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmode.hooks import guidance
from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, call, reply
from support.host_checks import (
    execute_named_tool,
    named_tools_exist,
    nudge_once,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostRun, HostWorld, npm_host

OUR_NAME = "mcp__context-mode__{tool}"
ANY_OUR_TOOL = r"mcp__context-mode__ctx_\w+"
OFFLINE_ENV = {
    "ANTHROPIC_API_KEY": "fake-key",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "ENABLE_TOOL_SEARCH": "false",  # else MCP tools hide behind a ToolSearch round trip
    # In -p mode MCP servers connect in the background: the first request could go out
    # before our tools are listed (and the hook rightly lets curl run then).
    "MCP_CONNECTION_NONBLOCKING": "false",
    # How long that wait may last: our server's start on a loaded CI box takes seconds.
    "MCP_CONNECT_TIMEOUT_MS": "60000",
}


def claude(world: HostWorld, model: FakeModel, prompt: str, *options: str) -> HostRun:
    binary = npm_host("claude-code", "claude")
    command = [
        binary, "-p", prompt, "--output-format", "stream-json", "--verbose",
        "--include-hook-events", "--model", "claude-sonnet-4-5", "--max-turns", "6",
        "--allowedTools", "Bash,mcp__context-mode", *options,
    ]  # fmt: skip
    run = world.run(command, env=world.env(ANTHROPIC_BASE_URL=model.url, **OFFLINE_ENV))
    assert run.returncode == 0, run.describe()
    return run


def trust_work_dir(world: HostWorld, **project: object) -> Path:
    """What the first interactive start leaves behind: onboarding done, the folder trusted."""
    state = world.home / ".claude.json"
    entry = {"hasTrustDialogAccepted": True, **project}
    state.write_text(
        json.dumps({"hasCompletedOnboarding": True, "projects": {str(world.work): entry}})
    )
    return state


def setup(world: HostWorld, *options: str) -> None:
    done = ctx("setup", "claude-code", *options, cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr


def hooks_that_ran(run: HostRun) -> set[str]:
    started = [e for e in run.events() if e.get("subtype") == "hook_response"]
    failed = [e for e in started if e.get("exit_code") != 0]
    assert not failed, f"hooks failed: {failed}"
    return {e["hook_event"] for e in started}


# A user's own settings and hook (one that never fires here), kept through setup and uninstall.
USERS_OWN_SETTINGS = {
    "includeCoAuthoredBy": False,
    "hooks": {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]
    },
}
CURL_THEN_CTX_EXECUTE = [
    call("Bash", command="curl -s http://example.com"),
    execute_named_tool(r"mcp__[\w-]+__ctx_execute\b"),
    reply("done"),
]


def test_user_scope_session_denies_curl_runs_ctx_execute_and_uninstalls(world: HostWorld) -> None:
    npm_host("claude-code", "claude")
    state = trust_work_dir(world)
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USERS_OWN_SETTINGS))
    original_state = json.loads(state.read_text())
    setup(world)
    with world.fake_model(CURL_THEN_CTX_EXECUTE) as model:
        run = claude(world, model, "Fetch example.com")

    first, after_curl, after_execute = model.main_requests
    offered_our_tools(first, OUR_NAME)
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    routing_block_once(after_execute)
    named_tools_exist(after_execute.text(), ANY_OUR_TOOL, after_execute)
    registered = json.loads(settings.read_text())["hooks"]
    # Every hook this session can fire ran (no call failed: no PostToolUseFailure); nothing else.
    expected = set(registered) - {"PreCompact", "SessionEnd", "PostToolUseFailure"}
    assert hooks_that_ran(run) == expected

    setup(world, "--uninstall")
    assert json.loads(settings.read_text()) == USERS_OWN_SETTINGS
    # The host keeps its own state in .claude.json; what was there before setup is unchanged.
    state_after = json.loads(state.read_text())
    assert not state_after.get("mcpServers")
    assert state_after["projects"][str(world.work)]["hasTrustDialogAccepted"] is True
    assert {k: state_after[k] for k in original_state if k != "projects"} == {
        k: v for k, v in original_state.items() if k != "projects"
    }


FACT = "ZEBRA-17"


def is_summary_request(request: Request) -> bool:
    """Claude Code's compaction asks for a summary (with the tools still listed)."""
    return not request.tool_names() or "<summary>" in request.last_message_text()


def test_project_scope_session_keeps_a_fact_across_compact(world: HostWorld) -> None:
    npm_host("claude-code", "claude")
    trust_work_dir(world)
    setup(world, "--project", str(world.work))
    turns = [call("Bash", command="echo data > notes.txt"), reply("noted")]
    summary = reply("<summary>The user asked for notes.</summary>")  # the fact is not in it
    with world.fake_model(turns, side_reply=lambda _: summary, is_side=is_summary_request) as model:
        claude(world, model, f"Remember: the build flag is {FACT}. Write notes.")
        compacted = claude(world, model, "/compact", "--continue")
        before = len(model.main_requests)
        claude(world, model, "What was the build flag?", "--continue")

    assert "compact_boundary" in {e.get("subtype") for e in compacted.events()}
    after = model.main_requests[before]
    offered_our_tools(after, OUR_NAME)
    assert FACT in after.text()
    assert FACT not in after.text().split("<session_guide")[0]  # ctxmode brought it back
    routing_block_once(after)
    named_tools_exist(after.text(), ANY_OUR_TOOL, after)

    setup(world, "--project", str(world.work), "--uninstall")
    assert not (world.work / ".mcp.json").exists()
    assert not (world.work / ".claude" / "settings.json").exists()


def test_a_users_allow_rule_for_the_original_command_still_lets_the_wrapped_one_run(
    world: HostWorld,
) -> None:
    npm_host("claude-code", "claude")
    trust_work_dir(world)
    setup(world)
    runner = world.work / "bin" / "pytest"  # a stand-in test run: ~60 KB, one failure
    runner.parent.mkdir()
    runner.write_text("#!/bin/sh\nseq -f 'test_%g PASSED' 1 4000\necho 'FAILED test_x - boom'\n")
    runner.chmod(0o755)

    def run_tests(allow: list[str]) -> str:
        settings = world.work / ".claude" / "settings.json"
        settings.parent.mkdir(exist_ok=True)
        settings.write_text(json.dumps({"permissions": {"allow": allow}}))
        turns = [call("Bash", command="./bin/pytest -q", description="run the tests"), reply("ok")]
        with world.fake_model(turns) as model:
            binary = npm_host("claude-code", "claude")
            command = [binary, "-p", "Run the tests", "--output-format", "stream-json",
                       "--verbose", "--model", "claude-sonnet-4-5", "--max-turns", "4"]  # fmt: skip
            run = world.run(command, env=world.env(ANTHROPIC_BASE_URL=model.url, **OFFLINE_ENV))
        assert run.returncode == 0, run.describe()
        return model.main_requests[1].tool_results()[-1]

    # The user allows `./bin/pytest`: the wrapped command runs, its notice reaches the model.
    allowed = run_tests(["Bash(./bin/pytest:*)"])
    assert "FAILED test_x - boom" in allowed and "ctx_search(queries=" in allowed, allowed
    # Without the rule -p mode cannot ask: the call is refused, as it was before the rewrite.
    refused = run_tests([])
    assert "FAILED" not in refused, refused


def test_nudges_and_the_subagent_block_reach_the_model(world: HostWorld) -> None:
    npm_host("claude-code", "claude")
    trust_work_dir(world)
    (world.work / "notes.txt").write_text("needle\n")
    setup(world)
    task = "Count the files here."
    turns = [
        call("Read", file_path=str(world.work / "notes.txt")),
        call("Bash", command="echo one && echo two"),  # this version has no Grep tool
        call("Agent", description="Count files", prompt=task, subagent_type="general-purpose"),
        reply("There is one file."),  # the subagent's answer
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        claude(world, model, "Look around")

    prefix = OUR_NAME.format(tool="")
    after_read, after_bash = model.main_requests[1:3]
    nudge_once(after_read, guidance.read_nudge(prefix), ANY_OUR_TOOL)
    nudge_once(after_bash, guidance.bash_nudge(prefix), ANY_OUR_TOOL)
    (subagent,) = [r for r in model.main_requests if task in r.last_message_text()]
    block = routing_block_once(subagent)  # ours, added to its prompt; not the session's
    assert named_tools_exist(block, ANY_OUR_TOOL, subagent)


def test_rules_on_meaning_and_printed_downloads_hold_in_the_real_host(world: HostWorld) -> None:
    npm_host("claude-code", "claude")
    trust_work_dir(world)
    setup(world)
    victim = world.work / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("still here\n")
    settings = world.work / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm -rf *)"]}}))
    turns = [
        call("Bash", command="rm -fr victim", description="clean up"),
        call("Bash", command="curl -sS -o page.html http://example.com; cat page.html"),
        reply("done"),
    ]
    with world.fake_model(turns) as model:
        claude(world, model, "Clean up, then read example.com")
    _, after_rm, after_curl = model.main_requests
    assert "Blocked by security policy" in after_rm.tool_results()[-1]
    assert "Bash(rm -rf *)" in after_rm.tool_results()[-1]
    assert "was not run" in after_curl.tool_results()[-1]
    assert (victim / "keep.txt").read_text() == "still here\n"


def test_a_bounded_read_says_inside_its_result_where_the_rest_is_and_the_search_finds_it(
    world: HostWorld,
) -> None:
    from support.debug_session import SEARCH_CALL

    npm_host("claude-code", "claude")
    trust_work_dir(world)
    setup(world)
    source = world.work / "src" / "billing.py"  # ~60 KB: over the read threshold
    source.parent.mkdir()
    code = [f"def rule_{i}(amount, rate):\n    return round(amount * rate + {i}, 2)\n\n"
            for i in range(860)]  # fmt: skip
    code[700] = "RETRY_BUDGET_SECONDS = 7429\n\n"  # line 2101: far past the bounded window
    source.write_text("".join(code))

    def search_as_the_result_says(request: Request) -> Reply:
        found = SEARCH_CALL.search(request.tool_results()[-1])  # the result itself, not beside it
        if found is None:
            return reply("the read said nothing about the rest")
        return call(found.group(1), queries=["RETRY_BUDGET_SECONDS"], source=found.group(2))

    turns = [call("Read", file_path=str(source)), search_as_the_result_says, reply("done")]
    with world.fake_model(turns) as model:
        claude(world, model, "Find the retry budget", "--allowedTools", "Read")

    read_result = model.main_requests[1].tool_results()[-1]
    assert "300\t" in read_result and "2101\t" not in read_result  # bounded: the head only
    assert 'ctx_search(queries=["<what you need>"], source="src/billing.py")' in read_result
    assert "RETRY_BUDGET_SECONDS = 7429" in model.main_requests[2].tool_results()[-1]
