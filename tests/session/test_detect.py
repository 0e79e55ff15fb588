"""Cross-call detectors keep their state in the database: each call here opens its own connection,
as each hook process does."""

from __future__ import annotations

from pathlib import Path

from ctxmode.session import store
from ctxmode.session.capture import capture_tool_call
from ctxmode.session.detect import command_key
from ctxmode.storage import schema
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import HookEvent


def bash(root: Path, command: str, stdout: str, sid: str = "s") -> None:
    capture_tool_call(
        HookEvent("claude-code", ev.POST_TOOL_USE, tool="Bash", tool_input={"command": command},
                  tool_output={"stdout": stdout, "stderr": ""}, session_id=sid, project_dir=str(root))
    )  # fmt: skip


def events(root: Path, sid: str = "s") -> list[tuple[str, str, int | None, int]]:
    conn = schema.open_project_db(str(root))
    try:
        return [(e.type, e.data, e.ref, e.id) for e in store.load_events(conn, sid)]
    finally:
        conn.close()


def test_a_later_success_of_the_same_command_resolves_the_error(tmp_path: Path) -> None:
    bash(tmp_path, "pytest tests/test_a.py", "FAILED tests/test_a.py::t\n1 failed")
    bash(tmp_path, "ls", "a b")
    bash(tmp_path, "python -m pytest -q", "3 passed")  # a broader run of the same runner
    found = events(tmp_path)
    error = next(e for e in found if e[0] == "error_tool")
    fixed = [e for e in found if e[0] == "error_resolved"]
    assert len(fixed) == 1 and fixed[0][2] == error[3]


def test_an_unrelated_success_does_not_resolve(tmp_path: Path) -> None:
    bash(tmp_path, "npm test", "npm ERR! Test failed")
    bash(tmp_path, "npm run lint", "ok")
    bash(tmp_path, "git status", "On branch main")
    assert not [e for e in events(tmp_path) if e[0] == "error_resolved"]


def test_three_identical_calls_in_a_row_are_a_retry_loop(tmp_path: Path) -> None:
    for _ in range(3):
        bash(tmp_path, "curl localhost:8080/health", "connection refused")
    retries = [e for e in events(tmp_path) if e[0] == "retry_detected"]
    assert len(retries) == 1 and "curl localhost:8080/health" in retries[0][1]


def test_sessions_do_not_share_detector_state(tmp_path: Path) -> None:
    bash(tmp_path, "make", "make: *** [all] Error 1", sid="one")
    bash(tmp_path, "make", "built", sid="two")
    assert not [e for e in events(tmp_path, "one") if e[0] == "error_resolved"]


def test_command_key_ignores_cd_env_and_runners() -> None:
    assert command_key("cd app && FOO=1 uv run pytest -x tests/a.py") == ["pytest", "tests/a.py"]
    assert command_key("npm test") == ["npm", "test"]


def test_detector_keys_hold_no_password_and_still_match(tmp_path: Path) -> None:
    url = "postgres://app:hunter2pw@db/prod"
    bash(tmp_path, f"psql {url} -c 'select 1'", "psql: error: connection refused\nexit 2")
    conn = schema.open_project_db(str(tmp_path))
    try:
        rows = conn.execute("SELECT key || ' ' || value FROM session_detector").fetchall()
    finally:
        conn.close()
    assert rows and not [row for row in rows if "hunter2pw" in row[0]]
    assert any("postgres://app:[FILTERED]@db/prod" in row[0] for row in rows)
    bash(tmp_path, f"psql {url} -c 'select 1'", "1 row")
    assert [e for e in events(tmp_path) if e[0] == "error_resolved"]
