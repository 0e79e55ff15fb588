from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A resolved project directory to run code in."""
    root = tmp_path / "project"
    root.mkdir()
    return Path(os.path.realpath(root))


def pid_gone(pid: int) -> bool:
    """True when `pid` no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    """Poll `condition` until it holds or `timeout_s` passes (for events with no handle)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def pid_is_gone() -> Callable[[int], bool]:
    return pid_gone


@pytest.fixture
def eventually() -> Callable[..., bool]:
    return wait_until
