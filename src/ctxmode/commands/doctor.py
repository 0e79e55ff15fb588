"""`ctxmode doctor`: diagnostics as [OK]/[WARN]/[FAIL] lines; exit 1 on any failure."""

from __future__ import annotations

import click


@click.command(name="doctor")
@click.option("--project", "project_dir", help="Project directory (default: git root of the cwd).")
@click.option(
    "--e2e",
    is_flag=True,
    help="Also run each set-up host's registered hooks and MCP server as the host would.",
)
def command(project_dir: str | None, e2e: bool) -> None:
    """Check runtimes, SQLite FTS5, storage and versions."""
    from ctxmode import doctor, project

    root = project.resolve_project_root(project_dir)
    checks = doctor.run_checks(root)
    if e2e:
        from ctxmode.doctor_e2e import e2e_checks

        checks.extend(e2e_checks(root))
    click.echo(doctor.render(checks))
    if any(check.status == doctor.FAIL for check in checks):
        raise SystemExit(1)
