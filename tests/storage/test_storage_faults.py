"""Fault drills: a full disk, a read-only data root, damaged pages, a lock, `kill -9` mid-write.

Each drill runs the real command line, MCP server or hook process and checks what a user
or a model is told (one line, the file and the cause, the documented exit code) and that
no healthy database is ever moved aside or loses what it held.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ctxmode.storage import project
from support.cli import CTXMODE, ctx
from support.damage import damage_pages
from support.small_disk import SmallDisk

EXIT_STORAGE, EXIT_LOCKED = 4, 5
BIG_DOC = ("# Section\n\n" + "payload words that fill the disk " * 60 + "\n\n") * 1500  # ~3 MB


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    small = SmallDisk(tmp_path / "disk", "4m")
    yield small
    small.close()


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """A project with a few documents, each with its own marker word."""
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    for i in range(40):
        (root / "docs" / f"doc{i}.md").write_text(f"# Doc {i}\n\nhealthy marker{i} text\n")
    (root / "big.md").write_text(BIG_DOC)
    return root


def one_line_error(done: subprocess.CompletedProcess[str], *causes: str) -> str:
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    assert any(cause in lines[0] for cause in causes), lines[0]
    return lines[0]


def moved_aside(data_root: Path) -> list[str]:
    projects = data_root / "projects"
    return [name for name in os.listdir(projects) if ".corrupt-" in name]


def mcp_session(command: list[str], env: dict[str, str], cwd: Path, scenario) -> object:
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(cwd))

    async def main() -> object:
        async with Client(params, read_timeout_seconds=120) as client:

            async def call(tool: str, **arguments: object) -> tuple[str, bool]:
                result = await client.call_tool(tool, arguments)
                text = "\n".join(b.text for b in result.content if getattr(b, "text", None))
                return text, bool(result.is_error)

            return await scenario(call)

    return anyio.run(main)


def assert_tool_error(text: str, is_error: bool, *causes: str) -> None:
    assert is_error and "Traceback" not in text
    assert len(text.strip().splitlines()) == 1, text
    assert any(cause in text for cause in causes), text


def after_bash(
    disk: SmallDisk, proj: Path, env: dict[str, str], command: str, stdout: str
) -> subprocess.CompletedProcess[str]:
    """Claude Code's PostToolUse hook process for a Bash call, run on the small disk."""
    payload = {
        "session_id": "s1",
        "cwd": str(proj),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": ""},
    }
    argv = [*CTXMODE, "hook", "claude-code", "posttooluse"]
    return disk.run(argv, cwd=proj, env=env, input=json.dumps(payload))


# ---------------------------------------------------------------- a full disk


def test_full_disk_through_the_command_line_is_one_line_and_keeps_everything(disk, proj):
    env = {**os.environ, "CTXMODE_DIR": str(disk.mountpoint)}

    def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return disk.run([*CTXMODE, *args], cwd=proj, env=env, input=stdin)

    assert cli("index", "docs").returncode == 0
    assert (
        cli("session", "record", "--session", "s1", "--role", "user", "--content", "a").returncode
        == 0
    )
    disk.fill()
    done = cli("index", "big.md")
    assert done.returncode == EXIT_STORAGE
    line = one_line_error(done, "the disk is full", "I/O error")
    assert project.project_key(str(proj.resolve())) in line and "left as it is" in line
    done = cli(
        "session", "record", "--session", "s1", "--role", "user", "--content", "-", stdin=BIG_DOC
    )
    assert done.returncode == EXIT_STORAGE
    one_line_error(done, "the disk is full", "I/O error")
    assert moved_aside(disk.seen_from_outside()) == []
    disk.free()
    found = cli("search", "marker7")
    assert found.returncode == 0 and "healthy marker7" in found.stdout
    shown = cli("session", "show", "--session", "s1")
    assert shown.returncode == 0 and "a" in shown.stdout


def test_full_disk_through_the_mcp_server_is_a_tool_error_and_keeps_everything(disk, proj):
    env = {**os.environ, "CTXMODE_DIR": str(disk.mountpoint)}
    server = [*disk.prefix(proj), *CTXMODE, "serve"]

    async def scenario(call) -> None:
        text, is_error = await call("ctx_index", content="healthy marker1 text", source="before")
        assert not is_error, text
        disk.fill()
        text, is_error = await call("ctx_index", content=BIG_DOC, source="big")
        assert_tool_error(text, is_error, "the disk is full", "I/O error")
        assert text.startswith("ctx_index: database ")
        disk.free()
        text, is_error = await call("ctx_search", queries=["marker1"], source="before")
        assert not is_error and "healthy marker1" in text, text

    mcp_session(server, env, proj, scenario)
    assert moved_aside(disk.seen_from_outside()) == []


# ---------------------------------------------------------------- a read-only data root


def test_read_only_data_root_is_one_line_everywhere_and_the_hook_carries_on(disk, proj):
    env = {**os.environ, "CTXMODE_DIR": str(disk.mountpoint)}
    assert disk.run([*CTXMODE, "index", "docs"], cwd=proj, env=env).returncode == 0
    disk.make_read_only()
    done = disk.run([*CTXMODE, "index", "big.md"], cwd=proj, env=env)
    assert done.returncode == EXIT_STORAGE
    one_line_error(done, "read-only")
    hook = after_bash(disk, proj, env, "ls", "a\nb\n")
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr

    async def scenario(call) -> None:
        text, is_error = await call("ctx_index", content="more text", source="more")
        assert_tool_error(text, is_error, "read-only")

    mcp_session([*disk.prefix(proj), *CTXMODE, "serve"], env, proj, scenario)
    assert moved_aside(disk.seen_from_outside()) == []


# ---------------------------------------------------------------- damaged pages


def _damage_search_index(proj: Path) -> None:
    assert ctx("index", "docs", cwd=proj).returncode == 0
    path = Path(project.project_db_path(str(proj.resolve())))
    assert damage_pages(path, "kb_fts_data", every=1) > 0


def test_damaged_pages_through_the_command_line_are_repaired_and_counted(proj, data_root):
    _damage_search_index(proj)
    done = ctx("search", "marker7", cwd=proj)
    assert done.returncode == EXIT_STORAGE
    line = one_line_error(done, "was damaged")
    assert re.search(r"recovered 40 sources, 40 chunks, 0 session events", line), line
    assert "run it again" in line and len(moved_aside(data_root)) == 1
    again = ctx("search", "marker7", cwd=proj)
    assert again.returncode == 0 and "healthy marker7" in again.stdout, again.stderr


def test_damaged_pages_through_the_mcp_server_are_repaired_and_counted(proj, data_root):
    _damage_search_index(proj)

    async def scenario(call) -> None:
        text, is_error = await call("ctx_search", queries=["marker7"])
        assert_tool_error(text, is_error, "was damaged")
        assert "recovered 40 sources" in text
        text, is_error = await call("ctx_search", queries=["marker7"])
        assert not is_error and "healthy marker7" in text, text

    mcp_session([*CTXMODE, "serve"], dict(os.environ), proj, scenario)
    assert len(moved_aside(data_root)) == 1


# ---------------------------------------------------------------- a lock, kill -9


def test_a_database_locked_too_long_is_exit_5_and_nothing_moves(proj, data_root):
    assert ctx("index", "docs", cwd=proj).returncode == 0
    holder = sqlite3.connect(project.project_db_path(str(proj.resolve())), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        done = ctx("index", "big.md", cwd=proj)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode == EXIT_LOCKED
    one_line_error(done, "locked")
    assert moved_aside(data_root) == []


def test_kill_9_in_the_middle_of_a_write_leaves_a_healthy_database(proj, data_root):
    assert ctx("index", "docs", cwd=proj).returncode == 0
    (proj / "huge.md").write_text(BIG_DOC * 6)
    killed_mid_write = 0
    for delay in (0.5, 1.0, 2.0):
        writer = subprocess.Popen([*CTXMODE, "index", "huge.md"], cwd=proj)
        time.sleep(delay)
        killed_mid_write += writer.poll() is None
        writer.kill()
        writer.wait(timeout=30)
    assert killed_mid_write >= 1
    found = ctx("search", "marker3", cwd=proj)
    assert found.returncode == 0 and "healthy marker3" in found.stdout, found.stderr
    assert moved_aside(data_root) == []
    conn = sqlite3.connect(project.project_db_path(str(proj.resolve())))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0] >= 40
    conn.close()


def test_the_hook_on_a_full_disk_answers_and_moves_nothing(disk, proj):
    env = {**os.environ, "CTXMODE_DIR": str(disk.mountpoint)}
    assert disk.run([*CTXMODE, "index", "docs"], cwd=proj, env=env).returncode == 0
    disk.fill()
    hook = after_bash(disk, proj, env, "cat big.md", BIG_DOC)
    assert hook.returncode == 0 and "Traceback" not in hook.stderr + hook.stdout
    assert moved_aside(disk.seen_from_outside()) == []


# ---------------------------------------------------------------- every tool, every command

EVERY_TOOL = [
    ("ctx_execute", {"language": "shell", "code": "seq 1 100000"}),
    ("ctx_execute_file", {"path": "docs/doc1.md", "language": "shell", "code": "wc -l"}),
    ("ctx_batch_execute", {"commands": ["seq 1 100000"], "queries": ["5000"]}),
    ("ctx_index", {"content": "more text", "source": "more"}),
    ("ctx_search", {"queries": ["marker1"]}),
    ("ctx_fetch_and_index", {"url": "http://127.0.0.1:9/none"}),
    ("ctx_stats", {}),
    ("ctx_doctor", {}),
    ("ctx_purge", {"confirm": True}),
    ("ctx_insight", {}),
    ("ctx_upgrade", {}),
]
EVERY_COMMAND = [
    ["index", "docs"],
    ["search", "marker1"],
    ["purge", "--yes"],
    ["stats"],
    ["doctor"],
    ["session", "record", "--session", "s1", "--role", "user", "--content", "x"],
    ["session", "list"],
    ["run", "--session", "s1", "--", "true"],
]


def test_every_tool_and_command_on_a_read_only_data_root_answers_in_one_line(disk, proj):
    env = {**os.environ, "CTXMODE_DIR": str(disk.mountpoint)}
    assert disk.run([*CTXMODE, "index", "docs"], cwd=proj, env=env).returncode == 0
    disk.make_read_only()
    for args in EVERY_COMMAND:
        done = disk.run([*CTXMODE, *args], cwd=proj, env=env)
        assert "Traceback" not in done.stdout + done.stderr, args
        assert len(done.stderr.strip().splitlines()) <= 1, (args, done.stderr)
        assert done.returncode in (0, 1, EXIT_STORAGE), (args, done.returncode)

    async def scenario(call) -> None:
        for tool, arguments in EVERY_TOOL:
            text, is_error = await call(tool, **arguments)
            assert "Traceback" not in text, tool
            if is_error:
                assert len(text.strip().splitlines()) == 1, (tool, text)

    mcp_session([*disk.prefix(proj), *CTXMODE, "serve"], env, proj, scenario)
    assert moved_aside(disk.seen_from_outside()) == []
