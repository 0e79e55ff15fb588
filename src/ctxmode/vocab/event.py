"""The host-free hook vocabulary: one normalized `HookEvent` in, one `Decision` out.

Every platform module parses its host's payload into a `HookEvent` and renders a
`Decision` (or `None`, passthrough) into its host's envelope. Plain slotted
classes rather than dataclasses: this module is on the hook path, where the
`dataclasses` import alone costs more than the decision.
"""

from __future__ import annotations

# Canonical event names (host names are mapped onto these by each platform module).
PRE_TOOL_USE = "pre_tool_use"
POST_TOOL_USE = "post_tool_use"
POST_TOOL_USE_FAILURE = "post_tool_use_failure"  # a tool call that failed (a non-zero exit)
SESSION_START = "session_start"
PRE_COMPACT = "pre_compact"
USER_PROMPT_SUBMIT = "user_prompt_submit"
STOP = "stop"
SESSION_END = "session_end"
AGENT_SPAWN = "agent_spawn"
AFTER_MODEL = "after_model"
BEFORE_AGENT = "before_agent"
AFTER_AGENT_RESPONSE = "after_agent_response"

# Decision actions.
DENY = "deny"
ASK = "ask"
MODIFY = "modify"
CONTEXT = "context"
REPLACE_OUTPUT = "replace_output"  # PostToolUse only, on hosts whose Platform can_replace_output


class HookEvent:
    """One host hook call, normalized.

    `event` is a canonical name above; `tool` is the canonical tool name
    (Claude Code's, onto which every host's own names are mapped: `Bash`, `Read`, `Grep`,
    `WebFetch`, `Agent`; MCP names as given); `raw` keeps the whole parsed payload for host-specific needs.
    """

    __slots__ = (
        "agent_id",
        "event",
        "host_event",
        "host_project_dir",
        "platform",
        "project_dir",
        "prompt",
        "raw",
        "session_id",
        "source",
        "tool",
        "tool_input",
        "tool_output",
        "transcript_path",
    )

    def __init__(
        self,
        platform: str,
        event: str,
        *,
        host_event: str = "",
        tool: str = "",
        tool_input: dict | None = None,
        tool_output: object = None,
        session_id: str = "",
        project_dir: str = "",
        host_project_dir: str = "",
        prompt: str = "",
        source: str = "",
        agent_id: str = "",
        transcript_path: str = "",
        raw: dict | None = None,
    ) -> None:
        self.platform = platform
        self.event = event
        self.host_event = host_event
        self.tool = tool
        self.tool_input = tool_input if tool_input is not None else {}
        self.tool_output = tool_output
        self.session_id = session_id
        self.project_dir = project_dir
        # the project dir the host names in its environment (CLAUDE_PROJECT_DIR, ...):
        # where the permission rules live even when `project_dir` (the call's cwd) moved
        self.host_project_dir = host_project_dir
        self.prompt = prompt
        self.source = source  # SessionStart: startup | resume | compact | clear
        self.agent_id = agent_id  # set for subagent calls
        self.transcript_path = transcript_path
        self.raw = raw if raw is not None else {}

    def __repr__(self) -> str:
        return f"HookEvent({self.platform!r}, {self.event!r}, tool={self.tool!r}, session={self.session_id!r})"


class Decision:
    """What the hook answers: deny / ask / modify / context.

    `reason` (deny, optional for ask) is meant for the model; `updated_input` (modify)
    is the complete replacement tool input; `context` (context, and SessionStart
    injections) is advisory text added to the model's context.

    A *command redirect* (`Decision.redirect`) is a MODIFY whose `updated_input["command"]`
    echoes the guidance and whose `reason` holds the same guidance as plain text: hosts
    that cannot rewrite a command render it as a deny with `reason` (no echo unwrapping).
    `replace_output` (PostToolUse) carries the new tool output in `context`. `meta` is
    internal bookkeeping (e.g. redirect type, bytes avoided) and never sent to a host.
    """

    __slots__ = ("action", "context", "meta", "reason", "updated_input")

    def __init__(
        self,
        action: str,
        *,
        reason: str = "",
        updated_input: dict | None = None,
        context: str = "",
        meta: dict | None = None,
    ) -> None:
        self.action = action
        self.reason = reason
        self.updated_input = updated_input
        self.context = context
        self.meta = meta

    @classmethod
    def deny(cls, reason: str) -> Decision:
        return cls(DENY, reason=reason)

    @classmethod
    def ask(cls, reason: str = "") -> Decision:
        return cls(ASK, reason=reason)

    @classmethod
    def modify(cls, updated_input: dict) -> Decision:
        return cls(MODIFY, updated_input=updated_input)

    @classmethod
    def add_context(cls, text: str) -> Decision:
        return cls(CONTEXT, context=text)

    @classmethod
    def redirect(cls, guidance: str, tool_input: dict, meta: dict | None = None) -> Decision:
        """Replace a shell command by one that prints `guidance` (see class docstring)."""
        command = 'echo "' + shell_double_quote_escape(guidance) + '"'
        return cls(
            MODIFY, reason=guidance, updated_input={**tool_input, "command": command}, meta=meta
        )

    @classmethod
    def replace_output(cls, text: str) -> Decision:
        return cls(REPLACE_OUTPUT, context=text)

    @property
    def is_command_redirect(self) -> bool:
        return (
            self.action == MODIFY and bool(self.reason) and "command" in (self.updated_input or {})
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decision) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    def __repr__(self) -> str:
        return (
            f"Decision({self.action!r}, reason={self.reason!r}, "
            f"updated_input={self.updated_input!r}, context={self.context[:60]!r})"
        )


def shell_double_quote_escape(text: str) -> str:
    """Escape text for a POSIX double-quoted string (`\\`, `"`, `$`, backtick)."""
    for char in ("\\", '"', "$", "`"):
        text = text.replace(char, "\\" + char)
    return text


def unwrap_echo(command: object) -> str:
    """The text inside a redirect command `echo "<text>"`, shell escapes undone; else ""."""
    if not isinstance(command, str):
        return ""
    command = command.strip()
    if not command.startswith("echo") or len(command) < 5 or not command[4].isspace():
        return ""
    quoted = command[4:].lstrip()
    if len(quoted) < 3 or quoted[0] != '"' or quoted[-1] != '"':
        return ""
    inner, out, i = quoted[1:-1], [], 0
    while i < len(inner):
        if inner[i] == "\\" and i + 1 < len(inner) and inner[i + 1] in '"\\$`':
            i += 1
        out.append(inner[i])
        i += 1
    return "".join(out)


def redirect_reason(decision: Decision) -> str:
    """The deny reason for a command redirect on a host that cannot rewrite; "" if not one.

    A redirect (`Decision.redirect`) carries its guidance as plain text in `reason`; an
    `echo "<guidance>"` command without one is unwrapped. Other rewrites give "".
    """
    updated = decision.updated_input
    if decision.action != MODIFY or not isinstance(updated, dict):
        return ""
    if not isinstance(updated.get("command"), str):
        return ""
    return decision.reason or unwrap_echo(updated["command"])


class HookOutput:
    """What the runner writes back to the host: stdout text, optional stderr text, exit code."""

    __slots__ = ("exit_code", "stderr", "stdout")

    def __init__(self, stdout: str = "", stderr: str = "", exit_code: int = 0) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.exit_code = exit_code

    def __repr__(self) -> str:
        return f"HookOutput(stdout={self.stdout[:80]!r}, stderr={self.stderr[:80]!r}, exit={self.exit_code})"
