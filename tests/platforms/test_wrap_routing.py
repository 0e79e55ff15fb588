"""Tier 2 by rewrite through real hook processes: the wrapped command each host gets, run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ctxmode.hooks.routing import route_pre_tool_use
from ctxmode.launch import wrapped_command
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import HookEvent

P = "mcp__context-mode__"


def claude_payload(command: str, cwd: Path) -> dict:
    return {"session_id": "s-wrap", "cwd": str(cwd), "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command, "description": "d"}}  # fmt: skip


def test_the_rewrite_keeps_the_other_fields_and_names_the_wrapped_command() -> None:
    event = HookEvent("claude-code", ev.PRE_TOOL_USE, tool="Bash", project_dir="/p",
                      tool_input={"command": "pytest -q", "description": "d"})  # fmt: skip
    decision = route_pre_tool_use(event, P, True)
    wrapped = wrapped_command("claude-code", "/p", "pytest -q")
    assert decision.action == ev.MODIFY
    assert decision.updated_input == {"command": wrapped, "description": "d"}
    assert decision.reason.endswith("\n" + wrapped)  # what a host that cannot rewrite says
    assert f"{P}ctx_search" in decision.reason
    assert decision.meta["type"] == "bash-wrapped"
    unready = route_pre_tool_use(event, P, False)  # no MCP server: nothing to search with
    assert unready is None or unready.action == ev.CONTEXT


def test_claude_code_runs_the_wrapped_command_and_its_output_is_the_originals(
    run_hook, tmp_path: Path
) -> None:
    (tmp_path / "small.log").write_text("x" * 10)
    command = "git log 2>&1; echo tail-line; exit 3"
    out = json.loads(
        run_hook("claude-code", "pretooluse", claude_payload(command, tmp_path)).stdout
    )
    wrapped = out["hookSpecificOutput"]["updatedInput"]["command"]
    ran = subprocess.run(["bash", "-c", wrapped], cwd=tmp_path, capture_output=True, check=False)
    bare = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, check=False)
    assert (ran.stdout, ran.stderr, ran.returncode) == (bare.stdout, bare.stderr, bare.returncode)


def test_a_leading_cd_runs_in_the_hosts_shell_and_the_rest_through_the_wrapper(
    run_hook, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "big.log").write_text("".join(f"request {i} ok\n" for i in range(20000)))
    command = "cd sub && cat big.log; pwd"
    out = json.loads(
        run_hook("claude-code", "pretooluse", claude_payload(command, tmp_path)).stdout
    )
    wrapped = out["hookSpecificOutput"]["updatedInput"]["command"]
    assert wrapped.startswith("cd sub && ") and "ctxmode-wrap --host" in wrapped
    # The directory change outlives the call, as the host's shell would keep it.
    ran = subprocess.run(["bash", "-c", wrapped + "\npwd"], cwd=tmp_path, capture_output=True)
    assert ran.returncode == 0 and len(ran.stdout) <= 2049 + 200
    assert ran.stdout.decode().rstrip().endswith(str(tmp_path / "sub"))
    assert b"ctx_search(queries=" in ran.stdout


def test_big_output_reaches_the_model_as_a_notice_naming_the_hosts_search_tool(
    run_hook, tmp_path: Path
) -> None:
    (tmp_path / "big.log").write_text("".join(f"request {i} ok\n" for i in range(20000)))
    payload = claude_payload("cat big.log", tmp_path)
    out = json.loads(run_hook("claude-code", "pretooluse", payload).stdout)
    wrapped = out["hookSpecificOutput"]["updatedInput"]["command"]
    ran = subprocess.run(["bash", "-c", wrapped], cwd=tmp_path, capture_output=True, check=False)
    assert ran.returncode == 0
    assert len(ran.stdout) <= 2049
    assert b"mcp__context-mode__ctx_search(queries=" in ran.stdout


@pytest.mark.parametrize("platform", ["kimi", "antigravity-cli", "kiro"])
def test_hosts_that_cannot_rewrite_deny_with_the_exact_wrapped_command(
    run_hook, tmp_path: Path, platform: str
) -> None:
    payload = {**claude_payload("pytest -q", tmp_path), "hook_event_name": "PreToolUse"}
    if platform == "antigravity-cli":
        payload = {"toolCall": {"name": "run_command", "args": {"CommandLine": "pytest -q",
                                                                  "Cwd": str(tmp_path)}}}  # fmt: skip
    if platform == "kiro":
        payload = {**payload, "hook_event_name": "preToolUse", "tool_name": "execute_bash"}
    host_event = {"kimi": "pretooluse", "antigravity-cli": "pretooluse", "kiro": "pretooluse"}
    completed = run_hook(platform, host_event[platform], payload)
    said = (completed.stdout + completed.stderr).decode()
    assert "ctxmode-wrap --host" in said
    assert f"ctxmode-wrap --host {platform} -- pytest -q" in said


@pytest.mark.parametrize(
    ("rules", "decision"),
    [
        ({"allow": ["Bash(pytest:*)"]}, "allow"),  # the user allows the original: say so
        ({}, None),  # no rule: the host decides, as for the original
        ({"allow": ["Bash(git:*)"]}, None),
    ],
)
def test_claude_code_answers_allow_with_the_rewrite_only_when_the_users_rules_allow_it(
    run_hook, tmp_path: Path, rules: dict, decision: str | None
) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}))
    out = json.loads(
        run_hook("claude-code", "pretooluse", claude_payload("pytest -q", tmp_path)).stdout
    )["hookSpecificOutput"]
    assert "ctxmode-wrap --host" in out["updatedInput"]["command"]
    assert out.get("permissionDecision") == decision


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("sort data.txt | uniq -c", "allow"),  # Claude Code would run it without asking
        ("grep -n x data.txt 2>&1", "allow"),
        ("sort -o data.txt data.txt", None),  # writes: the host asks, as for the original
        ("sed -i s/a/b/ data.txt", None),
        ("cat data.txt > copy.txt", None),
        ("find . -delete", None),
    ],
)
def test_claude_code_allows_a_wrapped_read_only_command_as_it_would_the_original(
    run_hook, tmp_path: Path, command: str, decision: str | None
) -> None:
    (tmp_path / "data.txt").write_text("a\n")
    out = json.loads(
        run_hook("claude-code", "pretooluse", claude_payload(command, tmp_path)).stdout or "{}"
    ).get("hookSpecificOutput", {})
    assert out.get("permissionDecision") == decision, out
    if decision:
        assert "ctxmode-wrap --host" in out["updatedInput"]["command"]


def test_an_ask_rule_for_the_original_command_is_kept(run_hook, tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    rules = {"permissions": {"allow": ["Bash(pytest:*)"], "ask": ["Bash(pytest -x:*)"]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(rules))
    out = json.loads(
        run_hook("claude-code", "pretooluse", claude_payload("pytest -x", tmp_path)).stdout
    )["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask" and "updatedInput" not in out


@pytest.mark.parametrize(("host", "size", "remembered"), [
    ("claude-code", 20_000, True), ("qwen-code", 20_000, True), ("claude-code", 300, False),
])  # fmt: skip
def test_a_failed_command_over_the_threshold_is_remembered_and_answered_with_nothing(
    run_hook, tmp_path: Path, host: str, size: int, remembered: bool
) -> None:
    from ctxmode.hooks import wrap_history

    payload = {**claude_payload("cd sub && ./gen.sh --all", tmp_path),
               "hook_event_name": "PostToolUseFailure", "error": "Exit code 1\n" + "x" * size}  # fmt: skip
    if host == "qwen-code":
        payload["tool_name"] = "run_shell_command"
    done = run_hook(host, "posttoolusefailure", payload)
    assert (done.returncode, done.stdout.strip(b"{}\n")) == (0, b"")
    assert ("./gen.sh --all" in wrap_history.load(str(tmp_path))) is remembered
