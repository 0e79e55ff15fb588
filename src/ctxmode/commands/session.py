"""`ctxmode session ...`: named session memory for command-line work, bound to a workspace."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from ctxmode import settings
from ctxmode.session.memory import audit
from ctxmode.session.memory.block import full_entry
from ctxmode.session.memory.config import MemoryConfig, config_path, load_config
from ctxmode.session.memory.guard import EXIT_WRONG_WORKSPACE, mismatch_message
from ctxmode.session.memory.model import ROLES
from ctxmode.session.memory.resolve import (
    Target,
    context_block,
    ensure_session,
    resolve_target,
)
from ctxmode.session.memory.store import (
    MEMORY_MIGRATIONS,
    MEMORY_SALVAGE,
    MemoryStore,
    memory_db_path,
)
from ctxmode.storage import db

F = TypeVar("F", bound=Callable[..., Any])


def session_options(func: F) -> F:
    """`--session NAME` and `--task WORD`: which session (see `ctxmode.session.memory.naming`)."""
    func = click.option(
        "--task",
        metavar="WORD",
        help="Derive the name from the workspace and this word (prod-archive + log).",
    )(func)
    return click.option(
        "--session",
        "session_name",
        metavar="NAME",
        help=f"Session name (default: ${settings.SESSION.name}, the path's scope, or the workspace's name).",
    )(func)


@contextmanager
def opened(
    session_name: str | None, task: str | None
) -> Iterator[tuple[MemoryStore, MemoryConfig, Target]]:
    """The store, the config and the resolved target (errors: see `ctxmode.cli`)."""
    config = load_config()
    with db.storage_faults(memory_db_path(), MEMORY_MIGRATIONS, MEMORY_SALVAGE):
        store = MemoryStore(private_networks=config.private_networks)
        try:
            target = resolve_target(store, config, os.getcwd(), explicit=session_name, task=task)
            yield store, config, target
        finally:
            store.close()


def stop_outside_workspace(target: Target, confirm: bool) -> None:
    """The hard stop: exit 3 unless the cwd is inside the workspace or `--confirm` was given."""
    result = target.guard(os.getcwd())
    if not result.inside and not confirm:
        click.echo(mismatch_message(target.name, result), err=True)
        sys.exit(EXIT_WRONG_WORKSPACE)


@click.group("session")
def command() -> None:
    """Session memory for command-line work: each step carries what the earlier ones found."""


@command.command("config")
def config_cmd() -> None:
    """Print the config file's path, then the settings in effect here."""
    path = config_path()
    click.echo(path)
    config = load_config()
    click.echo(f"  {'exists' if config.source else 'not created yet (defaults in effect)'}")
    allowed = ", ".join(config.allowed_commands) or "(none: no command receives the context)"
    click.echo(f"  allowed_commands: {allowed}")
    click.echo(f"  private_networks: {str(config.private_networks).lower()}")
    settings = config.settings_for(os.getcwd())
    click.echo(f"  here: window={settings.window} max_chars={settings.max_chars}")
    for scope in config.scopes:
        click.echo(
            f"  scope {scope.path}: session={scope.session or '(derived)'} "
            f"window={scope.window} max_chars={scope.max_chars}"
        )


@command.command("build")
@session_options
@click.option("--confirm", is_flag=True, help="Build even outside the session's workspace.")
def build_cmd(session_name: str | None, task: str | None, confirm: bool) -> None:
    """Print the context block: summary, recent entries, folded older ones, cwd, workspace."""
    with opened(session_name, task) as (store, _config, target):
        stop_outside_workspace(target, confirm)
        block = context_block(store, target, os.getcwd())
        audit.record_read(target.name, "build")
    click.echo(block)


@command.command("record")
@session_options
@click.option("--role", type=click.Choice(ROLES), required=True, help="Who the entry is from.")
@click.option("--content", required=True, help="The text, or - to read it from stdin.")
def record_cmd(session_name: str | None, task: str | None, role: str, content: str) -> None:
    """Append one entry to the session (secrets are filtered before writing)."""
    text = sys.stdin.read() if content == "-" else content
    with opened(session_name, task) as (store, _config, target):
        ensure_session(store, target)
        entry_id = store.record(target.name, role, text)
    click.echo(f"session {target.name}: recorded #{entry_id} ({role})")


@command.command("checkpoint")
@session_options
@click.argument("text")
@click.option(
    "--confirmed/--unverified",
    default=False,
    help="Whether the finding was verified (default: unverified, marked as such).",
)
def checkpoint_cmd(session_name: str | None, task: str | None, text: str, confirmed: bool) -> None:
    """Record a checkpoint: a finding later steps can rely on (or not, if unverified)."""
    with opened(session_name, task) as (store, _config, target):
        ensure_session(store, target)
        entry_id = store.record(target.name, "checkpoint", text, verified=confirmed)
    state = "confirmed" if confirmed else "unverified"
    click.echo(f"session {target.name}: checkpoint #{entry_id} ({state})")


@command.command("summary")
@session_options
@click.argument("text")
def summary_cmd(session_name: str | None, task: str | None, text: str) -> None:
    """Replace the session's summary (shown first in the block)."""
    with opened(session_name, task) as (store, _config, target):
        ensure_session(store, target)
        store.set_summary(target.name, text)
    click.echo(f"session {target.name}: summary set")


@command.command("flush")
@session_options
def flush_cmd(session_name: str | None, task: str | None) -> None:
    """Delete the session and all its entries."""
    with opened(session_name, task) as (store, _config, target):
        deleted = store.delete(target.name)
    click.echo(f"session {target.name}: {'deleted' if deleted else 'did not exist'}")


@command.command("switch")
@session_options
@click.option(
    "--workspace",
    required=True,
    type=click.Path(exists=True, file_okay=False, resolve_path=True),
    help="The directory the session's work is about.",
)
def switch_cmd(session_name: str | None, task: str | None, workspace: str) -> None:
    """Bind the session (created if new) to another workspace."""
    with opened(session_name, task) as (store, _config, target):
        session = store.rebind(target.name, workspace)
    click.echo(f"session {session.id}: workspace {session.workspace}")


@command.command("truncate")
@session_options
def truncate_cmd(session_name: str | None, task: str | None) -> None:
    """Compact old entries into the summary: keep half a window, reduce the rest to key terms."""
    with opened(session_name, task) as (store, _config, target):
        folded, kept = store.compact(target.name, target.settings.window)
    click.echo(f"session {target.name}: folded {folded} entries into the summary, kept {kept}")


@command.command("list")
def list_cmd() -> None:
    """List sessions, most recently updated first."""
    with opened(None, None) as (store, _config, _target):
        sessions = store.all_sessions()
    if not sessions:
        click.echo("no sessions")
    for session, count in sessions:
        click.echo(f"{session.id}\t{count} entries\t{session.updated_at}\t{session.workspace}")


@command.command("show")
@session_options
def show_cmd(session_name: str | None, task: str | None) -> None:
    """Print the session's workspace, summary and every entry in full."""
    with opened(session_name, task) as (store, _config, target):
        session = store.require(target.name)
        entries = store.entries(session.id)
        audit.record_read(session.id, "show")
    click.echo(f"session: {session.id}")
    click.echo(f"workspace: {session.workspace}")
    click.echo(f"created: {session.created_at}  updated: {session.updated_at}")
    click.echo(f"summary: {session.summary or '(none)'}")
    for entry in entries:
        click.echo(full_entry(entry))
