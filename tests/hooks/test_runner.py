"""The runner answers every input with a well-formed envelope and exit 0 (in-process, many examples)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxmode.hooks.runner import run
from ctxmode.platforms import claude_code, load
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.vocab.platform import Platform

from .hookproc import run_hook

PLATFORMS = ("claude-code", "qwen-code")
HOST_NAMES = {
    "pretooluse": "PreToolUse",
    "posttooluse": "PostToolUse",
    "sessionstart": "SessionStart",
    "userpromptsubmit": "UserPromptSubmit",
}
FIELDS = (
    "session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
    "tool_response", "source", "prompt", "trigger", "agent_id", "agent_type", "workspace_roots",
    "conversation_id", "sessionId", "stop_hook_active", "last_assistant_message",
)  # fmt: skip
TOOL_NAMES = st.sampled_from(
    ["Bash", "Read", "Grep", "WebFetch", "Agent", "Task", "run_shell_command", "read_file",
     "mcp__github__x", "mcp__context-mode__ctx_execute", "ctx_batch_execute", "Edit", ""]
)  # fmt: skip
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=8,
)
TOOL_INPUTS = st.one_of(
    ANY_JSON,
    st.fixed_dictionaries(
        {},
        optional={
            key: ANY_JSON | st.text(max_size=60)
            for key in (
                "command",
                "file_path",
                "url",
                "prompt",
                "language",
                "code",
                "commands",
                "cwd",
            )
        },
    ),
)
PAYLOADS = st.fixed_dictionaries(
    {},
    optional={**dict.fromkeys(FIELDS, ANY_JSON), "tool_name": TOOL_NAMES | ANY_JSON,
              "tool_input": TOOL_INPUTS},
)  # fmt: skip
EVENTS = st.sampled_from(sorted(claude_code.EVENTS))


@pytest.fixture(autouse=True)
def ready(monkeypatch, tmp_path):
    monkeypatch.setenv("CTXMODE_MCP_READY", "1")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))


def assert_well_formed(event: str, output) -> None:
    assert output.exit_code == 0
    assert output.stderr == ""
    if event in ("precompact", "stop"):
        assert output.stdout == "{}"
        return
    if not output.stdout:
        return
    parsed = json.loads(output.stdout)
    hso = parsed["hookSpecificOutput"]
    assert hso["hookEventName"] == HOST_NAMES[event]
    assert set(hso) <= {
        "hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput",
        "additionalContext", "updatedMCPToolOutput",
    }  # fmt: skip
    if "permissionDecision" in hso:
        assert hso["permissionDecision"] in ("deny", "ask")
    if "updatedInput" in hso:
        assert isinstance(hso["updatedInput"], dict)


def answer(platform: str, event: str, data: bytes):
    return run(load(platform), event, lambda: data)


COMMON = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@COMMON
@given(st.sampled_from(sorted(PLATFORMS)), EVENTS, st.binary(max_size=300))
def test_random_bytes(platform, event, data):
    assert_well_formed(event, answer(platform, event, data))


@COMMON
@given(st.sampled_from(sorted(PLATFORMS)), EVENTS, PAYLOADS, st.booleans())
def test_wrong_types_in_every_field(platform, event, payload, bom):
    data = json.dumps(payload).encode()
    assert_well_formed(event, answer(platform, event, (b"\xef\xbb\xbf" if bom else b"") + data))


@COMMON
@given(EVENTS, PAYLOADS, st.integers(min_value=1, max_value=400))
def test_truncated_json(event, payload, cut):
    data = json.dumps(payload).encode()
    assert_well_formed(event, answer("claude-code", event, data[: max(0, len(data) - cut)]))


def test_huge_tool_response_in_process():
    text = "x" * 10_000_000
    payload = {"tool_name": "mcp__github__dump", "tool_response": [{"type": "text", "text": text}]}
    output = answer("claude-code", "posttooluse", json.dumps(payload).encode())
    assert_well_formed("posttooluse", output)
    replaced = json.loads(output.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert len(replaced[0]["text"]) < 20_000
    assert "kept out of the context" in replaced[0]["text"]


BIG_SHELL_OUTPUT = "".join(f"case {i} PASSED\n" for i in range(8_000)) + "E   planted-fact-77\n"
# Each host's shell tool, the shape its post-tool hook receives the output in, and where
# the replacement goes in its answer (as measured on each real binary).
SHELL_HOSTS = [
    ("claude-code", "posttooluse", {"tool_name": "Bash",
        "tool_response": {"stdout": BIG_SHELL_OUTPUT, "stderr": "", "interrupted": False}},
     lambda out: out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]),
    ("gemini-cli", "aftertool", {"tool_name": "run_shell_command",
        "tool_response": {"llmContent": BIG_SHELL_OUTPUT, "returnDisplay": ""}},
     lambda out: out["reason"] if out["decision"] == "deny" else ""),
    ("codex", "posttooluse", {"tool_name": "Bash", "tool_response": BIG_SHELL_OUTPUT},
     lambda out: out["reason"] if out["decision"] == "block" else ""),
    ("qwen-code", "posttooluse", {"tool_name": "run_shell_command",
        "tool_response": {"llmContent": BIG_SHELL_OUTPUT}},
     lambda out: out["stopReason"] if out["continue"] is False else ""),
    ("copilot-cli", "posttooluse", {"toolName": "bash",
        "toolResult": {"resultType": "success", "textResultForLlm": BIG_SHELL_OUTPUT}},
     lambda out: out["modifiedResult"]["textResultForLlm"]),
]  # fmt: skip


@pytest.mark.parametrize(("host", "event", "payload", "replaced"), SHELL_HOSTS)
def test_big_shell_output_becomes_a_notice_with_the_rest_searchable(
    data_root, tmp_path, host, event, payload, replaced
):
    payload = {**payload, "cwd": str(tmp_path), "session_id": "s"}
    notice = replaced(json.loads(answer(host, event, json.dumps(payload).encode()).stdout))
    assert len(notice.encode()) <= 2048 and "planted-fact-77" in notice  # an error line
    label = re.search(r'source="([^"]+)"', notice).group(1)
    with KnowledgeBase.open(str(tmp_path)) as kb:
        hits = kb.search(["case 4321"], limit=1, source=label)[0].hits
    assert hits and "case 4321 PASSED" in hits[0].snippet
    calls = (data_root / "logs" / "hook-calls.jsonl").read_text().splitlines()
    assert json.loads(calls[-1])["bytes_in"] == len(BIG_SHELL_OUTPUT.encode())  # for insight


def test_small_shell_output_passes_untouched(data_root, tmp_path):
    payload = {"tool_name": "Bash", "cwd": str(tmp_path), "tool_response": {"stdout": "ok\n"}}
    assert answer("claude-code", "posttooluse", json.dumps(payload).encode()).stdout == ""


def test_cut_output_stays_retrievable(data_root, tmp_path):
    text = "".join(f"line {i}\n" for i in range(20_000)) + "planted-marker-xyz in the middle\n"
    text += "".join(f"more {i}\n" for i in range(5_000))
    payload = {
        "tool_name": "mcp__db__query",
        "session_id": "s",
        "cwd": str(tmp_path),
        "tool_response": text,
    }
    output = answer("claude-code", "posttooluse", json.dumps(payload).encode())
    replaced = json.loads(output.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert "\nline 0\n" in replaced and "\nmore 4999\n" in replaced  # its head and tail
    assert "planted-marker-xyz" not in replaced and len(replaced.encode()) <= 6_000
    label = re.search(r'source="([^"]+)"', replaced).group(1)
    with KnowledgeBase.open(str(tmp_path)) as kb:
        hits = kb.search(["planted-marker-xyz"], limit=1, source=label)[0].hits
    assert hits and "planted-marker-xyz in the middle" in hits[0].snippet
    assert not (data_root / "outputs").exists()


def test_unknown_platform_and_event_explain_on_stderr():
    unknown = run_hook("no-such-host", "pretooluse", b"{}")
    assert (unknown.returncode, unknown.stdout) == (0, b"")
    assert unknown.stderr.count(b"\n") == 1 and b"no-such-host" in unknown.stderr
    event = answer("claude-code", "bogus", b"{}")
    assert (event.exit_code, event.stdout) == (0, "")
    assert "bogus" in event.stderr and "pretooluse" in event.stderr


def test_a_crash_is_logged_and_answered_with_the_no_op(data_root):
    def explode(*_args, **_kwargs):
        raise RuntimeError("boom")

    claude = load("claude-code")
    slots = {name: getattr(claude, name) for name in Platform.__slots__}
    output = run(Platform(**{**slots, "parse": explode}), "stop", lambda: b"{}")
    assert (output.exit_code, output.stdout) == (0, "{}")
    log = (data_root / "logs" / "hook-errors.log").read_text()
    assert "RuntimeError: boom" in log and "claude-code stop" in log


def test_malformed_input_is_logged(data_root):
    answer("claude-code", "pretooluse", b'{"tool_name": ')
    assert "bad input: malformed JSON" in (data_root / "logs" / "hook-errors.log").read_text()


def test_an_unusable_data_root_still_gets_decisions(monkeypatch, tmp_path):
    monkeypatch.setenv("CTXMODE_DIR", "relative/dir")
    curl = json.dumps({"tool_name": "Bash", "tool_input": {"command": "curl https://x"}})
    output = answer("claude-code", "pretooluse", curl.encode())
    assert json.loads(output.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("CTXMODE_DIR", str(blocked))
    nudge = json.dumps({"tool_name": "Bash", "tool_input": {"command": "node scripts/report.js"}})
    assert_well_formed("pretooluse", answer("claude-code", "pretooluse", nudge.encode()))


@pytest.mark.parametrize(
    ("host", "output"),
    [
        ("claude-code", lambda path: {"stdout": "row 1\n", "persistedOutputPath": path}),
        ("copilot-cli", lambda path: f"Output too large to read at once (9 KB). Saved to: {path}\nrow 1"),
        ("qwen-code", lambda path: {"llmContent": f"Too large.\nThe full output has been saved to: {path}\n"}),
    ],
)  # fmt: skip
def test_a_host_that_kept_a_preview_gets_the_saved_whole_output_indexed(
    data_root, tmp_path, host, output
):
    saved = tmp_path / "saved.txt"
    saved.write_text(BIG_SHELL_OUTPUT)
    result = output(str(saved))
    key = "toolResult" if host == "copilot-cli" else "tool_response"
    value = {"textResultForLlm": result} if host == "copilot-cli" else result
    tool = "bash" if host == "copilot-cli" else "Bash"
    payload = {"tool_name": tool, "toolName": tool, key: value, "cwd": str(tmp_path)}
    answered = answer(host, "posttooluse", json.dumps(payload).encode()).stdout
    assert "planted-fact-77" in answered and "full output indexed" in answered


def test_a_saved_to_line_in_the_command_output_names_no_file(data_root, tmp_path):
    secret = tmp_path / "not-the-output.txt"
    secret.write_text("x" * 50_000)
    printed = "".join(f"line {i}\n" for i in range(300)) + f"Saved to: {secret}\n"
    payload = {"tool_name": "Bash", "cwd": str(tmp_path), "tool_response": printed}
    assert answer("codex", "posttooluse", json.dumps(payload).encode()).stdout == "{}"
