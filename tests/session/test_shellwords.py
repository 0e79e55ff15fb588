"""The command-line splitter and the tool extractor never fail on odd input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.session.extract import ToolCall, tool_events
from ctxmode.session.shellwords import segments, strip_prefix


def test_quotes_operators_and_prefixes() -> None:
    assert segments("cd 'my dir' && git commit -m \"fix: a && b\" | cat; ls") == [
        ["cd", "my dir"], ["git", "commit", "-m", "fix: a && b"], ["cat"], ["ls"]
    ]  # fmt: skip
    assert strip_prefix(["FOO=1", "sudo", "make", "X=2"]) == ["make", "X=2"]


WORD = st.text(
    alphabet=st.characters(blacklist_characters="'\"\\;&|\n \t"), min_size=1, max_size=12
)


@given(st.lists(st.lists(WORD, min_size=1, max_size=5), min_size=1, max_size=5))
def test_plain_words_joined_by_separators_split_back(commands: list[list[str]]) -> None:
    line = " && ".join(" ".join(words) for words in commands)
    assert segments(line) == commands


@given(st.text(max_size=300))
def test_any_command_line_splits_without_error(line: str) -> None:
    for words in segments(line):
        assert words and all(isinstance(w, str) for w in words)


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
