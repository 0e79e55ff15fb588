"""How the context block reaches a child: environment, stdin or a `--context` argument.

`env` (the default) sets `CTX_SESSION`, `CTX_BLOCK_FILE` (a private file holding the whole
block, removed when the child exits) and `CTX_BLOCK` (the block itself). No exec
limit applies to the file; `CTX_BLOCK` holds the block whenever the kernel can carry it
(Linux refuses any single environment string over 128 KiB and all of argv + environment
over ARG_MAX), else a one-line pointer to the file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ctxmode import paths
from ctxmode.errors import EXIT_USAGE, CtxmodeError

BLOCK_ENV = "CTX_BLOCK"
BLOCK_FILE_ENV = "CTX_BLOCK_FILE"
SESSION_ENV = "CTX_SESSION"
CONTEXT_FLAG = "--context"
INJECT_MODES = ("env", "stdin", "arg")

# Linux's MAX_ARG_STRLEN: 32 pages. Other systems only limit the total.
MAX_ARG_STRLEN = 32 * 4096 if sys.platform.startswith("linux") else None
_HEADROOM = 4096  # auxiliary vectors, alignment


class InjectionError(CtxmodeError, ValueError):
    """The block cannot travel the chosen way (e.g. too large for an argument)."""

    exit_code = EXIT_USAGE


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    stdin_data: bytes | None


def arg_max() -> int:
    with contextlib.suppress(ValueError, OSError, AttributeError):
        value = os.sysconf("SC_ARG_MAX")
        if value > 0:
            return value
    return 256 * 1024


def exec_size(argv: Sequence[str], env: dict[str, str]) -> int:
    """Bytes execve needs for `argv` and `env`: the strings, their NULs and the pointers."""
    strings = [*argv, *(f"{k}={v}" for k, v in env.items())]
    return sum(len(s.encode("utf-8", "surrogateescape")) + 1 for s in strings) + 8 * (
        len(strings) + 2
    )


def fits_exec(argv: Sequence[str], env: dict[str, str]) -> bool:
    strings = [*argv, *(f"{k}={v}" for k, v in env.items())]
    if MAX_ARG_STRLEN is not None and any(
        len(s.encode("utf-8", "surrogateescape")) >= MAX_ARG_STRLEN for s in strings
    ):
        return False
    return exec_size(argv, env) <= arg_max() - _HEADROOM


@contextlib.contextmanager
def block_file(block: str) -> Iterator[str]:
    """A private (0600) file under `<data root>/run/` holding the block, removed afterwards."""
    directory = paths.ensure_dir(os.path.join(paths.data_root(), "run"))
    fd, path = tempfile.mkstemp(prefix="ctx-block-", suffix=".txt", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(block)
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def prepare(
    argv: Sequence[str],
    block: str | None,
    mode: str,
    env: dict[str, str],
    session: str,
    block_path: str | None = None,
) -> Launch:
    """The argv, environment and stdin that carry `block` (None: run without context)."""
    env = dict(env)
    env[SESSION_ENV] = session
    if block is None:
        return Launch(list(argv), env, None)
    if mode == "stdin":
        return Launch(list(argv), env, block.encode("utf-8"))
    if mode == "arg":
        launch = Launch([*argv, CONTEXT_FLAG, block], env, None)
        if not fits_exec(launch.argv, env):
            raise InjectionError(
                f"the context block ({len(block.encode('utf-8'))} bytes) is too large for a "
                "command-line argument; use --inject env or --inject stdin"
            )
        return launch
    if mode != "env":
        raise InjectionError(f"unknown injection mode {mode!r}; use one of {INJECT_MODES}")
    if block_path is not None:
        env[BLOCK_FILE_ENV] = block_path
    env[BLOCK_ENV] = block
    if not fits_exec(argv, env):
        size = len(block.encode("utf-8"))
        env[BLOCK_ENV] = f"[ctxmode: the context block is {size} bytes, too large for one "
        env[BLOCK_ENV] += f"environment variable; read it from ${BLOCK_FILE_ENV}]"
    return Launch(list(argv), env, None)
