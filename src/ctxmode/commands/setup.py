"""`ctxmode setup PLATFORM`: register ctxmode's hooks and MCP server with a host.

The hook command is the absolute venv interpreter with `-I -S` importing
`ctxmode._hook` from this installation (no console-script shim, no site scan), so
each tool call costs an interpreter start plus a few milliseconds. Each host module
computes its own file changes (`install_changes` / `uninstall_changes`); this command
prints or applies them. Files are merged, never clobbered: other hooks and servers are
kept, our earlier entries replaced, and the user's own file is kept as
`<name>.ctxmode-backup`. `--uninstall` removes exactly our entries and leaves the files
as they were before setup (the rules are in `ctxmode.platforms._install`); with
`--project DIR` it leaves the user-level files other projects use too. Hosts that cannot
inject the routing block at session start get it in their instruction file instead.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from ctxmode.commands.options import project_option
from ctxmode.launch import fast_hook_prefix, precompile, server_command
from ctxmode.platforms import REGISTRY, load
from ctxmode.platforms._install import InstallError

if TYPE_CHECKING:
    from ctxmode.platforms._install import Change
    from ctxmode.vocab.platform import Installer


def target_dir(platform: str, scopes: tuple[str, ...], project_dir: str) -> str:
    """The project dir to install into ("" = user scope), or an InstallError."""
    if project_dir:
        if "project" not in scopes:
            raise InstallError(f"{platform} has no project-scope config; run without --project")
        return os.path.abspath(project_dir)
    if "user" in scopes:
        return ""
    from ctxmode.storage.project import resolve_project_root

    return resolve_project_root()  # a project-only host: this project


def describe(change: Change) -> str:
    if change.after is None:
        return f"delete {change.path}"
    return f"{'update' if change.before is not None else 'create'} {change.path}"


class HostName(click.ParamType):
    """A registered host id; a mistyped one gets the closest ids and the list, once."""

    name = "platform"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "PLATFORM"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if value in REGISTRY:
            return value
        from ctxmode.cli import did_you_mean

        hint = did_you_mean(value, sorted(REGISTRY))
        self.fail(f"unknown host {value!r}.{hint} Hosts: {', '.join(sorted(REGISTRY))}.")


@click.command("setup", epilog=f"PLATFORM is one of: {', '.join(sorted(REGISTRY))}.")
@click.argument("platform", type=HostName())
@click.option(
    "--print", "print_only", is_flag=True, help="Show what would be written; change nothing."
)
@project_option("Write the project's config (in DIR) instead of the user's.")
@click.option("--uninstall", is_flag=True, help="Remove ctxmode's hooks and MCP server entry.")
@click.option(
    "--profile",
    "chosen",
    multiple=True,
    help="A profile of a host that has them (DSH); repeatable. Default: every existing one.",
)
@click.option(
    "--threshold",
    type=click.IntRange(min=0),
    default=None,
    metavar="BYTES",
    help="Plugin hosts: a tool output over BYTES is indexed and replaced by a notice "
    "(default 20000; a re-run without it keeps the last value).",
)
def command(
    platform: str,
    print_only: bool,
    project_dir: str | None,
    uninstall: bool,
    chosen: tuple[str, ...],
    threshold: int | None,
) -> None:
    """Register ctxmode's hooks and MCP server with PLATFORM (merged, never clobbered)."""
    from ctxmode.platforms._install import apply, drop_backups, restoring
    from ctxmode.platforms._instructions import instruction_changes

    host = load(platform)
    assert host is not None  # HostName admits registered ids only
    installer = host.installer
    root = target_dir(platform, installer.scopes, project_dir or "")
    prefix = fast_hook_prefix()
    profiles = {"chosen": chosen} if installer.profiles else {}
    if chosen and not profiles:
        raise InstallError(f"{platform} has no profiles; run without --profile")
    if threshold is not None and not installer.threshold:
        raise InstallError(f"{platform} has no output threshold; run without --threshold")
    options = {**profiles, **({"threshold": threshold} if installer.threshold else {})}
    if uninstall:  # an InstallError is reported like any other (see ctxmode.cli)
        changes = installer.uninstall_changes(root, **profiles)
    else:
        changes = installer.install_changes(prefix, server_command(), root, **options)
    changes += instruction_changes(host, root, uninstall)
    shared = []  # one project's uninstall: the user-level files other projects use stay
    if uninstall:
        one_project = bool(project_dir)
        shared = [c for c in changes if one_project and c.shared and c.changed]
        changes = restoring([c for c in changes if not (one_project and c.shared)])
    pending = [change for change in changes if change.changed]
    if print_only:
        _print_plan(installer, prefix, pending, uninstall)
        return
    if not uninstall:
        precompile()
    for change in pending:
        try:
            apply(change, uninstall=uninstall)
        except OSError as error:
            raise InstallError(f"cannot write {change.path}: {error}") from None
        done = describe(change)
        click.echo(done[0].upper() + done[1:])
    if uninstall:
        drop_backups(changes)
    for change in shared:
        click.echo(
            f"Kept {change.path}: other projects use it "
            f"(`ctxmode setup {platform} --uninstall` without --project removes it)"
        )
    if not pending and not shared:
        click.echo(f"ctxmode is already {'absent from' if uninstall else 'set up for'} {platform}")
    if installer.note and not uninstall:
        click.echo(installer.note)


def _print_plan(installer: Installer, prefix: str, pending: list[Change], uninstall: bool) -> None:
    if not uninstall:
        for host_event, line in installer.hook_commands(prefix).items():
            click.echo(f"{host_event}: {line}")
    if not pending:
        click.echo("Nothing to change.")
    for change in pending:
        shown = change.after is not None and not change.owned  # our own files: just the path
        click.echo(f"\nWould {describe(change)}" + (":" if shown else ""))
        if shown:
            click.echo((change.after or "").rstrip("\n"))
