"""`ctxmode doctor`: diagnostics as [OK]/[WARN]/[FAIL] lines; exit 1 on any failure."""

from __future__ import annotations

import click


@click.command(name="doctor")
@click.option("--project", "project_dir", help="Project directory (default: git root of the cwd).")
def command(project_dir: str | None) -> None:
    """Check runtimes, SQLite FTS5, storage and versions."""
    from ctxmode import doctor, project

    checks = doctor.run_checks(project.resolve_project_root(project_dir))
    click.echo(doctor.render(checks))
    if any(check.status == doctor.FAIL for check in checks):
        raise SystemExit(1)
