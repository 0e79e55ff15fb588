"""Tier 2 for hosts that can replace a tool's result: index it in full, show a bounded notice.

The host already ran the tool; what it would show the model is `ToolResult.text`. When a
host kept only part of a stream and spilled the whole of it to a file
(`ToolResult.full_stdout_path`), the file is what gets indexed, so every line of the cut
output is findable with one `ctx_search`. The notice (at most NOTICE_BYTES) is the
sandbox's shaping of `ctx_execute` output: exit code, sizes, head, every error line up to
a cap, tail, summary line, then the label and the exact search call in the host's naming.
Off the fast path: imported only when a result is over the limit.
"""

from __future__ import annotations

from ctxmode import paths
from ctxmode.hooks.plugin_rules import ToolResult
from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.output import Spool, StreamOutput, summarize_spool
from ctxmode.sandbox.shaping import (
    NOTICE_BYTES,
    SEARCH_CALL,
    CommandRun,
    StoreKnowledge,
    fit_notice,
    shape_output,
    unique_label,
)
from ctxmode.vocab.event import Decision, HookEvent


def _text_stream(text: str, collector: DiagnosticCollector) -> StreamOutput:
    collector.feed(text)
    return StreamOutput(byte_count=len(text.encode("utf-8", "surrogatepass")), head=text)


def _run(result: ToolResult) -> tuple[CommandRun, Spool | None]:
    """Read the output once: heads, tails and error lines of the full stdout and the rest."""
    collector = DiagnosticCollector()
    spool = None
    if result.full_stdout_path:
        try:
            spool = Spool.existing(result.full_stdout_path)
        except OSError as error:
            paths.append_log("hook-errors.log", f"cannot read spilled output: {error!r}")
    if spool is not None:
        stdout = summarize_spool(spool, collector)
        stderr = _text_stream(result.after_stdout, collector)
    else:
        stdout = _text_stream(result.text, collector)
        stderr = _text_stream("", collector)
    code = 0 if result.exit_code is None else result.exit_code
    outcome = kinds.Outcome("shell", code, stdout_blank=stdout.is_blank)
    run = CommandRun(code, kinds.classify(outcome), stdout, stderr, collector.result())
    return run, spool


def cut(
    event: HookEvent, result: ToolResult, prefix: str, tool_name: str, *, note: str = ""
) -> Decision | None:
    """Index the whole output under a fresh label and answer a replace-output notice.

    None (the result passes through untouched) when the output could not be indexed:
    nothing may be cut that cannot be found again.
    """
    from ctxmode import project
    from ctxmode.store.knowledge import KnowledgeBase

    safe_tool = "".join(c if c.isalnum() or c in "-_." else "_" for c in tool_name)[:40]
    label = unique_label(f"tool:{safe_tool or 'tool'}")
    search = SEARCH_CALL.format(prefix=prefix, label=label)
    run, spool = _run(result)
    try:
        root = project.resolve_project_root(event.project_dir or None)
        with KnowledgeBase.open(root) as kb:
            reply = shape_output(
                run,
                label=label,
                knowledge=StoreKnowledge(kb),
                search_hint=f"The whole output is searchable: {search}",
                budget=NOTICE_BYTES - len(note.encode("utf-8")),
            )
    finally:
        if spool is not None:
            spool.close()
    if reply.label is None:
        paths.append_log("hook-errors.log", f"cut output not indexed: {reply.text[-300:]!r}")
        return None
    meta = {"label": label, "bytes": run.stdout.byte_count + run.stderr.byte_count}
    return Decision("replace_output", context=fit_notice(reply.text, note), meta=meta)
