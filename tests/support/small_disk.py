"""A small, private disk for fault drills: a tmpfs mounted in a mount namespace of its own.

Needs root and `unshare`/`nsenter` (util-linux); the tests skip otherwise. The mount is
seen only by processes started through `SmallDisk.run` / `SmallDisk.prefix`; it goes
away with the namespace when `close` ends its holder process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


class SmallDisk:
    def __init__(self, mountpoint: Path, size: str) -> None:
        if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("nsenter")):
            pytest.skip("fault drills on a small disk need root, unshare and nsenter")
        mountpoint.mkdir(parents=True, exist_ok=True)
        self.mountpoint = mountpoint
        script = (
            f"mount -t tmpfs -o size={size} tmpfs '{mountpoint}' && echo ready && exec sleep 900"
        )
        self.holder = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.holder.stdout is not None
        if self.holder.stdout.readline().strip() != "ready":
            self.close()
            pytest.skip("cannot mount a tmpfs in a private mount namespace here")

    def prefix(self, cwd: Path | str = "/") -> list[str]:
        """What to put before a command line to run it inside the namespace, in `cwd`."""
        return ["nsenter", "-t", str(self.holder.pid), "-m", f"--wd={cwd}", "--"]

    def run(
        self, argv: list[str], cwd: Path | str = "/", **kwargs: object
    ) -> subprocess.CompletedProcess[str]:
        """`argv` inside the namespace (sees the small disk); never raises on exit codes."""
        options = {"capture_output": True, "text": True, "timeout": 120, "check": False}
        return subprocess.run([*self.prefix(cwd), *argv], **{**options, **kwargs})  # type: ignore[call-overload]

    def seen_from_outside(self, relative: str = "") -> Path:
        """The same path as this process can see it (through the holder's root)."""
        return Path(f"/proc/{self.holder.pid}/root{self.mountpoint}", relative)

    def fill(self) -> None:
        """Write a filler file until the disk is full."""
        self.run(["sh", "-c", f"cat /dev/zero > '{self.mountpoint}/filler'"])

    def free(self) -> None:
        self.run(["rm", "-f", f"{self.mountpoint}/filler"])

    def make_read_only(self) -> None:
        done = self.run(["mount", "-o", "remount,ro", str(self.mountpoint)])
        assert done.returncode == 0, done.stderr

    def close(self) -> None:
        if self.holder.poll() is None:
            self.holder.kill()
        self.holder.wait(timeout=10)
        if self.holder.stdout is not None:
            self.holder.stdout.close()
