"""Detectors that span tool calls, with their state in the database (one process per hook).

- error -> fix: a failed call leaves an open error keyed by what failed (`pytest tests/x`,
  `file:src/a.py`); a later success of the same thing (or a broader run of the same
  command, `pytest` after `pytest tests/x`) records `error_resolved` pointing at it.
- retry loop: the same call (tool + input) three times in a row records `retry_detected`.
"""

from __future__ import annotations

from ctxmode.policy.secrets import redact
from ctxmode.policy.shell import scan
from ctxmode.session import store
from ctxmode.session.extract import ToolCall, describe, text_arg
from ctxmode.session.model import HIGH, NORMAL, Captured, one_line
from ctxmode.storage.project import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

RETRY_THRESHOLD = 3
RUNNER_PREFIXES = (("python", "-m"), ("python3", "-m"), ("uv", "run"), ("poetry", "run"),
                   ("npx",), ("pnpm", "exec"), ("bunx",), ("yarn", "run"), ("npm", "run"))  # fmt: skip
FILE_TOOLS = (
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "replace",
    "edit_file",
    "create_file",
)


def command_key(command: str) -> list[str]:
    """The words that name what a command runs: program and first two non-flag arguments."""
    parts = [
        run
        for run in scan(command).commands
        if run.program not in ("", "cd", "export", "source", ".")
    ]
    if not parts:
        return []
    words = [parts[-1].program, *parts[-1].argv[1:]]
    for prefix in RUNNER_PREFIXES:
        if tuple(words[: len(prefix)]) == prefix:
            words = words[len(prefix) :]
            break
    plain = [w for w in words if not w.startswith("-")]
    return plain[:3]


def failure_key(call: ToolCall) -> str:
    """What failed, as stored: a command is filtered before its words are picked, since
    picking drops the flags that tell a secret (`curl -u bob:<pw>` -> `curl bob:<pw>`)."""
    if call.tool == "Bash":
        key = command_key(redact(text_arg(call.tool_input, "command", "cmd")))
        return "bash:" + " ".join(key) if key else ""
    path = text_arg(call.tool_input, "file_path", "path", "filePath", "absolute_path")
    if path and call.tool in FILE_TOOLS:
        return "file:" + path
    return "tool:" + call.tool


def _resolves(success_key: str, error_key: str) -> bool:
    """Does a success of `success_key` show that `error_key` is fixed?"""
    if success_key == error_key:
        return True
    if success_key.startswith("bash:") and error_key.startswith("bash:"):
        ok, failed = success_key[5:].split(), error_key[5:].split()
        return bool(ok) and failed[: len(ok)] == ok
    return False


def after_call(
    conn: sqlite3.Connection,
    session_id: str,
    call: ToolCall,
    events: list[Captured],
    error_id: int | None,
) -> list[Captured]:
    """Update detector state for this call; returns the events it concludes (resolutions, retries)."""
    found: list[Captured] = []
    key = failure_key(call)
    open_errors = store.get_state(conn, session_id, "err:")
    if error_id is not None and key:
        store.set_state(conn, session_id, "err:" + key, str(error_id))
    elif key and not any(e.type == "error_tool" for e in events):
        for state_key, value in open_errors.items():
            if _resolves(key, state_key[4:]):
                store.delete_state(conn, session_id, state_key)
                found.append(
                    Captured(
                        "error",
                        "error_resolved",
                        HIGH,
                        f"fixed by {describe(call)}",
                        ref=int(value),
                    )
                )
    found.extend(_retry(conn, session_id, call))
    return found


def _retry(conn: sqlite3.Connection, session_id: str, call: ToolCall) -> list[Captured]:
    fingerprint = (
        call.tool
        + ":"
        + sha256_hex(repr(sorted(call.tool_input.items())).encode("utf-8", "replace"))[:16]
    )
    previous = store.get_state(conn, session_id, "retry").get("retry", "")
    last, _, count_text = previous.partition("\t")
    count = int(count_text) + 1 if last == fingerprint and count_text.isdigit() else 1
    store.set_state(conn, session_id, "retry", f"{fingerprint}\t{count}")
    if count == RETRY_THRESHOLD:
        return [
            Captured(
                "retry",
                "retry_detected",
                NORMAL,
                f"{one_line(describe(call), 150)} repeated {count}× in a row",
            )
        ]
    return []


def cwd_change(conn: sqlite3.Connection, session_id: str, cwd: str) -> list[Captured]:
    """A cwd event when the host reports a working directory different from the last one."""
    if not cwd:
        return []
    if store.get_state(conn, session_id, "cwd").get("cwd") == cwd:
        return []
    store.set_state(conn, session_id, "cwd", cwd)
    return [Captured("cwd", "cwd", HIGH, cwd)]
