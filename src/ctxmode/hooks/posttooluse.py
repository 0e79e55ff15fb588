"""PostToolUse output shaping: keep oversized shell output out of the context (Tier 2).

Only on hosts that can replace a tool's output (`Platform.can_replace_output`).
Nothing is lost: the full text is indexed in the project's knowledge base under a unique
label. A shell command's output over the wrapper's threshold becomes the same bounded
notice `ctxmode wrap` prints (`cut_output`), or passes untouched if it cannot be indexed.
Other MCP servers' results: `ctxmode.hooks.mcp_result`.
"""

from __future__ import annotations

import os

from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import search_call


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


def shape_output(
    event: HookEvent, tool_prefix: str, read_window: tuple[str, str] | None = None
) -> Decision | None:
    """A replace-output decision for an oversized shell result, or for a bounded read of a
    big file (`read_window`: the host's line-window arguments), else None (other MCP
    servers' results: `ctxmode.hooks.mcp_result`)."""
    if event.tool == "Bash":
        return cut_shell_output(event, tool_prefix)
    if event.tool == "Read" and read_window is not None:
        return note_bounded_read(event, tool_prefix, read_window)
    return None


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
    from ctxmode.storage import project

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
