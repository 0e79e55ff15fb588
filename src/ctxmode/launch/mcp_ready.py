"""Is a `ctxmode serve` alive? Told by pid files under our data root, none in /tmp.

A running server announces itself as `<data root>/run/mcp-<pid>` holding its pid and
withdraws the file on exit. Hooks only redirect the model to ctx_* tools when at least
one announced pid is alive; files of dead pids are removed as they are found.
`CTXMODE_MCP_READY=1|0` overrides the detection (tests, hosts with remote servers).
"""

from __future__ import annotations

import os
import sys

from ctxmode import paths, settings

PREFIX = "mcp-"


def run_dir() -> str:
    return os.path.join(paths.data_root(), "run")


def announce_server(pid: int | None = None) -> str:
    """Mark this (or `pid`'s) server as ready; returns the marker path. Call at server start."""
    pid = os.getpid() if pid is None else pid
    directory = paths.ensure_dir(run_dir())
    target = os.path.join(directory, f"{PREFIX}{pid}")
    paths.write_atomic(target, str(pid), encoding="ascii")
    return target


def withdraw_server(pid: int | None = None) -> None:
    """Remove the readiness marker (call at server shutdown). Never raises."""
    pid = os.getpid() if pid is None else pid
    try:
        os.unlink(os.path.join(run_dir(), f"{PREFIX}{pid}"))
    except OSError:
        pass


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate the process there
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def _windows_pid_alive(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    code = ctypes.c_ulong()
    alive = kernel32.GetExitCodeProcess(handle, ctypes.byref(code)) and code.value == 259
    kernel32.CloseHandle(handle)
    return bool(alive)


def _read_pid(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            return int(handle.read(32).strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def server_alive() -> bool:
    """True when an announced ctxmode MCP server is running (or the override says so)."""
    override = settings.value(settings.MCP_READY)
    if override is not None:
        return bool(override)
    directory = run_dir()
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    for name in names:
        if not name.startswith(PREFIX) or name.endswith(".tmp"):
            continue
        path = os.path.join(directory, name)
        pid = _read_pid(path)
        if pid is None:
            continue  # being written, or not ours: leave it alone
        if pid_alive(pid):
            return True
        try:
            os.unlink(path)
        except OSError:
            pass
    return False
