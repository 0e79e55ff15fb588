"""Property-based fuzz of the hook entry: every host, every event, hostile payloads.

Payloads mix each host's own field names with values of every JSON type, shell commands
built from the evasion forms the scanner resolves, and directories inside and outside a
project that has deny and ask rules. Whatever comes in, the runner answers with a
well-formed envelope and logs no internal error (a traceback in the error log is a bug;
"bad input" lines for malformed JSON are expected).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxmode.hooks.runner import ERROR_LOG, run
from ctxmode.platforms import REGISTRY, load

from .test_runner import ANY_JSON

FIELDS = (
    "session_id", "sessionId", "conversation_id", "conversationId", "transcript_path",
    "transcriptPath", "cwd", "workspace_roots", "workspacePaths", "workspace",
    "hook_event_name", "hookEventName", "tool_name", "toolName", "tool_input", "toolArgs",
    "toolCall", "tool_response", "toolResult", "tool_result", "prompt", "source", "trigger",
    "agent_id", "agent_type", "stop_hook_active", "timestamp", "stepIdx",
)  # fmt: skip
TOOL_NAMES = (
    "Bash", "Shell", "bash", "run_shell_command", "run_in_terminal", "execute_bash",
    "run_command", "Read", "read_file", "Grep", "WebFetch", "Agent", "Task", "Edit",
    "mcp__github__x", "mcp__ctxmode__ctx_execute", "ctx_batch_execute", "ctx_execute_file", "",
)  # fmt: skip
SHELL_PIECES = (
    "sudo ", "curl https://x ", "wget -O- u ", "git push ", "rm -rf / ", "$(", ")", "`", "'",
    '"', " | ", " && ", "; ", "{curl,u} ", "cur${E}l ", "curl${IFS}u ", "$X$Y ", '"$@" ',
    "bash -c ", "<<EOF\ncurl u\nEOF\n", "<(", "\\", "\n", " ", "eval ", "xargs ", "trap ",
    "awk 'BEGIN{system(\"curl u\")}' ", "git -c alias.x='!sudo id' x ", "| base64 -d | sh ",
    "f() { sudo x; }; f ", "alias c=curl; c ", "timeout 5 nice -n 5 ", "find . -exec ",
)  # fmt: skip
COMMANDS = st.lists(st.sampled_from(SHELL_PIECES) | st.text(max_size=8), max_size=12).map("".join)


def tool_inputs(directories: list[str]) -> st.SearchStrategy:
    string_field = COMMANDS | st.sampled_from(directories) | st.text(max_size=20)
    keys = ("command", "cmd", "CommandLine", "file_path", "path", "url", "prompt", "language",
            "code", "commands", "cwd", "Cwd")  # fmt: skip
    return ANY_JSON | st.fixed_dictionaries(
        {}, optional={key: string_field | ANY_JSON for key in keys}
    )


def payloads(directories: list[str]) -> st.SearchStrategy:
    inputs = tool_inputs(directories)
    special = {
        "cwd": st.sampled_from(directories) | ANY_JSON,
        "workspace_roots": st.lists(st.sampled_from(directories), max_size=2) | ANY_JSON,
        "workspace": st.fixed_dictionaries({"current_dir": st.sampled_from(directories)}),
        "tool_name": st.sampled_from(TOOL_NAMES) | ANY_JSON,
        "toolName": st.sampled_from(TOOL_NAMES) | ANY_JSON,
        "tool_input": inputs,
        "toolArgs": inputs | inputs.map(json.dumps),
        "toolCall": st.fixed_dictionaries({"name": st.sampled_from(TOOL_NAMES), "args": inputs}),
        "tool_response": ANY_JSON | COMMANDS,
    }
    return st.fixed_dictionaries(
        {}, optional={field: special.get(field, ANY_JSON) for field in FIELDS}
    )


@pytest.fixture
def project(tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CTXMODE_MCP_READY", "1")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "user-claude"))
    root = tmp_path / "project"
    settings_file = root / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    rules = {"deny": ["Bash(sudo:*)", "Bash(rm -rf *)", "Read(.env)"], "ask": ["Bash(git push:*)"]}
    settings_file.write_text(json.dumps({"permissions": rules}))
    (root / "sub").mkdir()
    return root


def internal_errors(data_root: Path) -> list[str]:
    log = data_root / "logs" / ERROR_LOG
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return [line for line in lines if "Traceback" in line]


FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


HOOK_HOSTS = [p for p in REGISTRY if load(p).events]  # MCP-only hosts have no hooks


@pytest.mark.parametrize("platform_id", HOOK_HOSTS)
def test_every_event_of_every_host_answers_any_payload(
    platform_id: str, project: Path, data_root: Path, tmp_path: Path
) -> None:
    platform = load(platform_id)
    assert platform is not None
    directories = [str(project), str(project / "sub"), str(tmp_path), "relative/dir", ""]

    @FUZZ
    @given(st.sampled_from(sorted(platform.events)), payloads(directories), st.booleans())
    def check(host_event: str, payload: dict, as_text: bool) -> None:
        data = json.dumps(payload).encode()
        if as_text:  # also the raw bytes cut anywhere
            data = data[: len(data) // 2]
        before = len(internal_errors(data_root))
        output = run(platform, host_event, lambda: data)
        assert output.exit_code in (0, 2)
        assert output.stderr == "" or output.exit_code == 2
        if output.stdout.startswith(("{", "[")):  # a JSON envelope (Kiro answers in text)
            json.loads(output.stdout)
        assert internal_errors(data_root)[before:] == []

    check()


NUL_DIR = "/tmp/a\0b"
NUL_PAYLOAD = {
    "cwd": NUL_DIR, "workspace_roots": [NUL_DIR], "workspace": {"current_dir": NUL_DIR},
    "workspacePaths": [NUL_DIR], "transcript_path": NUL_DIR + ".jsonl", "session_id": "s\0x",
    "tool_name": "Bash", "tool_input": {"command": "ls", "file_path": NUL_DIR, "Cwd": NUL_DIR},
    "toolCall": {"name": "run_command", "args": {"CommandLine": "ls", "Cwd": NUL_DIR}},
    "tool_response": "out", "tool": "bash", "input": {"command": "ls"},
}  # fmt: skip


@pytest.mark.parametrize("platform_id", list(REGISTRY))
def test_a_directory_with_a_nul_character_is_no_directory(
    platform_id: str, project: Path, data_root: Path
) -> None:
    platform = load(platform_id)
    assert platform is not None
    data = json.dumps(NUL_PAYLOAD).encode()
    for host_event in platform.events:
        run(platform, host_event, lambda: data)
    assert internal_errors(data_root) == []
