"""`ctxmode wrap COMMAND`: run a shell command; print small output as is, index big output.

Routing rewrites commands to the `ctxmode-wrap` console script (`ctxmode._wrap`), the
import-light form of the same entry; this click command is for people and scripts:
`ctxmode wrap -- 'pytest -q'`.
"""

from __future__ import annotations

import click


@click.command("wrap", context_settings={"ignore_unknown_options": True})
@click.option(
    "--host",
    default="",
    help="Platform id whose tool names the notice uses (claude-code, codex, ...).",
)
@click.option("--project", default="", help="Project directory (default: found from the cwd).")
@click.argument("command_text", metavar="COMMAND")
def command(host: str, project: str, command_text: str) -> None:
    """Run COMMAND (one shell string) through your shell with the same cwd, environment,
    stdin and exit code. Output up to CTXMODE_WRAP_THRESHOLD bytes (5,000) is printed
    unchanged; bigger output is indexed in the project's knowledge base and replaced by a
    notice of at most 2 KB: exit code, errors, head, tail and the search call for the rest.
    """
    from ctxmode._wrap import main

    main(["--host", host, "--project", project, "--", command_text])
