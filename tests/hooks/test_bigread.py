"""Big reads: bounded (or denied) with the whole file indexed in the background."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ctxmode.hooks import plugin_rules
from ctxmode.hooks.routing import route_pre_tool_use
from ctxmode.platforms import opencode
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent

P = "mcp__context-mode__"
WINDOW = ("offset", "limit")
OC = "context-mode_"  # OpenCode's naming of our tools


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    lines = [f"def function_{i}(value):\n    return value + {i}\n" for i in range(1500)]
    lines.append("def needle_at_the_end():\n    return 'found me'\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "big.py").write_text("".join(lines))
    return tmp_path


def read(project: Path, tool_input: dict, window: tuple[str, str] | None) -> object:
    event = HookEvent("test", ev.PRE_TOOL_USE, tool="Read", tool_input=tool_input,
                      session_id="s1", project_dir=str(project))  # fmt: skip
    return route_pre_tool_use(event, P, True, read_window=window)


def wait_for_label(project: Path, label: str) -> list[str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with KnowledgeBase.open(str(project)) as kb:
            results = kb.search(["needle_at_the_end"], limit=3, source=label)
            snippets = [hit.snippet or "" for hit in results[0].hits] if results else []
        if snippets:
            return snippets
        time.sleep(0.2)
    raise AssertionError(f"{label} was never indexed")


def test_a_host_that_can_bound_reads_gets_the_first_lines_and_the_label(project: Path) -> None:
    decision = read(project, {"file_path": "src/big.py"}, WINDOW)
    assert decision.action == ev.MODIFY
    assert decision.updated_input == {"file_path": "src/big.py", "offset": 1, "limit": 300}
    assert "source 'src/big.py'" in decision.context
    assert f'{P}ctx_search(queries=["<what you need>"], source="src/big.py")' in decision.context
    assert any("found me" in snippet for snippet in wait_for_label(project, "src/big.py"))


def test_a_host_that_cannot_gets_a_deny_with_the_same_guidance(project: Path) -> None:
    decision = read(project, {"file_path": str(project / "src" / "big.py")}, None)
    assert decision.action == ev.DENY
    assert "it was not read" in decision.reason and f"{P}ctx_search" in decision.reason
    wait_for_label(project, "src/big.py")


def test_a_big_file_outside_the_project_is_not_indexed(project: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "big.py"
    elsewhere.write_text((project / "src" / "big.py").read_text())
    decision = read(project, {"file_path": str(elsewhere)}, WINDOW)
    assert decision.action == "context" and decision.meta["type"] == "read-redirected"
    with KnowledgeBase.open(str(project)) as kb:
        assert kb.get_source(str(elsewhere.resolve())) is None


def test_a_read_of_a_part_is_left_alone(project: Path) -> None:
    assert read(project, {"file_path": "src/big.py", "offset": 900, "limit": 40}, WINDOW) is None


def test_the_threshold_is_a_setting(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMODE_READ_THRESHOLD", "10000000")
    decision = read(project, {"file_path": "src/big.py"}, WINDOW)
    assert decision is None or decision.action == ev.CONTEXT


def test_a_file_too_big_for_the_hook_is_indexed_in_the_background(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxmode.hooks import bigread

    monkeypatch.setattr(bigread, "SYNC_INDEX_BYTES", 10)
    decision = read(project, {"file_path": "src/big.py"}, WINDOW)
    assert decision.action == ev.MODIFY
    assert any("found me" in snippet for snippet in wait_for_label(project, "src/big.py"))


def read_result(project: Path, tool_input: dict, content: str, start: int = 1) -> object:
    """The PostToolUse decision for a Read whose result is `content` (Claude Code's shape)."""
    from ctxmode.hooks.posttooluse import shape_output

    output = {"type": "text", "file": {"filePath": tool_input["file_path"], "content": content,
              "numLines": content.count("\n") + 1, "startLine": start, "totalLines": 3002}}  # fmt: skip
    event = HookEvent("test", ev.POST_TOOL_USE, tool="Read", tool_input=tool_input,
                      tool_output=output, session_id="s1", project_dir=str(project))  # fmt: skip
    return shape_output(event, P, WINDOW)


def test_a_bounded_reads_result_itself_says_where_the_whole_file_is(project: Path) -> None:
    from ctxmode.hooks.posttooluse import replacement_like

    head = "def function_0(value):\n    return value + 0"
    decision = read_result(project, {"file_path": "src/big.py", "offset": 1, "limit": 2}, head)
    assert decision.action == ev.REPLACE_OUTPUT and decision.context.startswith(head)
    note = decision.context[len(head) :]
    assert "lines 1–2 of 3,002" in note
    assert f'{P}ctx_search(queries=["<what you need>"], source="src/big.py")' in note
    replaced = replacement_like({"type": "text", "file": {"content": head, "numLines": 2}}, "x")
    assert replaced == {"type": "text", "file": {"content": "x", "numLines": 2}}
    # The model's own window of a file nobody indexed yet: indexed now, so the note is true.
    assert any("found me" in snippet for snippet in wait_for_label(project, "src/big.py"))


def test_reads_of_small_files_or_without_a_window_are_left_alone(project: Path) -> None:
    (project / "small.py").write_text("x = 1\n")
    assert read_result(project, {"file_path": "small.py", "offset": 1, "limit": 5}, "x = 1") is None
    assert read_result(project, {"file_path": "src/big.py"}, "def function_0(value):") is None


# --- plugin hosts: a read over the limit, cut after the host ran it


def host_read(project: Path, path: str, shown: str) -> Decision | None:
    """A plugin host's read of `path` that returned `shown` (OpenCode's shape)."""
    body = {"tool": "read", "input": {"filePath": path}, "callId": "c1", "sessionId": "s1",
            "cwd": str(project), "tools": [f"{OC}ctx_execute", f"{OC}ctx_search"],
            "config": {"truncateTools": ["read"], "maxResultBytes": 20_000},
            "result": {"output": shown, "metadata": {"truncated": True}}}  # fmt: skip
    return plugin_rules.handle(opencode.PLATFORM.parse(body, "after"))


def window(project: Path, lines: int = 1_000) -> str:
    """What the host's read shows: numbered lines from the file's start, the rest left out."""
    text = (project / "src" / "big.py").read_text().splitlines()[:lines]
    return "\n".join(f"{n}: {line}" for n, line in enumerate(text, start=1))


def test_a_plugin_hosts_cut_read_indexes_the_whole_file_under_its_path(project: Path) -> None:
    decision = host_read(project, "src/big.py", window(project))
    assert decision is not None and decision.action == "replace_output"
    notice = decision.context
    assert f'{OC}ctx_search(queries=["<what you need>"], source="src/big.py")' in notice
    assert "1: def function_0(value):" in notice and "found me" not in notice
    assert len(notice.encode()) <= 2048
    assert any("found me" in snippet for snippet in wait_for_label(project, "src/big.py"))


def test_a_read_outside_the_project_is_cut_as_the_host_showed_it(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "big.py"
    elsewhere.write_text((project / "src" / "big.py").read_text())
    decision = host_read(project, str(elsewhere), window(project))
    assert decision is not None and "src/big.py" not in decision.context
    assert 'source="tool:read:' in decision.context
    with KnowledgeBase.open(str(project)) as kb:
        assert all("big.py" not in source.label for source in kb.sources())


def test_a_small_read_passes_untouched(project: Path) -> None:
    assert host_read(project, "src/big.py", window(project, lines=100)) is None
