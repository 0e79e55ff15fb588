"""`ctxmode insight`: serve the local dashboard and print its URL."""

from __future__ import annotations

import click

from ctxmode.commands.options import project_option


@click.command(name="insight")
@click.option(
    "--port", default=0, type=click.IntRange(0, 65535), help="Port (default: a free one)."
)
@click.option("--no-browser", is_flag=True, help="Only print the URL; do not open a browser.")
@project_option("Project shown first (default: git root of the cwd).")
@click.option("--idle-minutes", default=0.0, type=click.FloatRange(0), hidden=True,
              help="Stop after this long without a request (0: never).")  # fmt: skip
@click.option("--exit-with-parent", is_flag=True, hidden=True,
              help="Stop when the process that started this one exits.")  # fmt: skip
def command(
    port: int,
    no_browser: bool,
    project_dir: str | None,
    idle_minutes: float,
    exit_with_parent: bool,
) -> None:
    """Open a dashboard of what ctxmode kept out of the context, on 127.0.0.1 only."""
    from ctxmode import paths
    from ctxmode.errors import CtxmodeError
    from ctxmode.insight import serve
    from ctxmode.insight.app import Dashboard
    from ctxmode.storage import project

    dashboard = Dashboard(paths.data_root(), project.resolve_project_root(project_dir))
    try:
        sock = serve.bind(port)
    except OSError as error:
        raise CtxmodeError(f"cannot listen on 127.0.0.1:{port}: {error}") from None
    serve.run(
        dashboard,
        sock,
        open_browser=not no_browser,
        idle_minutes=idle_minutes,
        exit_with_parent=exit_with_parent,
        announce=lambda url: click.echo(f"ctxmode insight: {url}  (Ctrl-C stops it)"),
    )
