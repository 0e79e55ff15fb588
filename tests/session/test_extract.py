"""Tool-call extraction: one call in, the session facts it carries out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.session.extract import ToolCall, error_line, tool_events


def kinds(call: ToolCall) -> list[tuple[str, str]]:
    return [(e.type, e.data) for e in tool_events(call)]


def test_a_failing_command_is_one_error_event() -> None:
    output = {"stdout": "FAILED tests/t.py::test_a - Error: not supported\n1 failed", "stderr": ""}
    events = tool_events(ToolCall("Bash", {"command": "npm test"}, output))
    errors = [e for e in events if e.category in ("error", "constraint")]
    assert len(errors) == 1 and errors[0].type == "error_tool"
    assert "npm test" in errors[0].data and "FAILED tests/t.py::test_a" in errors[0].data


def test_successful_output_mentioning_errors_is_not_a_failure() -> None:
    assert error_line("5 passed, 0 failed\nno errors found") == ""
    assert error_line("src/a.py:3: error_count = 0") == ""
    assert error_line("===== 2 failed, 1 passed =====") != ""
    assert (
        error_line("Traceback (most recent call last):\n  File 'x'\nKeyError: 'a'")
        == "KeyError: 'a'"
    )


def test_a_host_error_flag_or_exit_code_marks_failure() -> None:
    assert (
        tool_events(ToolCall("Bash", {"command": "make"}, {"stdout": "", "exit_code": 2}))[0].type
        == "error_tool"
    )
    mcp = ToolCall("mcp__gh__get", {"repo": "x"}, {"isError": True, "content": [{"text": "boom"}]})
    assert tool_events(mcp)[0].type == "error_tool"


def test_git_commit_branch_and_ops() -> None:
    call = ToolCall(
        "Bash",
        {"command": "git -C repo checkout -b feat/x && git commit -am 'Fix it' && git push"},
        "ok",
    )
    found = kinds(call)
    assert ("git_branch", "branch: feat/x") in found
    assert ("git_commit", "commit: Fix it") in found
    assert any(t == "git" and d.startswith("push") for t, d in found)
    assert ("git_branch", "branch: main") in kinds(
        ToolCall("Bash", {"command": "git status"}, "On branch main\n")
    )


def test_cwd_env_and_masked_exports() -> None:
    found = kinds(
        ToolCall(
            "Bash", {"command": "cd backend && export API_KEY=abc123 && pip install httpx"}, ""
        )
    )
    assert ("cwd", "cd backend") in found
    assert ("env", "export API_KEY=***") in found
    assert ("env", "pip install httpx") in found
    assert all("abc123" not in d for _, d in found)


def test_files_rules_and_patches_relative_to_the_project() -> None:
    assert kinds(ToolCall("Edit", {"file_path": "/p/src/a.py"}, {}, "/p")) == [
        ("file_edit", "src/a.py")
    ]
    assert kinds(ToolCall("Write", {"file_path": "/p/b.py"}, {}, "/p")) == [("file_write", "b.py")]
    assert kinds(ToolCall("Read", {"file_path": "/p/src/a.py"}, "x", "/p")) == [
        ("file_read", "src/a.py")
    ]
    rule = kinds(ToolCall("Read", {"file_path": "/p/CLAUDE.md"}, "Use tabs.", "/p"))
    assert rule[0] == ("rule", "CLAUDE.md") and rule[1][0] == "rule_content"
    patch = "*** Begin Patch\n*** Update File: /p/x.py\n*** Add File: /p/y.py\n*** End Patch"
    assert kinds(ToolCall("apply_patch", {"input": patch}, "", "/p")) == [
        ("file_edit", "x.py"),
        ("file_write", "y.py"),
    ]


def test_tasks_subagents_questions_skills_and_mcp() -> None:
    todos = {
        "todos": [{"content": "A", "status": "completed"}, {"content": "B", "status": "pending"}]
    }
    assert kinds(ToolCall("TodoWrite", todos, "")) == [("task_list", "completed\tA\npending\tB")]
    agent = kinds(ToolCall("Agent", {"description": "find callers"}, "3 callers in auth.py"))
    assert [t for t, _ in agent] == ["subagent_launched", "agent_finding"]
    question = kinds(
        ToolCall("AskUserQuestion", {"questions": [{"question": "Which DB?"}]}, "Postgres")
    )
    assert question == [("question_answered", "Q: Which DB? → A: Postgres")]
    assert kinds(ToolCall("Skill", {"skill": "pdf"}, "")) == [("skill", "pdf")]
    assert kinds(ToolCall("mcp__github__list_issues", {"repo": "o/r"}, "")) == [
        ("mcp", "mcp__github__list_issues: o/r")
    ]


def test_slow_tools_and_redirects() -> None:
    slow = kinds(
        ToolCall("WebFetch", {"url": "https://x.dev"}, {"durationMs": 9000, "result": "ok"})
    )
    assert ("tool_latency", "WebFetch https://x.dev took 9.0s") in slow
    redirected = kinds(ToolCall("Bash", {"command": 'echo "use ctx_execute instead"'}, ""))
    assert redirected == [("bash_redirected", "shell command redirected to the sandbox")]


def test_commands_behind_wrappers_and_quotes_are_session_facts() -> None:
    command = "cd 'my dir' && sudo -u me git commit -m \"fix: a && b\" | cat; export A=1"
    found = kinds(ToolCall("Bash", {"command": command}, "", "/p"))
    assert ("cwd", "cd my dir") in found
    assert ("git_commit", "commit: fix: a && b") in found
    assert ("env", "export A=***") in found


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
TOOLS = st.sampled_from(
    ["Bash", "Read", "Edit", "Write", "TodoWrite", "Agent", "AskUserQuestion", "ExitPlanMode",
     "apply_patch", "mcp__x__y", "Grep", "Glob", "WebFetch", "TaskUpdate", "Unknown"]
)  # fmt: skip


@given(
    TOOLS,
    st.dictionaries(
        st.sampled_from(["command", "file_path", "todos", "plan", "questions", "url", "input"]),
        JSONISH,
        max_size=4,
    ),
    JSONISH,
)
def test_any_tool_call_extracts_without_error(tool: str, tool_input: dict, output: object) -> None:
    for event in tool_events(ToolCall(tool, tool_input, output, "/p")):
        assert event.category and event.type and 1 <= event.priority <= 5
