"""End to end, per host: real hook processes fed a scripted session, then a compaction.

Each host gets its own payload shapes (tool names, field names, output shapes) and its own
way back after compaction: SessionStart(compact) where the host sends it, SessionStart
resume (Kimi only knows startup|resume), or the first prompt after PreCompact (VS Code,
Gemini, whose SessionStart never says compact). The guide must come back in the host's
envelope with the last prompt, the pending tasks and the modified files, and must no
longer list the test failure that was fixed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FAIL_TEXT = (
    "============ FAILURES ============\n"
    "FAILED tests/test_parser.py::test_empty_input - ValueError: empty input\n"
    "======= 1 failed, 4 passed in 0.12s ======="
)
PASS_TEXT = "======= 5 passed in 0.10s ======="
LAST_PROMPT = "Now update the docs for the validation rules"
FIRST_PROMPT = "Add input validation to the parser. Use pathlib instead of os.path from now on."
TASKS = [
    ("Add validation", "completed"),
    ("Write regression tests", "in_progress"),
    ("Update docs", "pending"),
]


def run_hook(platform: str, event: str, payload: dict, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ctxmode", "hook", platform, event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


# ---------------------------------------------------------------- host profiles


class Host:
    """How one host names its events and shapes its payloads."""

    def __init__(
        self,
        platform: str,
        events: dict[str, str],
        base: Callable[[Path], dict],
        tool: Callable[[str, dict, str, bool], dict],
        names: dict[str, str],
        todo: Callable[[list[tuple[str, str]]], dict],
        edit_input: Callable[[str], dict],
        comeback: tuple[str, dict],
        context: Callable[[dict], str],
        prompt: Callable[[str], object] = lambda text: text,
    ) -> None:
        self.platform, self.events, self.base, self.tool = platform, events, base, tool
        self.names, self.todo, self.edit_input = names, todo, edit_input
        self.comeback, self.context, self.prompt = comeback, context, prompt


def snake_tool(output_key: str, shape: str) -> Callable[[str, dict, str, bool], dict]:
    def build(name: str, tool_input: dict, text: str, failed: bool) -> dict:
        if shape == "claude":
            output: object = {"stdout": text, "stderr": "", "interrupted": False}
        elif shape == "gemini":
            output = {"llmContent": text + ("\nExit Code: 1" if failed else ""), "error": None}
        else:
            output = text
        return {"tool_name": name, "tool_input": tool_input, output_key: output}

    return build


def copilot_tool(name: str, tool_input: dict, text: str, failed: bool) -> dict:
    result = {"resultType": "failure" if failed else "success", "textResultForLlm": text}
    return {"toolName": name, "toolArgs": tool_input, "toolResult": result}


def hso_context(output: dict) -> str:
    return output.get("hookSpecificOutput", {}).get("additionalContext", "")


def todos(items: list[tuple[str, str]]) -> dict:
    return {
        "todos": [{"content": text, "status": status, "activeForm": text} for text, status in items]
    }


HOSTS = {
    "claude-code": Host(
        "claude-code",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {"session_id": "11111111-2222-4333-8444-555555555555", "cwd": str(root)},
        snake_tool("tool_response", "claude"),
        {"bash": "Bash", "edit": "Edit", "todo": "TodoWrite"},
        todos,
        lambda path: {"file_path": path, "old_string": "a", "new_string": "b"},
        ("start", {"source": "compact"}),
        hso_context,
    ),
    "qwen-code": Host(
        "qwen-code",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {"session_id": "qwen-s1", "cwd": str(root)},
        snake_tool("tool_response", "plain"),
        {"bash": "run_shell_command", "edit": "edit", "todo": "todo_write"},
        todos,
        lambda path: {"file_path": path, "old_string": "a", "new_string": "b"},
        ("start", {"source": "compact"}),
        hso_context,
    ),
    "gemini-cli": Host(
        "gemini-cli",
        {
            "post": "aftertool",
            "prompt": "beforeagent",
            "compact": "precompress",
            "start": "sessionstart",
            "stop": "afteragent",
        },
        lambda root: {"session_id": "gem-s1", "cwd": str(root)},
        snake_tool("tool_response", "gemini"),
        {"bash": "run_shell_command", "edit": "replace", "todo": "write_todos"},
        lambda items: {"todos": [{"description": t, "status": s} for t, s in items]},
        lambda path: {"file_path": path, "old_string": "a", "new_string": "b"},
        ("prompt", {"prompt": "continue"}),  # Gemini never sends SessionStart(compact)
        hso_context,
    ),
    "vscode-copilot": Host(
        "vscode-copilot",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {"sessionId": "vsc-s1", "cwd": str(root)},
        snake_tool("tool_response", "plain"),
        {"bash": "run_in_terminal", "edit": "replace_string_in_file", "todo": "manage_todo_list"},
        lambda items: {
            "todoList": [
                {"id": i, "title": t, "status": s.replace("_", "-")}
                for i, (t, s) in enumerate(items)
            ]
        },
        lambda path: {"filePath": path, "oldString": "a", "newString": "b"},
        ("prompt", {"prompt": "continue"}),  # VS Code's SessionStart source is always "new"
        hso_context,
    ),
    "copilot-cli": Host(
        "copilot-cli",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {"sessionId": "cop-s1", "cwd": str(root), "timestamp": 1764496800000},
        copilot_tool,
        {"bash": "bash", "edit": "edit", "todo": "todo_write"},
        todos,
        lambda path: {"path": path, "old_str": "a", "new_str": "b"},
        ("start", {"source": "compact"}),
        lambda output: output.get("additionalContext", ""),
    ),
    "codex": Host(
        "codex",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {
            "session_id": "019a0000-0000-7000-8000-00000000c0de",
            "cwd": str(root),
            "transcript_path": None,
        },
        snake_tool("tool_response", "plain"),
        {"bash": "Bash", "edit": "apply_patch", "todo": "update_plan"},
        lambda items: {"plan": [{"step": t, "status": s} for t, s in items]},
        lambda path: {
            "input": f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch"
        },
        ("start", {"source": "compact"}),
        hso_context,
    ),
    "kimi": Host(
        "kimi",
        {
            "post": "posttooluse",
            "prompt": "userpromptsubmit",
            "compact": "precompact",
            "start": "sessionstart",
            "stop": "stop",
        },
        lambda root: {"session_id": "kimi-s1", "cwd": str(root)},
        snake_tool("tool_output", "plain"),
        {"bash": "Shell", "edit": "StrReplaceFile", "todo": "SetTodoList"},
        lambda items: {"todos": [{"title": t, "status": s} for t, s in items]},
        lambda path: {"path": path, "edit": {"old": "a", "new": "b"}},
        ("start", {"source": "resume"}),  # Kimi sends only startup | resume
        hso_context,
        prompt=lambda text: [{"type": "text", "text": text}],
    ),
}


def scripted_session(host: Host, root: Path) -> str:
    """Play the session through real hook processes; return the guide the host gets back."""
    base = host.base(root)
    parser = str(root / "src" / "parser.py")

    def call(kind: str, extra: dict) -> str:
        return run_hook(host.platform, host.events[kind], {**base, **extra}, root)

    def tool(name: str, tool_input: dict, text: str = "", failed: bool = False) -> None:
        call("post", host.tool(host.names[name], tool_input, text, failed))

    call("start", {"source": "startup"})
    call("prompt", {"prompt": host.prompt(FIRST_PROMPT)})
    tool("todo", host.todo(TASKS))
    tool("edit", host.edit_input(parser))
    tool("bash", {"command": "pytest tests/test_parser.py"}, FAIL_TEXT, failed=True)
    tool("edit", host.edit_input(parser))
    tool("bash", {"command": "pytest tests/test_parser.py"}, PASS_TEXT)
    tool(
        "bash",
        {"command": 'git commit -am "Validate parser input"'},
        "[main 1a2b3c] Validate parser input",
    )
    call("prompt", {"prompt": host.prompt(LAST_PROMPT)})
    call("stop", {"stop_hook_active": False, "last_assistant_message": "Docs are next."})
    assert call("compact", {"trigger": "auto"}) in ("", "{}", "{}\n")
    kind, extra = host.comeback
    out = call(kind, extra)
    assert out, f"{host.platform}: nothing came back after compaction"
    return host.context(json.loads(out))


@pytest.mark.parametrize("platform", sorted(HOSTS))
def test_guide_after_compaction_carries_the_working_state(platform: str, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    guide = scripted_session(HOSTS[platform], root)

    assert "<session_guide" in guide
    assert LAST_PROMPT in guide
    assert "Write regression tests" in guide and "Update docs" in guide
    assert "Add validation" not in guide  # completed tasks are not pending
    assert "src/parser.py" in guide
    assert "Unresolved Errors" not in guide and "test_empty_input" not in guide
    assert "pathlib instead of os.path" in guide
    assert "session-events" in guide
    assert len(guide.split("<session_guide", 1)[1].encode()) <= 2048 + len("<session_guide")


def test_a_failure_that_is_not_fixed_stays_in_the_guide(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    base = {"session_id": "unfixed", "cwd": str(root)}
    run_hook("claude-code", "userpromptsubmit", {**base, "prompt": "Fix the parser"}, root)
    failing = {"tool_name": "Bash", "tool_input": {"command": "pytest tests/test_parser.py"},
               "tool_response": {"stdout": FAIL_TEXT, "stderr": ""}}  # fmt: skip
    run_hook("claude-code", "posttooluse", {**base, **failing}, root)
    run_hook("claude-code", "precompact", {**base, "trigger": "manual"}, root)
    out = json.loads(run_hook("claude-code", "sessionstart", {**base, "source": "compact"}, root))
    guide = out["hookSpecificOutput"]["additionalContext"]
    assert "Unresolved Errors" in guide and "test_empty_input" in guide
    # One failing command is one error event, not two.
    assert guide.count("test_empty_input") == 1


def test_resume_in_a_new_session_claims_the_newest_snapshot_once(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    old = {"session_id": "old-session", "cwd": str(root)}
    run_hook("claude-code", "userpromptsubmit", {**old, "prompt": "Port the CLI to click"}, root)
    run_hook("claude-code", "precompact", {**old, "trigger": "auto"}, root)
    new = {"session_id": "new-session", "cwd": str(root), "source": "resume"}
    first = json.loads(run_hook("claude-code", "sessionstart", new, root))
    assert "Port the CLI to click" in first["hookSpecificOutput"]["additionalContext"]
    again = {"session_id": "third-session", "cwd": str(root), "source": "resume"}
    second = run_hook("claude-code", "sessionstart", again, root)  # nothing left to say
    assert "Port the CLI to click" not in second


def test_clear_gives_the_routing_block_only(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    base = {"session_id": "cleared", "cwd": str(root)}
    run_hook("claude-code", "userpromptsubmit", {**base, "prompt": "Port the CLI to click"}, root)
    run_hook("claude-code", "precompact", {**base, "trigger": "auto"}, root)
    out = json.loads(run_hook("claude-code", "sessionstart", {**base, "source": "clear"}, root))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert context and "<session_guide" not in context


def test_subagent_prompts_never_replace_the_last_request(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    base = {"session_id": "with-agents", "cwd": str(root)}
    run_hook("claude-code", "userpromptsubmit", {**base, "prompt": "Audit the auth module"}, root)
    sub = {**base, "agent_id": "agent-7", "prompt": "List every call to login()"}
    run_hook("claude-code", "userpromptsubmit", sub, root)
    run_hook("claude-code", "precompact", {**base, "trigger": "auto"}, root)
    out = json.loads(run_hook("claude-code", "sessionstart", {**base, "source": "compact"}, root))
    guide = out["hookSpecificOutput"]["additionalContext"]
    assert "Audit the auth module" in guide and "List every call" not in guide


def test_a_broken_data_dir_loses_the_events_but_not_the_routing_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    data = tmp_path / "data"
    data.mkdir()
    (data / "projects").write_text("not a directory")
    monkeypatch.setenv("CTXMODE_DIR", str(data))
    base = {"session_id": "broken", "cwd": str(root)}
    out = json.loads(run_hook("claude-code", "sessionstart", {**base, "source": "startup"}, root))
    assert "ctx_search" in out["hookSpecificOutput"]["additionalContext"]
    assert run_hook("claude-code", "userpromptsubmit", {**base, "prompt": "hi"}, root) == ""
    assert "session continuity" in (data / "logs" / "hook-errors.log").read_text()
