"""How hosts start ctxmode: the fast hook and wrapper command lines and the MCP server command.

The hook command is the absolute venv interpreter with `-I -S` importing
`ctxmode._hook` from this installation (no console-script shim, no site scan), so each
tool call costs an interpreter start plus a few milliseconds. Routing builds the
wrapper's command (`ctxmode._wrap`) the same way, from inside a hook: this module is on
the hook path, so it quotes by hand rather than importing `shlex` (which imports `re`).
"""

from __future__ import annotations

import os
import sys

import ctxmode

SAFE_PATH_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@~"
)
# Bare-word safe in any POSIX shell and zsh (no `~` or `=`: they expand at a word's start).
SAFE_WORD_CHARS = (SAFE_PATH_CHARS - frozenset("~")) | frozenset(",%")


def sh_quote(word: str) -> str:
    """`word` as one POSIX shell word (as `shlex.quote`: bare when it is safe as is)."""
    if word and set(word) <= SAFE_WORD_CHARS:
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def package_parent() -> str:
    """The directory holding the `ctxmode` package (site-packages, or `src/` when editable)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(ctxmode.__file__)))


def fast_module_prefix(module: str, python: str | None = None, parent: str | None = None) -> str:
    """`<python> -I -S -c "...from <module> import main;main(sys.argv[1:])"`."""
    python = os.path.abspath(python or sys.executable)
    parent = parent or package_parent()
    if set(parent) <= SAFE_PATH_CHARS:
        code = f"\"import sys;sys.path.insert(0,'{parent}');from {module} import main;main(sys.argv[1:])\""
    else:
        code = sh_quote(
            f"import sys;sys.path.insert(0,{parent!r});from {module} import main;main(sys.argv[1:])"
        )
    return f"{sh_quote(python)} -I -S -c {code}"


def fast_module_argv(module: str, args: list[str]) -> list[str]:
    """The same fast form as an argv list, for spawning without a shell."""
    code = f"import sys;sys.path.insert(0,{package_parent()!r});from {module} import main;main(sys.argv[1:])"
    return [os.path.abspath(sys.executable), "-I", "-S", "-c", code, *args]


def fast_hook_prefix(python: str | None = None, parent: str | None = None) -> str:
    """The fast hook command; append `<platform> <event>` to use it."""
    return fast_module_prefix("ctxmode._hook", python, parent)


def wrapped_command(
    host_id: str, project_dir: str, command: str, tool_prefix: str | None = None
) -> str:
    """The shell command that runs `command` through the wrapper (`ctxmode._wrap`).

    `tool_prefix`: what the host puts before our tools' names as the hook found it (a
    plugin's server or a server registered under another name), passed on as
    `HOST=PREFIX` so the notice names tools the model has; None: the host's usual one.
    """
    host = host_id if tool_prefix is None else f"{host_id}={tool_prefix}"
    words = (host, project_dir, command)
    return fast_module_prefix("ctxmode._wrap") + " " + " ".join(sh_quote(w) for w in words)


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
