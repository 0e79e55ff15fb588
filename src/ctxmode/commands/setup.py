"""`ctxmode setup PLATFORM`: register ctxmode's hooks with a host, in their fast form.

The hook command is the absolute venv interpreter with `-I -S` importing
`ctxmode._hook` from this installation (no console-script shim, no site scan), so
each tool call costs an interpreter start plus a few milliseconds. Settings files are
merged, never clobbered: other hooks and keys are kept, our earlier entries replaced,
and the previous file is kept as `<name>.ctxmode-backup`.
"""

from __future__ import annotations

import json
import os
import shlex
import sys

import click

import ctxmode
from ctxmode.platforms import REGISTRY

# Hosts whose settings file takes Claude-shaped `hooks` entries.
CLAUDE_SHAPED = ("claude-code", "qwen-code")
SAFE_PATH_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@~"
)
OUR_MARKERS = ("ctxmode._hook", "ctxmode hook")


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


def _is_ours(entry: object) -> bool:
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    commands = [h.get("command", "") for h in hooks or [] if isinstance(h, dict)]
    return any(isinstance(c, str) and any(m in c for m in OUR_MARKERS) for c in commands)


def merge_hooks(settings: dict, commands: dict[str, str], matchers: dict[str, str]) -> dict:
    """`settings` with our hook entries (replacing earlier ones of ours), all else kept."""
    merged = dict(settings)
    hooks = merged.get("hooks")
    hooks = dict(hooks) if isinstance(hooks, dict) else {}
    for host_event, command in commands.items():
        existing = hooks.get(host_event)
        kept = [e for e in existing if not _is_ours(e)] if isinstance(existing, list) else []
        ours = {
            "matcher": matchers.get(host_event, ""),
            "hooks": [{"type": "command", "command": command}],
        }
        hooks[host_event] = [*kept, ours]
    merged["hooks"] = hooks
    return merged


def read_settings(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    try:
        settings = json.loads(text) if text.strip() else {}
    except ValueError as error:
        raise click.ClickException(
            f"{path} is not valid JSON ({error}); fix it first, nothing was changed"
        ) from None
    if not isinstance(settings, dict):
        raise click.ClickException(f"{path} does not hold a JSON object; nothing was changed")
    return settings


def write_settings(path: str, settings: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, "rb") as source, open(path + ".ctxmode-backup", "wb") as backup:
            backup.write(source.read())
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(settings, handle, indent=2)
        handle.write("\n")
    os.replace(temporary, path)


def precompile() -> None:
    """Write .pyc files for the package now: a read-only install would otherwise recompile
    the hook modules on every tool call."""
    import compileall

    package = os.path.dirname(os.path.abspath(ctxmode.__file__))
    compileall.compile_dir(package, quiet=1)


@click.command("setup")
@click.argument("platform", type=click.Choice(sorted(REGISTRY)))
@click.option(
    "--print", "print_only", is_flag=True, help="Print the hook commands; change nothing."
)
@click.option(
    "--project",
    "project_dir",
    default="",
    help="Write the project's settings file instead of the user's.",
)
def command(platform: str, print_only: bool, project_dir: str) -> None:
    """Register ctxmode's hooks for PLATFORM (fast launch form; settings merged, never clobbered)."""
    import importlib

    module = importlib.import_module(REGISTRY[platform])
    commands = module.hook_commands(fast_hook_prefix())
    if print_only or platform not in CLAUDE_SHAPED:
        if not print_only:
            click.echo(
                f"Automatic setup for {platform} is not available yet; register these hooks:"
            )
        for host_event, line in commands.items():
            click.echo(f"{host_event}: {line}")
        return
    precompile()
    targets = module.config_paths(os.path.abspath(project_dir) if project_dir else "")
    path = targets["project" if project_dir else "user"]
    settings = merge_hooks(read_settings(path), commands, getattr(module, "MATCHERS", {}))
    write_settings(path, settings)
    click.echo(f"Wrote {len(commands)} ctxmode hooks to {path}")
    click.echo(
        f"Also register the MCP server as 'context-mode', e.g. for Claude Code:\n"
        f"  claude mcp add context-mode -- {shlex.quote(os.path.abspath(sys.executable))} -m ctxmode serve"
    )
