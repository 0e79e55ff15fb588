"""`ctxmode session ...` in real processes: guard, budget, checkpoints, secrets, audit, naming."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import CTXMODE, ctx


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    made = {
        "prod": tmp_path / "data" / "prod" / "archive",
        "test": tmp_path / "data" / "test" / "logs",
    }
    for path in made.values():
        path.mkdir(parents=True)
    return made


def config_file() -> Path:
    path = Path(os.environ["CTXMODE_CONFIG_DIR"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_build_outside_the_workspace_stops_with_exit_3(dirs: dict[str, Path]) -> None:
    assert (
        ctx(
            "session",
            "record",
            "--session",
            "pa",
            "--role",
            "user",
            "--content",
            "bulk replace in the archive",
            cwd=dirs["prod"],
        ).returncode
        == 0
    )
    stopped = ctx("session", "build", "--session", "pa", cwd=dirs["test"])
    assert stopped.returncode == 3
    assert stopped.stdout == ""
    assert str(dirs["test"].resolve()) in stopped.stderr
    assert str(dirs["prod"].resolve()) in stopped.stderr
    assert "--confirm" in stopped.stderr and "session switch" in stopped.stderr


def test_confirm_builds_anyway_and_shows_both_directories(dirs: dict[str, Path]) -> None:
    ctx("session", "summary", "--session", "pa", "archive cleanup", cwd=dirs["prod"])
    built = ctx("session", "build", "--session", "pa", "--confirm", cwd=dirs["test"])
    assert built.returncode == 0, built.stderr
    assert f"Current directory: {dirs['test'].resolve()}" in built.stdout
    assert f"Session workspace: {dirs['prod'].resolve()}" in built.stdout


def test_switch_rebinds_the_session_to_the_new_workspace(dirs: dict[str, Path]) -> None:
    ctx("session", "summary", "--session", "pa", "archive cleanup", cwd=dirs["prod"])
    switched = ctx(
        "session", "switch", "--session", "pa", "--workspace", str(dirs["test"]), cwd=dirs["prod"]
    )
    assert switched.returncode == 0, switched.stderr
    assert ctx("session", "build", "--session", "pa", cwd=dirs["test"]).returncode == 0
    assert ctx("session", "build", "--session", "pa", cwd=dirs["prod"]).returncode == 3


def test_subdirectories_and_symlinks_into_the_workspace_are_inside(
    dirs: dict[str, Path], tmp_path: Path
) -> None:
    ctx("session", "summary", "--session", "pa", "x", cwd=dirs["prod"])
    sub = dirs["prod"] / "2024"
    sub.mkdir()
    link = tmp_path / "shortcut"
    link.symlink_to(dirs["prod"])
    assert ctx("session", "build", "--session", "pa", cwd=sub).returncode == 0
    assert ctx("session", "build", "--session", "pa", cwd=link).returncode == 0
    # A sibling whose name merely starts with the workspace's is outside.
    sibling = dirs["prod"].parent / "archive-old"
    sibling.mkdir()
    assert ctx("session", "build", "--session", "pa", cwd=sibling).returncode == 3


def test_the_scope_window_and_char_budget_apply_with_a_fold_marker(
    dirs: dict[str, Path],
) -> None:
    config_file().write_text(
        f'[[scopes]]\npath = "{dirs["prod"]}"\nsession = "pa"\nwindow = 3\nmax_chars = 800\n'
    )
    for i in range(15):
        ctx(
            "session",
            "record",
            "--role",
            "tool",
            "--content",
            f"step {i}: " + "w" * 80,
            cwd=dirs["prod"],
        )
    built = ctx("session", "build", cwd=dirs["prod"])  # the scope names the session
    assert built.returncode == 0, built.stderr
    block = built.stdout.rstrip("\n")
    assert len(block) <= 800
    assert block.startswith("Session pa ")
    assert re.search(r"\[\.\.\. \d+ earlier entries folded \.\.\.\]", block)
    recent = block[block.index("Recent entries:") :]
    assert all(f"step {i}: {'w' * 80}" in recent for i in (12, 13, 14))
    assert "step 11: " not in recent


def test_checkpoints_are_marked_confirmed_or_unverified(dirs: dict[str, Path]) -> None:
    ctx("session", "checkpoint", "--session", "pa", "errors begin at 02:13", cwd=dirs["prod"])
    ctx(
        "session",
        "checkpoint",
        "--session",
        "pa",
        "disk full is the cause",
        "--confirmed",
        cwd=dirs["prod"],
    )
    block = ctx("session", "build", "--session", "pa", cwd=dirs["prod"]).stdout
    assert re.search(r"checkpoint UNVERIFIED [^\]]*\] errors begin at 02:13", block)
    assert re.search(r"checkpoint confirmed [^\]]*\] disk full is the cause", block)


SECRETS = {
    "github token": "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    "anthropic key": "sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f",
    "aws key id": "AKIAIOSFODNN7EXAMPLE",
    "bearer header": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz",
    "password": "DB_PASSWORD=correct-horse-battery",
    "private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAs3cr3t\n-----END RSA PRIVATE KEY-----",
    "connection string": "postgres://app:pg-s3cret-pw@db.internal:5432/app",
}
SECRET_VALUES = [
    SECRETS["github token"],
    SECRETS["anthropic key"],
    SECRETS["aws key id"],
    "c2lnbmF0dXJlMTIz",
    "correct-horse-battery",
    "MIIEowIBAAKCAQEAs3cr3t",
    "pg-s3cret-pw",
]


def stored_bytes() -> bytes:
    root = Path(os.environ["CTXMODE_DIR"])
    return b"".join(p.read_bytes() for p in root.glob("memory.db*"))


@pytest.mark.parametrize("kind", list(SECRETS))
def test_each_kind_of_secret_is_filtered_before_it_is_written(
    dirs: dict[str, Path], kind: str
) -> None:
    text = f"output of the step: {SECRETS[kind]} (end)"
    ctx(
        "session",
        "record",
        "--session",
        "pa",
        "--role",
        "tool",
        "--content",
        "-",
        stdin=text,
        cwd=dirs["prod"],
    )
    shown = ctx("session", "show", "--session", "pa", cwd=dirs["prod"]).stdout
    assert "[FILTERED]" in shown
    assert "(end)" in shown and "output of the step:" in shown
    data = stored_bytes()
    for value in SECRET_VALUES:
        if value in SECRETS[kind]:
            assert value not in shown
            assert value.encode() not in data


def test_summaries_and_checkpoints_are_filtered_too(dirs: dict[str, Path]) -> None:
    ctx("session", "summary", "--session", "pa", "api_key: k-778899", cwd=dirs["prod"])
    ctx("session", "checkpoint", "--session", "pa", "token=abc.def.ghi works", cwd=dirs["prod"])
    shown = ctx("session", "show", "--session", "pa", cwd=dirs["prod"]).stdout
    assert "k-778899" not in shown and "abc.def.ghi" not in shown
    assert b"k-778899" not in stored_bytes()


def test_private_addresses_are_filtered_only_when_configured(dirs: dict[str, Path]) -> None:
    ctx(
        "session",
        "record",
        "--session",
        "pa",
        "--role",
        "tool",
        "--content",
        "timeout talking to 10.20.30.40",
        cwd=dirs["prod"],
    )
    config_file().write_text("private_networks = true\n")
    ctx(
        "session",
        "record",
        "--session",
        "pa",
        "--role",
        "tool",
        "--content",
        "timeout talking to 192.168.7.8",
        cwd=dirs["prod"],
    )
    shown = ctx("session", "show", "--session", "pa", cwd=dirs["prod"]).stdout
    assert "10.20.30.40" in shown
    assert "192.168.7.8" not in shown and "talking to [FILTERED]" in shown


def test_every_read_is_appended_to_the_audit_log(dirs: dict[str, Path]) -> None:
    ctx("session", "summary", "--session", "pa", "x", cwd=dirs["prod"])
    ctx("session", "build", "--session", "pa", cwd=dirs["prod"])
    ctx("session", "show", "--session", "pa", cwd=dirs["prod"])
    ctx("session", "build", "--session", "pa", cwd=dirs["test"])  # stopped: no read
    log = Path(os.environ["CTXMODE_DIR"]) / "logs" / "session-audit.log"
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    pattern = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\tsession=pa\tcommand=(build|show)"
    assert all(re.fullmatch(pattern, line) for line in lines)
    assert [line.rsplit("=", 1)[1] for line in lines] == ["build", "show"]


def test_config_prints_the_config_path_first(dirs: dict[str, Path]) -> None:
    shown = ctx("session", "config", cwd=dirs["prod"])
    expected = Path(os.environ["CTXMODE_CONFIG_DIR"]) / "config.toml"
    assert shown.stdout.splitlines()[0] == str(expected)
    assert "allowed_commands: (none" in shown.stdout


def test_a_broken_config_is_a_one_line_error(dirs: dict[str, Path]) -> None:
    config_file().write_text("allowed_commands = 'grep'\n")
    result = ctx("session", "build", "--session", "pa", cwd=dirs["prod"])
    assert result.returncode == 1
    assert "config.toml: allowed_commands must be a list of strings" in result.stderr


def test_a_task_word_derives_a_name_that_subdirectories_continue(dirs: dict[str, Path]) -> None:
    made = ctx(
        "session", "record", "--task", "log", "--role", "user", "--content", "a", cwd=dirs["prod"]
    )
    assert "session prod-archive-log:" in made.stdout
    sub = dirs["prod"] / "2024"
    sub.mkdir()
    again = ctx("session", "record", "--task", "log", "--role", "user", "--content", "b", cwd=sub)
    assert "session prod-archive-log:" in again.stdout
    listed = ctx("session", "list", cwd=dirs["prod"]).stdout
    assert listed.startswith("prod-archive-log\t2 entries\t")


def test_every_terminal_in_one_directory_reaches_the_same_session_unless_one_is_named(
    dirs: dict[str, Path],
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CTXMODE_SESSION"}
    record = [*CTXMODE, "session", "record", "--role", "user", "--content", "x"]
    # Two shells (two parent processes, no tty) stand for two terminals or scripts.
    for _ in range(2):
        subprocess.run(
            [sys.executable, "-c", f"import subprocess; subprocess.run({record!r})"],
            cwd=dirs["prod"],
            env=env,
            check=True,
            timeout=60,
        )
    listed = ctx("session", "list", cwd=dirs["prod"]).stdout
    assert listed.startswith("prod-archive\t2 entries\t") and len(listed.splitlines()) == 1
    ctx(
        "session", "record", "--role", "user", "--content", "y", cwd=dirs["prod"],
        env={**env, "CTXMODE_SESSION": "shared"},
    )  # fmt: skip
    assert "shared\t1 entries" in ctx("session", "list", cwd=dirs["prod"]).stdout


def test_flush_deletes_and_truncate_compacts(dirs: dict[str, Path]) -> None:
    for i in range(12):
        ctx(
            "session",
            "record",
            "--session",
            "pa",
            "--role",
            "tool",
            "--content",
            f"rotated segment {i} of nginx access log",
            cwd=dirs["prod"],
        )
    truncated = ctx("session", "truncate", "--session", "pa", cwd=dirs["prod"])
    assert "folded 8 entries into the summary, kept 4" in truncated.stdout
    block = ctx("session", "build", "--session", "pa", cwd=dirs["prod"]).stdout
    assert re.search(r"Summary: key terms: .*rotated.*nginx", block)
    assert "(ctxmode session memory, 4 entries)" in block
    assert "deleted" in ctx("session", "flush", "--session", "pa", cwd=dirs["prod"]).stdout
    assert "no sessions" in ctx("session", "list", cwd=dirs["prod"]).stdout
    with sqlite3.connect(Path(os.environ["CTXMODE_DIR"]) / "memory.db") as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
    conn.close()


def test_show_of_an_unknown_session_is_a_clear_error(dirs: dict[str, Path]) -> None:
    result = ctx("session", "show", "--session", "nope", cwd=dirs["prod"])
    assert result.returncode == 1 and "no session named 'nope'" in result.stderr


def test_every_session_subcommand_has_help(dirs: dict[str, Path]) -> None:
    names = [
        "config",
        "build",
        "record",
        "checkpoint",
        "summary",
        "flush",
        "switch",
        "truncate",
        "list",
        "show",
    ]
    for name in names:
        result = ctx("session", name, "--help", cwd=dirs["prod"])
        assert result.returncode == 0 and "Usage:" in result.stdout
