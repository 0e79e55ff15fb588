"""The wrapper's slow path: its two spilled streams indexed in full, a notice in their place.

The notice is `ctxmode.sandbox.indexed_notice`'s, as for Tier 2; this module reads the
wrapper's capture and names the label after the command's first word.
"""

from __future__ import annotations

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.indexed_notice import index_with_notice, notice_label
from ctxmode.sandbox.output import summarize_spool
from ctxmode.sandbox.shaping import CommandRun
from ctxmode.wrapper.capture import Captured


def tool_prefix(host_id: str) -> str:
    """How the host names our MCP tools ("" for an unknown host: the bare tool name)."""
    from ctxmode.platforms import load
    from ctxmode.vocab.toolnames import SERVER_NAME

    platform = load(host_id)
    return platform.tool_prefix(SERVER_NAME) if platform is not None else ""


def _assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier()


def command_label(command: str) -> str:
    """A fresh label naming the command's first word after any `NAME=value`, e.g.
    `cmd:pytest:20261201T150405-3f9a1c`."""
    words = [word for word in command.split() if not _assignment(word)]
    first = words[0].rstrip(";&|").rsplit("/", 1)[-1] if words else ""
    return notice_label("cmd", first, "shell")


def wrapped_run(captured: Captured) -> CommandRun:
    """Read the spilled output once: heads, tails and diagnostic lines of both streams."""
    collector = DiagnosticCollector()
    stdout = summarize_spool(captured.spools[0], collector)
    stderr = summarize_spool(captured.spools[1], collector)
    # Not "shell": a test runner's exit 1 is a failure, not grep's "no match".
    outcome = kinds.Outcome("command", captured.exit_code, stdout_blank=stdout.is_blank)
    notes = []
    if captured.dropped:
        notes.append(f"{captured.dropped:,} bytes past the spool cap or a full disk were not kept")
    return CommandRun(
        captured.exit_code, kinds.classify(outcome), stdout, stderr, collector.result(), notes
    )


def build_notice(
    captured: Captured, command: str, host_id: str, project_dir: str, prefix: str | None = None
) -> str:
    """Index the whole output in the project's knowledge base; return the notice.

    `prefix`: what the host puts before our tools' names (None: the host's usual one).

    Raises `IndexingFailed` when the output could not be indexed (then nothing may be cut).
    """
    return index_with_notice(
        wrapped_run(captured),
        label=command_label(command),
        prefix=tool_prefix(host_id) if prefix is None else prefix,
        project_dir=project_dir,
        inline_limit=-1,  # the wrapper already found the output too big to print
    )
