"""Running the dashboard: bind 127.0.0.1, announce the URL, find or start the one that runs.

A running dashboard writes `<data root>/insight/dashboard.json` (mode 0600: it holds
the token) so `ctx_insight` can hand out its URL instead of starting a second one.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable

from ctxmode import paths
from ctxmode.errors import CtxmodeError
from ctxmode.insight.app import Dashboard, build_app

TYPE_CHECKING = False
if TYPE_CHECKING:
    import uvicorn


class DashboardError(CtxmodeError, RuntimeError):
    """The dashboard could not be started; the message says where its log is."""


HOST = "127.0.0.1"
START_TIMEOUT_S = 15.0


def running_file(data_root: str) -> str:
    return os.path.join(data_root, "insight", "dashboard.json")


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (`port` 0: a free one the OS picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(64)
    return sock


def url_of(dashboard: Dashboard) -> str:
    return f"http://{HOST}:{dashboard.port}/?t={dashboard.token}"


def _write_running(dashboard: Dashboard) -> None:
    path = running_file(dashboard.data_root)
    paths.ensure_dir(os.path.dirname(path))
    record = {"url": url_of(dashboard), "pid": os.getpid(), "started": time.time()}
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(temporary, path)


def _forget_running(dashboard: Dashboard) -> None:
    path = running_file(dashboard.data_root)
    with contextlib.suppress(OSError, ValueError):
        with open(path, encoding="utf-8") as handle:
            if json.load(handle).get("pid") != os.getpid():
                return  # another dashboard took over the file
        os.remove(path)


def can_open_browser() -> bool:
    """A graphical browser could show the page (never a text browser taking the terminal)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _watch(server: uvicorn.Server, dashboard: Dashboard, idle_s: float, parent: int) -> None:
    """Stop the server once idle for `idle_s` (when > 0) or once `parent` (when > 0) is gone."""
    while not server.should_exit:
        time.sleep(1.0)
        idle = idle_s > 0 and time.monotonic() - dashboard.last_request > idle_s
        orphaned = parent > 0 and os.getppid() != parent  # reparented: the parent exited
        if idle or orphaned:
            server.should_exit = True


def run(
    dashboard: Dashboard,
    sock: socket.socket,
    *,
    open_browser: bool,
    idle_minutes: float = 0,
    exit_with_parent: bool = False,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until interrupted, idle for `idle_minutes` (when > 0), or orphaned (if asked)."""
    import uvicorn

    dashboard.port = sock.getsockname()[1]
    config = uvicorn.Config(build_app(dashboard), log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    # Read the tally and the tool-call sums while the user opens the page, not on request.
    threading.Thread(target=dashboard.warm, daemon=True).start()
    _write_running(dashboard)
    announce(url_of(dashboard))
    if open_browser and can_open_browser():
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url_of(dashboard),)).start()
    parent = os.getppid() if exit_with_parent else 0
    if idle_minutes > 0 or parent:
        watcher = threading.Thread(
            target=_watch, args=(server, dashboard, idle_minutes * 60, parent), daemon=True
        )
        watcher.start()
    try:
        server.run(sockets=[sock])
    finally:
        _forget_running(dashboard)


def _answers(url: str) -> bool:
    probe = url.replace("/?t=", "/health?t=", 1)
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy
    try:
        with direct.open(probe, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def running_url(data_root: str) -> str | None:
    """The URL of a dashboard that answers for this data root, if one runs."""
    try:
        with open(running_file(data_root), encoding="utf-8") as handle:
            url = json.load(handle)["url"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url if isinstance(url, str) and _answers(url) else None


def ensure_running(project_root: str, idle_minutes: float = 120) -> str:
    """The URL of the running dashboard, starting a detached one first if none answers."""
    data_root = paths.data_root()
    url = running_url(data_root)
    if url:
        return url
    # It lives as long as the MCP server that asked for it (and stops when idle).
    command = [sys.executable, "-m", "ctxmode", "insight", "--no-browser", "--exit-with-parent",
               "--project", project_root, "--idle-minutes", str(idle_minutes)]  # fmt: skip
    log = open(os.path.join(paths.ensure_dir(paths.logs_dir()), "insight.log"), "ab")  # noqa: SIM115
    with log:
        subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            close_fds=True,
        )  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        url = running_url(data_root)
        if url:
            return url
        time.sleep(0.1)
    raise DashboardError(f"the dashboard did not start; see {paths.logs_dir()}/insight.log")
