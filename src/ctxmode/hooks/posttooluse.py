"""PostToolUse output shaping: keep oversized tool output out of the context (Tier 2).

Only on hosts that can replace a tool's output (`Platform.can_replace_output`).
Nothing is lost: the full text is indexed in the project's knowledge base under a unique
label. An external MCP tool's output keeps its head and tail around a cut that names the
label (if indexing fails, the text is saved under `<data root>/outputs/` instead); a
shell command's output over the wrapper's threshold becomes the same bounded notice
`ctxmode wrap` prints (`cut_output`), or passes untouched if it cannot be indexed.
"""

from __future__ import annotations

import os
import time

from ctxmode import paths, settings
from ctxmode.hooks import throttle
from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import is_external_mcp, search_call

HEAD_CHARS = 6_000
TAIL_CHARS = 3_000


def output_limit() -> int:
    return settings.integer(settings.MCP_OUTPUT_LIMIT)  # at least HEAD_CHARS + TAIL_CHARS


def output_text(output: object) -> str | None:
    """The text of a tool output (a string, MCP content blocks, or `{content: [...]}`)."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        output = output.get("content")
    if not isinstance(output, list):
        return None
    texts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(texts) if texts else None


def shell_output_text(output: object) -> str | None:
    """The whole text of a shell tool's result as the host sent it to the hook: a string,
    Claude-style `{stdout, stderr}` or Gemini-style `{llmContent}`; None for other shapes."""
    if isinstance(output, str):
        return output
    if not isinstance(output, dict):
        return None
    if isinstance(output.get("stdout"), str):
        stderr = output.get("stderr")
        return output["stdout"] + (f"\n{stderr}" if isinstance(stderr, str) and stderr else "")
    content = output.get("llmContent")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(texts) if texts else None
    return None


def replacement_like(original: object, text: str) -> object:
    """`text` in the same shape as the original output, for hosts that replace it."""
    block = [{"type": "text", "text": text}]
    if isinstance(original, str):
        return text
    if isinstance(original, dict) and isinstance(original.get("stdout"), str):
        return {**original, "stdout": text, "stderr": ""}
    read = original.get("file") if isinstance(original, dict) else None
    if (
        isinstance(original, dict)
        and isinstance(read, dict)
        and isinstance(read.get("content"), str)
    ):
        return {**original, "file": {**read, "content": text}}  # a file read
    if isinstance(original, dict):
        return {**original, "content": block}
    return block


def cut_text(text: str, where: str, tool_prefix: str) -> str:
    """Head and tail of `text` around a notice that says where the whole text is."""
    notice = (
        f"\n\n[ctxmode: {len(text) - HEAD_CHARS - TAIL_CHARS:,} of {len(text):,} characters cut "
        f"here. {where}]\n\n"
    )
    return text[:HEAD_CHARS] + notice + text[-TAIL_CHARS:]


INDEX_PIECE_CHARS = 1 << 20


def index_output(event: HookEvent, text: str) -> tuple[str, str]:
    """Index `text` in the project's knowledge base under a new label, within the call's
    bound on the data root; return the label and the note when the bound cut it short."""
    import secrets

    from ctxmode import project
    from ctxmode.sandbox.budget import IndexGuard, call_cap, database_path
    from ctxmode.store.knowledge import KnowledgeBase

    safe_tool = "".join(c if c.isalnum() or c in "-_." else "_" for c in event.tool)[:60]
    label = f"mcp-output:{safe_tool}:{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"
    root = project.resolve_project_root(event.project_dir or None)
    step = INDEX_PIECE_CHARS
    pieces = (text[at : at + step] for at in range(0, len(text), step))
    with KnowledgeBase.open(root) as kb:
        guard = IndexGuard(call_cap(), database_path(kb.conn))
        kb.index_stream(label, guard.pieces(pieces), "plain", session_id=event.session_id or None)
    return label, guard.note()


def save_output(session_id: str, tool: str, text: str) -> str:
    directory = os.path.join(paths.data_root(), "outputs", throttle.session_key(session_id))
    paths.ensure_dir(directory)
    safe_tool = "".join(c if c.isalnum() or c in "-_." else "_" for c in tool)[:80]
    path = os.path.join(directory, f"{time.time_ns()}-{os.getpid()}-{safe_tool}.txt")
    from ctxmode.policy.secrets import redact

    with open(path, "w", encoding="utf-8", errors="replace") as handle:
        handle.write(redact(text))
    return path


def shape_output(
    event: HookEvent, tool_prefix: str, read_window: tuple[str, str] | None = None
) -> Decision | None:
    """A replace-output decision for an oversized shell or external-MCP result, or for a
    bounded read of a big file (`read_window`: the host's line-window arguments), else None."""
    if event.tool == "Bash":
        return cut_shell_output(event, tool_prefix)
    if event.tool == "Read" and read_window is not None:
        return note_bounded_read(event, tool_prefix, read_window)
    if not is_external_mcp(event.tool):
        return None
    text = output_text(event.tool_output)
    if text is None or len(text) <= output_limit():
        return None
    try:
        label, stopped = index_output(event, text)
        what = f"Its first part ({stopped})" if stopped else "The full output"
        where = (
            f"{what} is indexed as source '{label}': query it with "
            f"{search_call(tool_prefix + 'ctx_search', label)}."
        )
    except Exception as error:  # the store is unusable: keep the text as a file instead
        paths.append_log("hook-errors.log", f"indexing cut MCP output failed: {error!r}")
        saved = save_output(event.session_id, event.tool, text)
        where = (
            f"The full output is saved in {saved}: index it with {tool_prefix}ctx_index(path) "
            f"and query it with {tool_prefix}ctx_search."
        )
    return Decision.replace_output(cut_text(text, where, tool_prefix))


def cut_shell_output(event: HookEvent, tool_prefix: str) -> Decision | None:
    """A shell command's output over the wrapper's threshold: indexed whole, and replaced by
    the notice `ctxmode wrap` would have printed (a command routing did not rewrite, or a
    host that ran it unwrapped)."""
    from ctxmode._wrap import threshold

    text = shell_output_text(event.tool_output)
    if text is None:
        return None
    spilled = _spilled_file(event.tool_output, text)
    size = os.path.getsize(spilled) if spilled else len(text.encode("utf-8", "surrogatepass"))
    if size <= threshold():
        return None
    _remember_bulky(event)
    from ctxmode.hooks.cut_output import cut
    from ctxmode.hooks.plugin_rules import ToolResult

    code = _stated_exit_code(text)
    result = ToolResult(text, exit_code=code, full_stdout_path=spilled or "")
    return cut(event, result, tool_prefix, "shell")


def remember_failed_bulky(event: HookEvent) -> None:
    """A failed shell command whose output (the host's `error` text) is over the wrapper's
    threshold goes into the project's history."""
    from ctxmode._wrap import threshold

    error = event.raw.get("error")
    if event.tool != "Bash" or not isinstance(error, str):
        return
    if len(error.encode("utf-8", "surrogatepass")) > threshold():
        _remember_bulky(event)


def _remember_bulky(event: HookEvent) -> None:
    """Record the command in the project's history, so a host that cannot rewrite silently
    wraps it before its next run (a command that already ran wrapped is not recorded)."""
    from ctxmode.hooks.bulky import WRAPPED_MARKS

    command = event.tool_input.get("command")
    if isinstance(command, str) and not any(mark in command for mark in WRAPPED_MARKS):
        from ctxmode.hooks import wrap_history
        from ctxmode.hooks.bulky import split_leading_cd

        wrap_history.record(event.project_dir, split_leading_cd(command)[1])


SPILL_HEADER_CHARS = 400  # the host's own first lines, before any of the command's output


def _spilled_file(output: object, text: str) -> str | None:
    """The file where the host saved the whole output when it kept only part of it (Claude
    Code: `persistedOutputPath`; Qwen Code: "The full output has been saved to: PATH";
    Copilot CLI: "Saved to: PATH", read from the host's header only, so a command printing
    such a line names nothing)."""
    path = output.get("persistedOutputPath") if isinstance(output, dict) else None
    header = text[:SPILL_HEADER_CHARS]
    if not isinstance(path, str) and "saved to" in header.lower():  # `re` only when needed
        import re

        found = re.search(r"(?i)saved to:?\s+(/[^\s]+?)[.,;]?(?:\s|$)", header)
        path = found.group(1) if found else None
    return path if isinstance(path, str) and os.path.isfile(path) else None


def _stated_exit_code(text: str) -> int | None:
    """The exit code a host wrote into a shell result (`Exit code: 1`, Gemini's `Exit Code:`)."""
    import re

    found = re.search(r"(?im)^exit code:\s*(-?\d+)\s*$", text)
    return int(found.group(1)) if found else None


def read_content(output: object) -> tuple[str, int, int, int] | None:
    """A file read's text, first line, line count and the file's total lines (0 if unsaid)."""
    read = output.get("file") if isinstance(output, dict) else None
    if not isinstance(read, dict) or not isinstance(read.get("content"), str):
        return None
    numbers = [read.get(key) for key in ("startLine", "numLines", "totalLines")]
    start, count, total = (n if isinstance(n, int) else 0 for n in numbers)
    return read["content"], start or 1, count, total


def note_bounded_read(
    event: HookEvent, tool_prefix: str, read_window: tuple[str, str]
) -> Decision | None:
    """A line window of a file over the read threshold (ours or the model's own) gets, inside
    the result itself, where the whole file is indexed and the exact search call: context
    added beside a result is easily missed. The file is indexed now if it is not yet."""
    from ctxmode.hooks import bigread

    found = read_content(event.tool_output)
    path = event.tool_input.get("file_path")
    if (
        found is None
        or not isinstance(path, str)
        or not any(k in event.tool_input for k in read_window)
    ):
        return None
    real = bigread.resolve(path, event.project_dir)
    try:
        size = os.path.getsize(real)
    except OSError:
        return None
    if size <= bigread.read_threshold():
        return None
    from ctxmode import project

    root = project.resolve_project_root(event.project_dir or None)
    label = bigread.file_label(real, root)
    if not bigread.ensure_indexed(real, root, label, size):
        return None
    text, start, count, total = found
    lines = f"lines {start:,}–{start + max(count, 1) - 1:,}" + (f" of {total:,}" if total else "")
    note = (
        f"[ctxmode: this read shows {lines} of {path} ({size:,} bytes). The whole file is "
        f"indexed as source '{label}': {search_call(tool_prefix + 'ctx_search', label)}, then "
        "read only the lines you need (offset and limit).]"
    )
    return Decision.replace_output(text.rstrip("\n") + "\n\n" + note)
