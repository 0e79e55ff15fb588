"""The project's permission rules hold on every host, from any directory, through real hooks.

Each host's own PreToolUse shell fixture is replayed through a real `ctxmode hook` process
with the command swapped for `sudo ls`, from a subdirectory of the project, and from a
directory outside it while the host names the project in its environment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxmode.platforms import REGISTRY, load

from .hookproc import hook_env, run_hook

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SHELL_FIXTURE = {
    "gemini-cli": "beforetool-bash-ls",
    "qwen-code": "pretooluse-shell-git-status",
}
FIXTURE_COMMANDS = ('"ls -la src"', '"ls -la"', '"git status --short"')
FIXTURE_DIRS = ('"/tmp/ctxmode-fixture-project"', '"/p"')
DENIED = "Blocked by security policy"


def pre_tool_use_event(platform_id: str) -> str:
    platform = load(platform_id)
    assert platform is not None
    return next(name for name, canonical in platform.events.items() if canonical == "pre_tool_use")


# Plugin hosts have no recorded hook payload: the shim's payload, as its module documents.
PLUGIN_PAYLOADS = {
    "dsh": {
        "tool": "bash",
        "input": {"command": "ls -la"},
        "cwd": "/p",
        "sessionId": "s1",
        "tools": ["bash", "mcp__ctxmode__ctx_execute"],
    },
    **{
        host: {
            "tool": "bash",
            "input": {"command": "ls -la"},
            "cwd": "/p",
            "sessionId": "s1",
            "tools": ["context-mode_ctx_execute"],
        }
        for host in ("opencode", "kilo")
    },
    **{
        host: {
            "tool": "bash",
            "input": {"command": "ls -la"},
            "cwd": "/p",
            "sessionId": "s1",
            "tools": ["ctx_execute"],  # the extension registers our tools under bare names
        }
        for host in ("pi", "omp")
    },
    "openclaw": {
        "tool": "exec",
        "input": {"command": "ls -la"},
        "cwd": "/p",
        "sessionId": "s1",
        "tools": ["context-mode__ctx_execute"],
    },
}


def shell_payload(platform_id: str, command: str, directory: Path) -> str:
    if platform_id in PLUGIN_PAYLOADS:
        text = json.dumps(PLUGIN_PAYLOADS[platform_id])
        text = text.replace('"ls -la"', json.dumps(command))
        return text.replace('"/p"', json.dumps(str(directory)))
    name = SHELL_FIXTURE.get(platform_id, "pretooluse-bash-ls")
    text = (FIXTURES / platform_id / f"{name}.json").read_text(encoding="utf-8")
    for original in FIXTURE_COMMANDS:
        text = text.replace(original, json.dumps(command))
    for original in FIXTURE_DIRS:
        text = text.replace(original, json.dumps(str(directory)))
    assert json.dumps(command) in text and json.dumps(str(directory)) in text
    return text


def project_env_names(platform_id: str) -> tuple[str, ...]:
    platform = load(platform_id)
    assert platform is not None
    return platform.project_env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(sudo:*)"]}}))
    (root / "src" / "deep").mkdir(parents=True)
    return root


def answer(platform_id: str, payload: str, tmp_path: Path, **env: str) -> str:
    base = hook_env(CTXMODE_DIR=str(tmp_path / "data"), CLAUDE_CONFIG_DIR=str(tmp_path / "u"))
    for names in map(project_env_names, REGISTRY):
        for name in names:
            base.pop(name, None)
    result = run_hook(platform_id, pre_tool_use_event(platform_id), payload, {**base, **env})
    return result.stdout.decode() + result.stderr.decode()


HOOK_HOSTS = [p for p in REGISTRY if load(p).events]  # MCP-only hosts have no hooks


@pytest.mark.parametrize("platform_id", HOOK_HOSTS)
def test_deny_rules_hold_from_a_subdirectory(platform_id: str, project: Path, tmp_path: Path):
    payload = shell_payload(platform_id, "sudo ls", project / "src" / "deep")
    assert DENIED in answer(platform_id, payload, tmp_path)
    harmless = shell_payload(platform_id, "echo sudo", project / "src" / "deep")
    assert DENIED not in answer(platform_id, harmless, tmp_path)


@pytest.mark.parametrize(
    "platform_id", [p for p in REGISTRY if project_env_names(p)]
)  # hosts that name the project in their environment
def test_the_hosts_project_variable_wins_over_the_payload_directory(
    platform_id: str, project: Path, tmp_path: Path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    payload = shell_payload(platform_id, "sudo ls", outside)
    name = project_env_names(platform_id)[0]
    assert DENIED in answer(platform_id, payload, tmp_path, **{name: str(project)})
    assert DENIED not in answer(platform_id, payload, tmp_path)
