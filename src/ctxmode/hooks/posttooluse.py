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
    if isinstance(original, dict):
        return {**original, "content": block}
    return block


def shape_output(event: HookEvent, tool_prefix: str) -> Decision | None:
    """A replace-output decision for an oversized shell result, else None (other MCP
    servers' results: `ctxmode.hooks.mcp_result`)."""
    if event.tool == "Bash":
        return cut_shell_output(event, tool_prefix)
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
    from ctxmode.hooks.cut_output import cut
    from ctxmode.hooks.plugin_rules import ToolResult

    code = _stated_exit_code(text)
    result = ToolResult(text, exit_code=code, full_stdout_path=spilled or "")
    return cut(event, result, tool_prefix, "shell")


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
