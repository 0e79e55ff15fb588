"""Running a real agent host binary offline, hermetically, against a FakeModel.

`.ci/install-hosts` puts the pinned hosts under the clone's `.hosts/`; `npm_host` and
`pypi_python` find them there. A host missing on a developer box skips its test; with
`CI` set it fails, because a skipped host test proves nothing.

Each run gets its own HOME and XDG dirs (`HostWorld`). As root, the host runs in a
network namespace holding only `lo` (`offline_netns`), and the fake model's socket is
opened inside that namespace, so 127.0.0.1 is the only address the host can reach.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

from support.fake_model import FakeModel, Reply, Request, Turn

REPO = Path(__file__).resolve().parents[2]
HOSTS_DIR = REPO / ".hosts"
CLONE_NEWNET = 0x40000000
# Variables a host run keeps from ours; everything else (API keys, CI, proxies, our
# CTXMODE_DIR) stays out: ctxmode keeps its data under the temp HOME, as for a user,
# which matters because some hosts start MCP servers with only HOME and PATH.
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE")


def missing(what: str) -> NoReturn:
    """Skip on a developer box; fail in CI, where every host must have been installed."""
    message = f"{what} (run .ci/install-hosts)"
    if os.environ.get("CI"):
        pytest.fail(f"CI: {message}")
    pytest.skip(message)


def npm_host(name: str, binary: str) -> Path:
    """The executable `binary` of the npm host installed as `name` by .ci/install-hosts."""
    path = HOSTS_DIR / "npm" / name / "node_modules" / ".bin" / binary
    if not path.exists():
        missing(f"{name} is not installed at {path}")
    return path


def pypi_python(name: str, min_python: tuple[int, int]) -> Path:
    """The interpreter of the venv .ci/install-hosts made for the PyPI host `name`.

    The one case that skips even in CI: the machine has no Python new enough for the
    host, so .ci/install-hosts could not install it.
    """
    python = HOSTS_DIR / "pypi" / name / "bin" / "python"
    if python.exists():
        return python
    if not any_python_at_least(min_python):
        pytest.skip(f"{name} needs Python >= {min_python[0]}.{min_python[1]}; none on this machine")
    missing(f"{name} is not installed at {python.parent.parent}")


def any_python_at_least(version: tuple[int, int]) -> bool:
    """Whether pyenv or the system has an interpreter the installer would have used."""
    if sys.version_info[:2] >= version:
        return True
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [p.name for p in pyenv.glob("3.*")] if pyenv.is_dir() else []
    found += [p.name.removeprefix("python") for p in Path("/usr/bin").glob("python3.*[0-9]")]
    for name in found:
        parts = name.split(".")
        if len(parts) >= 2 and parts[1].isdigit() and (3, int(parts[1])) >= version:
            return True
    return False


# ------------------------------------------------------------------ the offline network


def can_unshare() -> bool:
    return os.geteuid() == 0 and sys.platform == "linux"


@contextlib.contextmanager
def offline_netns() -> Iterator[str | None]:
    """A network namespace with only `lo` up, held by a sleeping process; None if not root."""
    if not can_unshare():
        yield None
        return
    holder = subprocess.Popen(
        ["unshare", "--net", "--", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        if holder.stdout.readline().strip() != "up":
            raise RuntimeError("could not bring lo up in a new network namespace")
        yield f"/proc/{holder.pid}/ns/net"
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def socket_in_netns(netns: str | None) -> socket.socket:
    """A listening socket on 127.0.0.1 (a free port), inside `netns` when given.

    A socket belongs to the namespace of the thread that created it, so a short-lived
    thread joins the namespace, opens the socket and ends; the rest of pytest stays put.
    """
    made: dict[str, Any] = {}

    def open_socket() -> None:
        try:
            if netns:
                libc = ctypes.CDLL(None, use_errno=True)
                fd = os.open(netns, os.O_RDONLY)
                try:
                    if libc.setns(fd, CLONE_NEWNET) != 0:
                        raise OSError(ctypes.get_errno(), "setns failed")
                finally:
                    os.close(fd)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            sock.listen(64)
            made["socket"] = sock
        except OSError as error:
            made["error"] = error

    thread = threading.Thread(target=open_socket)
    thread.start()
    thread.join()
    if "error" in made:
        raise made["error"]
    return made["socket"]


# ------------------------------------------------------------------ one host's world


@dataclass
class HostRun:
    """A finished host process: exit code, output, and its stdout's JSON lines."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    def events(self) -> list[dict[str, Any]]:
        found = []
        for line in self.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    found.append(json.loads(line))
        return found

    def describe(self) -> str:
        """For assertion messages: what the host said."""
        return (f"{self.argv[:3]}... exit {self.returncode}"
                f"{' (timed out)' if self.timed_out else ''}\n"
                f"--- stdout\n{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-4000:]}")  # fmt: skip


@dataclass
class HostWorld:
    """A temp HOME, XDG dirs and work dir for one host run, plus the offline network."""

    root: Path
    netns: str | None = None
    settings: dict[str, str] = field(default_factory=dict)  # the user's CTXMODE_* variables
    # Directories put before the inherited PATH (a project's own tools, as a user's shell
    # profile would put them there).
    path: list[Path] = field(default_factory=list)
    home: Path = field(init=False)
    work: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.work = self.root / "work"
        for path in (self.home, self.work, *self.xdg().values(), self.root / "tmp"):
            Path(path).mkdir(parents=True, exist_ok=True)

    def xdg(self) -> dict[str, str]:
        return {
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
        }

    def env(self, **extra: str) -> dict[str, str]:
        """The host's environment: ours minus secrets and CI markers, plus its own HOME."""
        env = {name: os.environ[name] for name in KEPT_ENV if name in os.environ}
        if self.path:
            env["PATH"] = os.pathsep.join([*map(str, self.path), env.get("PATH", os.defpath)])
        env.update(self.xdg())
        env.update(HOME=str(self.home), TMPDIR=str(self.root / "tmp"), TERM="dumb",
                   NO_COLOR="1", USER="ctxmode", SHELL="/bin/bash")  # fmt: skip
        env.update(self.settings)
        env.update(extra)
        return env

    def fake_model(self, turns: Iterable[Turn] = (), **options: Any) -> FakeModel:
        """A FakeModel reachable from inside this world's network."""
        return FakeModel(turns, sock=socket_in_netns(self.netns), **options)

    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        env: dict[str, str],
        cwd: Path | None = None,
        timeout: float = 120,
        stdin: str = "",
    ) -> HostRun:
        """Run a host to completion in its own process group; kill the group after."""
        command = [str(part) for part in argv]
        if self.netns:
            command = ["nsenter", f"--net={self.netns}", "--", *command]
        process = subprocess.Popen(
            command, cwd=cwd or self.work, env=env, text=True, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        timed_out = False
        try:
            stdout, stderr = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process.pid)
            stdout, stderr = process.communicate()
        _kill_group(process.pid)  # MCP servers and hooks the host left behind
        return HostRun(command, process.returncode, stdout, stderr, timed_out)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


__all__ = [
    "HostRun",
    "HostWorld",
    "Reply",
    "Request",
    "missing",
    "npm_host",
    "offline_netns",
    "pypi_python",
]
