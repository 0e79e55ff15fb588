"""Reading a tool call's result the same way whatever the host sent: text, error flag, duration.

Hosts send a string, a `{stdout, stderr}` dict, an MCP `{content: [{text}], isError}`
result, a Copilot `{resultType, textResultForLlm}` or a list of parts. Hot path: no imports.
"""

from __future__ import annotations

TEXT_KEYS = (
    "stdout", "stderr", "output", "result", "content", "text", "textResultForLlm",
    "text_result_for_llm", "error", "message", "response", "llmContent", "returnDisplay",
)  # fmt: skip
EXIT_KEYS = ("exit_code", "exitCode", "returncode", "return_code", "status_code_shell")
DURATION_KEYS = ("duration_ms", "durationMs", "elapsed_ms", "elapsedMs")
MAX_TEXT = 200_000  # look at no more than this much of any output


def output_text(output: object, depth: int = 0) -> str:
    """All the text of a tool result, parts joined by newlines (capped)."""
    if output is None or depth > 4:
        return ""
    if isinstance(output, str):
        return output[:MAX_TEXT]
    if isinstance(output, (int, float, bool)):
        return str(output)
    if isinstance(output, list):
        parts = [output_text(item, depth + 1) for item in output[:200]]
        return "\n".join(p for p in parts if p)[:MAX_TEXT]
    if isinstance(output, dict):
        parts = [output_text(output[key], depth + 1) for key in TEXT_KEYS if key in output]
        return "\n".join(p for p in parts if p)[:MAX_TEXT]
    return ""


def exit_code(output: object) -> int | None:
    """An explicit exit code in a structured result, else None."""
    if isinstance(output, dict):
        for key in EXIT_KEYS:
            value = output.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def flagged_error(output: object, raw: dict) -> bool:
    """True when the host itself marks the result as a failure."""
    for holder in (output, raw.get("toolResult"), raw.get("tool_result")):
        if not isinstance(holder, dict):
            continue
        if holder.get("isError") is True or holder.get("is_error") is True:
            return True
        if holder.get("success") is False:
            return True
        if str(holder.get("resultType", "")).lower() in ("failure", "error", "denied"):
            return True
    code = exit_code(output)
    return code is not None and code != 0


def duration_ms(output: object, raw: dict) -> float:
    """A duration the host reports for the call (ms), else 0."""
    for holder in (output, raw):
        if isinstance(holder, dict):
            for key in DURATION_KEYS:
                value = holder.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    return float(value)
    return 0.0
