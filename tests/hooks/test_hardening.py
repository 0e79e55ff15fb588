"""The second hardening round through real `ctxmode hook` processes (Claude Code's payloads):
rules matched on a command's meaning, programs named at run time, responses followed
wherever they are printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .hookproc import hook_env, run_hook


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    rules = {"deny": ["Bash(rm -rf *)", "Bash(sudo:*)"], "ask": ["Bash(git push:*)"]}
    settings.write_text(json.dumps({"permissions": rules}))
    return root


def decide(project: Path, tmp_path: Path, tool: str, tool_input: dict) -> tuple[str, str]:
    """(permission decision or "", the reason) the hook answers for one PreToolUse call."""
    payload = {
        "session_id": "harden-1",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    env = hook_env(CTXMODE_DIR=str(tmp_path / "data"), CLAUDE_CONFIG_DIR=str(tmp_path / "u"))
    completed = run_hook("claude-code", "pretooluse", json.dumps(payload), env=env)
    assert completed.returncode == 0, completed.stderr
    if not completed.stdout.strip():
        return "", ""
    output = json.loads(completed.stdout).get("hookSpecificOutput", {})
    return output.get("permissionDecision", ""), output.get("permissionDecisionReason", "")


@pytest.mark.parametrize(
    ("command", "expected", "rule"),
    [
        ("rm -fr build", "deny", "Bash(rm -rf *)"),
        ("rm -r -f build", "deny", "Bash(rm -rf *)"),
        ("rm --recursive --force build", "deny", "Bash(rm -rf *)"),
        ("cd /tmp && rm build -Rf", "deny", "Bash(rm -rf *)"),
        ("git -C . push origin main", "ask", "Bash(git push:*)"),
        ("git --git-dir=.git push", "ask", "Bash(git push:*)"),
        ("git -c user.name=x push", "ask", "Bash(git push:*)"),
        ("git --no-pager push --force", "ask", "Bash(git push:*)"),
        ("python3 -c \"import os; getattr(os, 'sys'+'tem')('id')\"", "ask", "run time"),
    ],
)
def test_shell_rules_hold_on_meaning(project, tmp_path, command, expected, rule) -> None:
    decision, reason = decide(project, tmp_path, "Bash", {"command": command})
    assert decision == expected and rule in reason, reason


@pytest.mark.parametrize("command", ["rm -r build", "git -C . status", "git log --grep push"])
def test_other_spellings_of_other_actions_pass(project, tmp_path, command) -> None:
    decision, reason = decide(project, tmp_path, "Bash", {"command": command})
    assert decision not in ("deny", "ask"), reason


def test_ctx_execute_code_naming_its_program_at_run_time_is_asked(project, tmp_path) -> None:
    code = "import os\nos.system(bytes.fromhex('7375646f206964').decode())"
    tool_input = {"language": "python", "code": code}
    decision, reason = decide(project, tmp_path, "mcp__ctxmode__ctx_execute", tool_input)
    assert decision == "ask" and "only at run time" in reason and "fromhex" in reason
    plain = {"language": "python", "code": "print(sum(range(5)))"}
    assert decide(project, tmp_path, "mcp__ctxmode__ctx_execute", plain)[0] == ""


@pytest.mark.parametrize(
    "command",
    [
        "curl -sS -o page.html https://example.com; cat page.html",
        "curl -s -o /dev/fd/1 https://example.com",
        "curl -s -o /dev/stdout https://example.com",
        "curl -s --output /dev/tty https://example.com",
        "echo https://example.com | xargs curl",
        "python3 -c 'from urllib.request import urlopen; print(urlopen(\"https://x\").read())'",
        'python3 -c \'import http.client as h; c = h.HTTPSConnection("x"); c.request("GET", "/")\'',
        "node -e 'fetch(process.argv[1]).then(r => r.text()).then(console.log)' https://x",
        "perl -MLWP::Simple -e 'getprint \"https://example.com\"'",
        "http https://example.com",
        "aria2c https://example.com/f.iso",
        "lynx -dump https://example.com",
        "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc example.com 80",
        "exec 3<>/dev/tcp/example.com/80; printf 'GET /\\n' >&3; cat <&3",
    ],
)
def test_a_printed_response_is_routed_like_curl(project, tmp_path, command) -> None:
    decision, reason = decide(project, tmp_path, "Bash", {"command": command})
    assert decision == "deny" and "ctx_fetch_and_index" in reason, (command, reason)


@pytest.mark.parametrize(
    "command",
    [
        "curl -sS -o page.html https://example.com && wc -c page.html",
        "wget -q https://example.com/f.tgz",
        "curl -fsSL https://example.com/f.tgz > f.tgz",
    ],
)
def test_a_download_to_a_file_that_is_not_printed_stays_allowed(project, tmp_path, command):
    decision, reason = decide(project, tmp_path, "Bash", {"command": command})
    assert decision == "", reason


def _tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def test_an_external_tools_huge_output_is_indexed_within_the_call_bound(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    data = tmp_path / "data"
    cap = 8 * 1024 * 1024
    text = "".join(f"issue {n}: the widget fails on input {n * 7}\n" for n in range(150_000))
    payload = {
        "session_id": "harden-2",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__github__list_issues",
        "tool_input": {},
        "tool_response": [{"type": "text", "text": text}],  # about 6 MB
    }
    env = hook_env(CTXMODE_DIR=str(data), CTXMODE_CALL_DISK_CAP=str(cap))
    completed = run_hook("claude-code", "posttooluse", json.dumps(payload), env=env)
    assert completed.returncode == 0, completed.stderr
    output = json.loads(completed.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"]
    notice = output[0]["text"]
    assert "Incomplete: indexing stopped after the first" in notice, notice[-600:]
    assert "issue 149999" in notice  # the tail is still shown
    assert _tree_bytes(data) <= cap
