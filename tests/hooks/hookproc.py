"""Run real `ctxmode hook` processes the way a host does (the fast `-I -S` launch form)."""

from __future__ import annotations

import os
import subprocess
import sys

import ctxmode

SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(ctxmode.__file__)))
FAST_CODE = (
    f"import sys;sys.path.insert(0,{SRC_DIR!r});from ctxmode._hook import main;main(sys.argv[1:])"
)


def fast_command(platform: str, event: str) -> list[str]:
    """`<python> -I -S -c "...main(...)" <platform> <event>`: what `ctxmode setup` writes."""
    return [sys.executable, "-I", "-S", "-c", FAST_CODE, platform, event]


def hook_env(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("CTXMODE_MCP_READY", "1")
    env.update(overrides)
    return env


def run_hook(
    platform: str,
    event: str,
    stdin: bytes | str = b"",
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        fast_command(platform, event),
        input=data,
        capture_output=True,
        env=env if env is not None else hook_env(),
        cwd=cwd,
        timeout=30,
        check=False,
    )
