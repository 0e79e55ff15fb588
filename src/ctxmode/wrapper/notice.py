"""The wrapper's slow path: index a big output in full and say what matters in a notice.

The notice (at most NOTICE_BYTES) is the shaping the sandbox gives `ctx_execute` output
(exit code, sizes, head, every diagnostic line up to a cap, tail, the summary line),
ending with the label and the exact search call, in the host's tool naming.
"""

from __future__ import annotations

from ctxmode.errors import CtxmodeError
from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.output import summarize_spool
from ctxmode.sandbox.shaping import (
    NOTICE_BYTES,
    SEARCH_CALL,
    CommandRun,
    StoreKnowledge,
    fit_notice,
    shape_output,
    unique_label,
)
from ctxmode.wrapper.capture import Captured


def tool_prefix(host_id: str) -> str:
    """How the host names our MCP tools ("" for an unknown host: the bare tool name)."""
    from ctxmode.platforms import load
    from ctxmode.vocab.toolnames import SERVER_NAME

    platform = load(host_id)
    return platform.tool_prefix(SERVER_NAME) if platform is not None else ""


def command_label(command: str) -> str:
    """A fresh label naming the command's first word, e.g. `cmd:pytest:20261201T150405-3f9a1c`."""
    words = command.split()
    name = words[0].rsplit("/", 1)[-1] if words else "shell"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40] or "shell"
    return unique_label(f"cmd:{safe}")


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


def build_notice(captured: Captured, command: str, host_id: str, project_dir: str) -> str:
    """Index the whole output in the project's knowledge base; return the notice.

    Raises `IndexingFailed` when the output could not be indexed (then nothing may be cut).
    """
    from ctxmode import project
    from ctxmode.store.knowledge import KnowledgeBase

    run = wrapped_run(captured)
    label = command_label(command)
    search = SEARCH_CALL.format(prefix=tool_prefix(host_id), label=label)
    root = project.resolve_project_root(project_dir or None)
    with KnowledgeBase.open(root) as kb:
        reply = shape_output(
            run,
            label=label,
            knowledge=StoreKnowledge(kb),
            search_hint=f"The whole output is searchable: {search}",
            budget=NOTICE_BYTES,
            inline_limit=-1,  # the wrapper already found the output too big to print
        )
    if reply.label is None:
        raise IndexingFailed(reply.text.rsplit("\n", 1)[-1])
    return fit_notice(reply.text)


class IndexingFailed(CtxmodeError):
    """The knowledge base did not take the output."""
