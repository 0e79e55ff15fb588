"""The `ctxmode` command line: a thin layer over the library.

Each subcommand lives in `ctxmode/commands/<name>.py` as a click object named
`command` and is imported only when used, so `ctxmode --help` stays quick.
"""

from __future__ import annotations

import difflib
import importlib
import os
import signal
import sys
import threading
from typing import NoReturn

import click

from ctxmode import __version__
from ctxmode.errors import on_interrupt, was_interrupted

# name -> (module, one-line help shown by `ctxmode --help`)
SUBCOMMANDS: dict[str, tuple[str, str]] = {}


def register(name: str, module: str, help_text: str) -> None:
    SUBCOMMANDS[name] = (module, help_text)


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        # The one place a command's failure becomes what the user sees: one line on stderr
        # and the exit code of its kind (see ctxmode.errors); never a traceback.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, on_interrupt)
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
            return result
        except (click.exceptions.ClickException, click.exceptions.Abort, click.exceptions.Exit):
            raise
        except BrokenPipeError:
            _closed_pipe()
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(INTERRUPTED)
        except Exception as error:
            if was_interrupted():  # a Ctrl-C that SQLite reported as its own error
                click.echo("Interrupted.", err=True)
                sys.exit(INTERRUPTED)
            fail(error)
        finally:
            _pass_on_notices()

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            hint = did_you_mean(name, self.list_commands(ctx))
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *SUBCOMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in SUBCOMMANDS:
            module = importlib.import_module(SUBCOMMANDS[cmd_name][0])
            return module.command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SUBCOMMANDS[name][1]) for name in sorted(SUBCOMMANDS)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def did_you_mean(given: str, known: list[str]) -> str:
    """ " Did you mean 'x'?" for the known names closest to a mistyped one, else ""."""
    close = difflib.get_close_matches(given, known, n=3, cutoff=0.6)
    close += [name for name in known if given and name.startswith(given) and name not in close]
    return f" Did you mean {' or '.join(repr(c) for c in close[:3])}?" if close else ""


INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a Ctrl-C
CLOSED_PIPE = 141  # 128 + SIGPIPE, what a shell reports when a reader went away


def _closed_pipe() -> NoReturn:
    """The reader of our output went away (`| head`): stop quietly, as a shell tool does.

    stdout is pointed at /dev/null so the interpreter's final flush cannot fail again.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(CLOSED_PIPE)


def fail(error: Exception) -> NoReturn:
    from ctxmode import failures

    _pass_on_notices()  # what happened before the failure (e.g. a recovery) comes first
    root = failures.data_root_or_placeholder()
    explained = failures.explain(
        error, database=f"under {root}", log="errors.log", context=" ".join(sys.argv)
    )
    click.echo(f"Error: {explained}", err=True)  # the form click uses for its own errors
    sys.exit(explained.exit_code)


def _pass_on_notices() -> None:
    from ctxmode.storage import db

    for notice in db.take_notices():
        click.echo(f"ctxmode: {notice}", err=True)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ctxmode")
def cli() -> None:
    """Keep an AI coding agent's context window clean."""


# The hook command is dispatched before click loads (see ctxmode._entry); it is
# listed here so `ctxmode --help` shows it.
register("hook", "ctxmode.commands.hook", "Answer one host hook event (stdin JSON -> stdout).")
register("serve", "ctxmode.commands.serve", "Run the MCP server over stdio (hosts start this).")
register("doctor", "ctxmode.commands.doctor", "Check runtimes, SQLite FTS5, storage and versions.")
register("stats", "ctxmode.commands.stats", "Show what was kept out of context, per tool.")
register("session", "ctxmode.commands.session", "Session memory for command-line work.")
register("run", "ctxmode.commands.run", "Run a command with session context; record it.")
register("wrap", "ctxmode.commands.wrap", "Run a command; index big output, print a notice.")
register(
    "setup",
    "ctxmode.commands.setup",
    "Register ctxmode hooks with a host (claude-code, qwen-code, ...).",
)
register("index", "ctxmode.commands.index", "Index a file, directory or stdin for search.")
register("search", "ctxmode.commands.search", "Search the project's knowledge base.")
register("purge", "ctxmode.commands.purge", "Delete everything indexed for this project.")
register("insight", "ctxmode.commands.insight", "Open a local dashboard of what was kept out.")
