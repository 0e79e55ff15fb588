"""How hosts start ctxmode: the fast hook and wrapper command lines and the MCP server command.

Beside it in this package: whether a server we started is alive (`mcp_ready`) and the
name the host registered it under (`server_name`), both read on the hook path.

The hook command is the absolute venv interpreter with `-I -S` importing
`ctxmode._hook` from this installation (no console-script shim, no site scan), so each
tool call costs an interpreter start plus a few milliseconds. The wrapper's command is
what the user sees in place of theirs, so it reads as the original behind a short
prefix (`ctxmode-wrap --host HOST -- COMMAND`, the console script). Routing builds it
from inside a hook: this module is on the hook path, so it quotes by hand rather than
importing `shlex` (which imports `re`).
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


WRAP_SCRIPT = "ctxmode-wrap"


def wrap_script(python: str | None = None, search_path: str | None = None) -> str:
    """How a host's shell starts the wrapper: `ctxmode-wrap` when PATH finds the script beside
    our interpreter through a link in a user's bin directory (what pipx and `uv tool` make,
    and what a login shell's profile puts on PATH too), else that script's absolute path,
    else "" (no script: an install without console scripts).

    The bin directory of a virtualenv that is merely activated is named in full: a host that
    runs commands in a login shell (Codex does) gets its PATH anew from the profile, which
    knows nothing of the activation."""
    beside = os.path.join(os.path.dirname(python or sys.executable), WRAP_SCRIPT)
    if not os.access(beside, os.X_OK):
        return ""
    absolute = sh_quote(os.path.abspath(beside))
    search = os.environ.get("PATH", "") if search_path is None else search_path
    for directory in search.split(os.pathsep):
        found = os.path.join(directory, WRAP_SCRIPT) if directory else ""
        if found and os.access(found, os.X_OK):
            try:
                same = os.path.samefile(found, beside)
            except OSError:
                same = False
            activated = os.path.samefile(directory, os.path.dirname(beside)) if same else False
            return WRAP_SCRIPT if same and not activated else absolute
    return absolute


def command_words(command: str) -> str:
    """`command` as the wrapper's operands: its own words when they are all plain (the
    wrapper joins them back), else the whole text as one quoted word."""
    words = command.split()
    if words and all(set(word) <= SAFE_WORD_CHARS for word in words):
        return " ".join(words)
    return sh_quote(command)


def wrapped_command(
    host_id: str, project_dir: str, command: str, cwd: str = "", tool_prefix: str | None = None
) -> str:
    """The shell command that runs `command` through the wrapper:
    `ctxmode-wrap --host HOST [--project DIR] -- COMMAND`, the project named only when the
    wrapper would not find the same one from `cwd` (the directory the command runs in).

    `tool_prefix`: what the host puts before our tools' names as the hook found it (a
    plugin's server or a server registered under another name), passed on as
    `--host HOST=PREFIX` so the notice names tools the model has; None: the host's usual one.
    """
    from ctxmode.storage import project

    host = host_id if tool_prefix is None else f"{host_id}={tool_prefix}"
    options = ["--host", host]
    if project_dir and project.resolve_project_root(project_dir) != project.resolve_project_root(
        None, cwd=cwd or project_dir
    ):
        options += ["--project", project_dir]
    script = wrap_script() or fast_module_prefix("ctxmode._wrap")
    quoted = " ".join(sh_quote(option) for option in options)
    return f"{script} {quoted} -- {command_words(command)}"


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
