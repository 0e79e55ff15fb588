"""`ctxmode doctor --e2e`: the registered hooks and MCP server run, with real processes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from support.cli import ctx

HOST_HOMES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_CODE_HOME", "KIMI_SHARE_DIR")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An empty home: no host has ctxmode set up until a test runs setup."""
    home = tmp_path / "home"
    home.mkdir()
    kept = {k: v for k, v in os.environ.items() if k not in HOST_HOMES and k != "XDG_CONFIG_HOME"}
    return {**kept, "HOME": str(home)}


def doctor_e2e(tmp_path: Path, env: dict[str, str]):
    return ctx("doctor", "--e2e", cwd=tmp_path, env=env, timeout=300)


def end_to_end_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "end to end" in line]


def test_set_up_hosts_work_end_to_end(tmp_path: Path, env: dict[str, str]) -> None:
    for host in ("claude-code", "codex"):
        assert ctx("setup", host, cwd=tmp_path, env=env).returncode == 0
    done = doctor_e2e(tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = end_to_end_lines(done.stdout)
    assert [line.split(":")[0] for line in lines] == [
        "[OK] claude-code end to end",
        "[OK] codex end to end",
    ]
    registered = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    assert f"{len(registered['hooks'])} hooks answered, MCP server lists 11 tools" in lines[0]


def test_a_broken_hook_and_a_broken_server_are_named_with_the_fix(
    tmp_path: Path, env: dict[str, str]
) -> None:
    assert ctx("setup", "claude-code", cwd=tmp_path, env=env).returncode == 0
    home = Path(env["HOME"])
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace(sys.executable, "/gone/venv/bin/python"))
    state = home / ".claude.json"
    servers = json.loads(state.read_text())
    servers["mcpServers"]["context-mode"]["args"] = ["no-such-command"]
    state.write_text(json.dumps(servers))

    broken = doctor_e2e(tmp_path, env)
    assert broken.returncode == 1
    [line] = end_to_end_lines(broken.stdout)
    assert line.startswith("[FAIL] claude-code end to end: broken: hooks pretooluse, ")
    assert "exited 127" in line and "MCP server" in line
    assert line.endswith("(fix: ctxmode setup claude-code)")

    assert ctx("setup", "claude-code", cwd=tmp_path, env=env).returncode == 0  # the fix
    fixed = doctor_e2e(tmp_path, env)
    assert fixed.returncode == 0, fixed.stdout


def test_a_project_scope_setup_is_checked_with_its_own_fix(
    tmp_path: Path, env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert (
        ctx("setup", "claude-code", "--project", str(project), cwd=project, env=env).returncode == 0
    )
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {}}))  # server entry lost
    done = ctx("doctor", "--e2e", "--project", str(project), cwd=project, env=env, timeout=300)
    assert done.returncode == 1
    [line] = end_to_end_lines(done.stdout)
    assert "no MCP server registered" in line
    assert line.endswith(f"(fix: ctxmode setup claude-code --project {project})")


def test_no_host_set_up_fails_end_to_end(tmp_path: Path, env: dict[str, str]) -> None:
    done = doctor_e2e(tmp_path, env)
    assert done.returncode == 1
    assert "no host has ctxmode set up" in done.stdout
