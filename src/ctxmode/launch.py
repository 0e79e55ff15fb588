"""How hosts start ctxmode: the fast hook command line and the MCP server command.

The hook command is the absolute venv interpreter with `-I -S` importing
`ctxmode._hook` from this installation (no console-script shim, no site scan), so each
tool call costs an interpreter start plus a few milliseconds.
"""

from __future__ import annotations

import os
import shlex
import sys

import ctxmode

SAFE_PATH_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@~"
)


def package_parent() -> str:
    """The directory holding the `ctxmode` package (site-packages, or `src/` when editable)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(ctxmode.__file__)))


def fast_hook_prefix(python: str | None = None, parent: str | None = None) -> str:
    """`<python> -I -S -c "...main(sys.argv[1:])"`; append `<platform> <event>` to use it."""
    python = os.path.abspath(python or sys.executable)
    parent = parent or package_parent()
    if set(parent) <= SAFE_PATH_CHARS:
        code = f"\"import sys;sys.path.insert(0,'{parent}');from ctxmode._hook import main;main(sys.argv[1:])\""
    else:
        code = shlex.quote(
            f"import sys;sys.path.insert(0,{parent!r});from ctxmode._hook import main;main(sys.argv[1:])"
        )
    return f"{shlex.quote(python)} -I -S -c {code}"


def server_command() -> list[str]:
    """How hosts start our MCP server: the `ctxmode` script beside this interpreter (else on
    PATH), else `<python> -m ctxmode`; always an absolute path, plus `serve`."""
    import shutil

    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "ctxmode")
    if os.name == "nt":
        beside += ".exe"
    script = beside if os.access(beside, os.X_OK) else shutil.which("ctxmode")
    if script:
        return [os.path.abspath(script), "serve"]
    return [os.path.abspath(sys.executable), "-m", "ctxmode", "serve"]


def precompile() -> None:
    """Write .pyc files for the package now: a read-only install would otherwise recompile
    the hook modules on every tool call."""
    import compileall

    package = os.path.dirname(os.path.abspath(ctxmode.__file__))
    compileall.compile_dir(package, quiet=1)
