"""`ctxmode run -- CMD ARGS...`: run a command with the session's context and record what it did."""

from __future__ import annotations

import contextlib
import os
import shlex
import sqlite3
import sys

import click

from ctxmode.commands.session import opened, session_options, stop_outside_workspace
from ctxmode.session.memory import audit
from ctxmode.session.memory.config import config_path
from ctxmode.session.memory.digest import render_digest
from ctxmode.session.memory.inject import INJECT_MODES, block_file, prepare
from ctxmode.session.memory.resolve import context_block, ensure_session
from ctxmode.session.memory.runner import RunResult, run_streaming
from ctxmode.session.memory.store import MemoryStore
from ctxmode.storage import db


@click.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@session_options
@click.option(
    "--inject",
    type=click.Choice(INJECT_MODES),
    help="How the context reaches the command: env ($CTX_BLOCK and $CTX_BLOCK_FILE, the "
    "default), stdin, or a trailing --context argument.",
)
@click.option("--confirm", is_flag=True, help="Run even outside the session's workspace.")
@click.argument("argv", nargs=-1, required=True, type=click.UNPROCESSED)
def command(
    session_name: str | None,
    task: str | None,
    inject: str | None,
    confirm: bool,
    argv: tuple[str, ...],
) -> None:
    """Run CMD with the session's context injected, then record its exit code and a digest.

    Stops with exit code 3 (running nothing) when the current directory is not inside the
    session's workspace, unless --confirm is given. Only commands in allowed_commands
    (see `ctxmode session config`) receive the context; others run without it.
    """
    cwd = os.getcwd()
    command_line = shlex.join(argv)
    with opened(session_name, task) as (store, config, target):
        stop_outside_workspace(target, confirm)
        allowed = config.allows(argv[0])
        block = context_block(store, target, cwd) if allowed else None
        if allowed:
            audit.record_read(target.name, f"run {command_line}")
        ensure_session(store, target)
        private_networks = config.private_networks
    # Silence when a configured list leaves the command out on purpose (grep, sed, ...).
    if not allowed and (inject is not None or not config.allowed_commands):
        click.echo(
            f"ctxmode: {argv[0]} is not in allowed_commands ({config_path()}): "
            "running it without context",
            err=True,
        )
    result = _run(list(argv), block, inject or "env", target.name)
    notes: list[str] = []
    if not target.guard(cwd).inside:
        notes.append(f"(ran outside the workspace, in {os.path.realpath(cwd)}, with --confirm)")
    _record(target.name, command_line, result, notes, private_networks)
    sys.exit(result.exit_code)


def _run(argv: list[str], block: str | None, inject: str, session: str) -> RunResult:
    with contextlib.ExitStack() as stack:
        path = None
        if block is not None and inject == "env":
            path = stack.enter_context(block_file(block))
        launch = prepare(argv, block, inject, dict(os.environ), session, block_path=path)
        result = run_streaming(launch.argv, env=launch.env, stdin_data=launch.stdin_data)
    if result.launch_error:
        click.echo(f"ctxmode: {result.launch_error}", err=True)
    return result


def _record(
    session: str, command_line: str, result: RunResult, notes: list[str], private: bool
) -> None:
    """Record the run; a failure here is reported but never replaces the child's exit code."""
    digest = render_digest(command_line, result.exit_code, result.stdout, result.stderr)
    if result.launch_error:
        digest += f"\n{result.launch_error}"
    try:
        with MemoryStore(private_networks=private) as store:
            store.record(session, "tool", "\n".join([digest, *notes]))
    except (db.DatabaseError, sqlite3.Error, OSError, LookupError) as exc:
        click.echo(f"ctxmode: could not record the run in session {session}: {exc}", err=True)
