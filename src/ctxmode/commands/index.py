"""`ctxmode index PATH|-`: add a file, a directory or stdin to the project's knowledge base."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, NoReturn

import click

from ctxmode.commands.options import project_option

FORMAT_CHOICE = click.Choice(["markdown", "plain", "json", "code"])


@click.command(name="index")
@click.argument("path")
@click.option("--source", "label", help="Source label (default: the path, or 'stdin').")
@project_option()
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Format (default: from the extension).")
@click.option("--max-depth", default=5, show_default=True, help="Directory depth limit.")
@click.option(
    "--max-files", type=click.IntRange(min=1), help="Directory file limit (default: none)."
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    help="Directory byte budget (default: CTXMODE_INDEX_MAX_BYTES, 256 MB).",
)
@click.option("--ext", "extensions", help="Only these extensions, comma-separated (.md,.py).")
@click.option("--include", multiple=True, help="Only files matching this glob (repeatable).")
@click.option("--exclude", multiple=True, help="Skip files matching this glob (repeatable).")
@click.option("--no-gitignore", is_flag=True, help="Index files that .gitignore excludes.")
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON (directories).")
def command(
    path: str,
    label: str | None,
    project_dir: str | None,
    fmt: str | None,
    max_depth: int,
    max_files: int | None,
    max_bytes: int | None,
    extensions: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    no_gitignore: bool,
    follow_symlinks: bool,
    as_json: bool,
) -> None:
    """Index PATH (a file, a directory, or - for stdin) for `ctxmode search`."""
    from ctxmode.policy.secrets import explicit_redaction_off
    from ctxmode.storage import project, schema
    from ctxmode.store.knowledge import KnowledgeBase

    # The project comes from the cwd (or --project), never from PATH: `search` run from
    # the same place must find what `index` stored.
    root = project.resolve_project_root(project_dir)
    with schema.project_database(root) as conn:
        kb = KnowledgeBase(conn)
        if path == "-":
            result = kb.index_text(
                label or "stdin",
                _read_stdin(),
                fmt or "markdown",
                redact=not explicit_redaction_off(),
            )
        elif os.path.isdir(path):
            walk = {
                "include": list(include) or None,
                "exclude": list(exclude) or None,
                "max_depth": max_depth,
                "max_files": max_files,
                "max_bytes": max_bytes,
                "extensions": [e.strip() for e in (extensions or "").split(",") if e.strip()]
                or None,
                "respect_gitignore": not no_gitignore,
                "follow_symlinks": follow_symlinks,
            }
            _index_directory(kb, path, label, walk, as_json)
            return
        else:
            result = kb.index_file(path, label, fmt=fmt)
    if result.unchanged:
        click.echo(f"{result.label} is unchanged since it was indexed: nothing to do")
        return
    click.echo(
        f"Indexed {result.chunk_count} sections ({result.code_chunk_count} code) "
        f"from {result.label}"
    )
    if result.replaced_file:
        click.echo(f"(source {result.label} held {result.replaced_file} until now)")


def _read_stdin() -> str:
    from ctxmode.store.knowledge import StoreInputError

    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StoreInputError("stdin is not valid UTF-8 text; nothing indexed") from None


def _index_directory(
    kb: Any, path: str, label: str | None, walk: dict[str, Any], as_json: bool
) -> None:
    """Index a directory, a progress bar on a terminal; then what was indexed and skipped."""
    from ctxmode.store.directory import IndexingInterrupted, replaced_lines, skipped_lines
    from ctxmode.store.walk import OVER_MAX_BYTES

    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # only a person watching a terminal wants a bar
            if as_json or not sys.stderr.isatty():
                return
            bar = click.progressbar(length=total, label="Indexing", file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        result = kb.index_directory(path, label_prefix=label, progress=progress, **walk)
    except IndexingInterrupted as stopped:
        _report_interrupted(stopped.result)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if as_json:
        click.echo(json.dumps(result.as_json(), indent=2))
        return
    unchanged = f"; {result.unchanged} unchanged, skipped" if result.unchanged else ""
    click.echo(
        f"Indexed {result.indexed} files ({result.chunk_count} sections, "
        f"{result.code_chunk_count} with code; {result.read_bytes:,} bytes read{unchanged}) "
        f"as {result.labels_text}"
    )
    for line in skipped_lines(result) + replaced_lines(result):
        click.echo(line)
    if result.skipped.count(OVER_MAX_BYTES):
        click.echo(
            f"The byte budget was {result.max_bytes:,} bytes: raise it with --max-bytes "
            "or CTXMODE_INDEX_MAX_BYTES, or narrow the walk with --exclude."
        )


def _report_interrupted(result: Any) -> NoReturn:
    """Ctrl-C: how far it got; each file done is indexed whole, so the index stays usable."""
    from ctxmode.cli import INTERRUPTED

    done = result.indexed + result.unchanged
    click.echo(
        f"\nInterrupted: {done} of {result.planned} files done ({result.indexed} indexed, "
        f"{result.unchanged} unchanged; {result.read_bytes:,} bytes read). What was indexed "
        "is complete and searchable; run the same command again to index the rest "
        "(files already done are skipped).",
        err=True,
    )
    sys.exit(INTERRUPTED)
