"""`ctxmode doctor`: diagnostics as [OK]/[WARN]/[FAIL] lines; exit 1 on any failure."""

from __future__ import annotations

import click

from ctxmode.commands.options import project_option


@click.command(name="doctor")
@project_option()
@click.option(
    "--e2e",
    is_flag=True,
    help="Also run each set-up host's registered hooks and MCP server as the host would.",
)
@click.option(
    "--config",
    "show_config",
    is_flag=True,
    help="Print each setting's effective value and where it came from, then exit.",
)
def command(project_dir: str | None, e2e: bool, show_config: bool) -> None:
    """Check runtimes, SQLite FTS5, storage and versions."""
    from ctxmode import doctor
    from ctxmode.storage import project

    root = project.resolve_project_root(project_dir)
    if show_config:
        click.echo("\n".join(doctor.config_lines(root)))
        return
    checks = doctor.run_checks(root)
    if e2e:
        from ctxmode.doctor.e2e import e2e_checks

        checks.extend(e2e_checks(root))
    click.echo(doctor.render(checks))
    if any(check.status == doctor.FAIL for check in checks):
        raise SystemExit(1)
