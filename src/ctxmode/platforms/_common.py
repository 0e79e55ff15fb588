"""Payload and rendering helpers shared by the host modules, beyond `ctxmode.vocab.fields`.

Prompt and source normalization, alias-field copying for tool inputs, small envelope
builders, the parser of Claude-style snake_case payloads and the parser of our plugin
shims' payload. Hot path: our own hook modules only.
"""

from __future__ import annotations

from ctxmode.fastjson import dumps
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.toolnames import canonical_tool_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ctxmode.hooks.plugin_rules import ToolResult

SESSION_START_SOURCES = frozenset(("startup", "resume", "compact", "clear"))
GUIDANCE_TAGS = ("<context_guidance>", "</context_guidance>", "<tip>", "</tip>")


def as_dict(value: object) -> dict:
    """A shallow copy of `value` if it is a dict, else {} (copied so parsers may add alias keys)."""
    return dict(value) if isinstance(value, dict) else {}


def prompt_text(value: object) -> str:
    """A prompt as text: a string, or the text parts of a ContentPart list joined by newlines."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    parts = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def session_source(value: object) -> str:
    """A SessionStart source as startup | resume | compact | clear.

    "new" (VS Code, Copilot CLI) and anything unknown mean a fresh session: startup.
    """
    source = value.strip().lower() if isinstance(value, str) else ""
    return source if source in SESSION_START_SOURCES else "startup"


def copy_alias(tool_input: dict, target: str, aliases: tuple[str, ...]) -> None:
    """Set `tool_input[target]` from the first non-empty string alias, unless already set."""
    current = tool_input.get(target)
    if isinstance(current, str) and current:
        return
    for alias in aliases:
        value = tool_input.get(alias)
        if isinstance(value, str) and value:
            tool_input[target] = value
            return


def first_url(value: object) -> str:
    """The first http(s) URL inside free text (Gemini's web_fetch takes a prompt, not a url)."""
    if not isinstance(value, str):
        return ""
    starts = [i for i in (value.find("https://"), value.find("http://")) if i >= 0]
    if not starts:
        return ""
    words = value[min(starts) :].split()
    return words[0].rstrip(").,;'\"") if words else ""


def json_object(value: object) -> dict:
    """A JSON object encoded in a string (older hosts send tool arguments that way), else {}."""
    if not isinstance(value, str) or not value.lstrip().startswith("{"):
        return {}
    from ctxmode.hooks.stdin import loads

    try:
        parsed = loads(value)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def settings_servers(config_paths: Callable[[str], dict[str, str]]) -> Callable:
    """`mcp_config` for hosts keeping `mcpServers` in `project`/`user` settings files."""

    def mcp_config(project_dir: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        paths = config_paths(project_dir)
        found = (paths["project_mcp"],) if project_dir else ()
        return tuple((path, ("mcpServers",)) for path in (*found, paths["user_mcp"]))

    return mcp_config


# ------------------------------------------------------- degraded decisions


def generic_redirect(tool_prefix: str) -> str:
    return (
        f"ctxmode: this command was redirected. Run it inside {tool_prefix}ctx_execute "
        f"(or {tool_prefix}ctx_batch_execute for several commands) and print only what you need."
    )


def plain_guidance(text: str) -> str:
    """Guidance with its `<context_guidance>`/`<tip>` tags removed and whitespace collapsed."""
    for tag in GUIDANCE_TAGS:
        text = text.replace(tag, " ")
    return " ".join(text.split())


# ---------------------------------------------------------------- output


def json_out(value: object) -> HookOutput:
    return HookOutput(dumps(value))


def hso(event_name: str, **fields: object) -> HookOutput:
    """`{"hookSpecificOutput": {"hookEventName": <event_name>, ...fields}}`."""
    return json_out({"hookSpecificOutput": {"hookEventName": event_name, **fields}})


def context_of(decision: Decision | None) -> str | None:
    """The advisory text of a context decision, else None."""
    if decision is not None and decision.action == ev.CONTEXT:
        return decision.context
    return None


# ---------------------------------------------------------------- parsing


def first_present(payload: dict, keys: tuple[str, ...]) -> object:
    """The first value among `keys` that is present and not None."""
    for key in keys:
        value = payload.get(key)
        if value is not None:
            return value
    return None


def snake_event(
    platform: str,
    events: dict[str, str],
    payload: object,
    host_event: object,
    *,
    session_env: tuple[str, ...] = (),
    project_env: tuple[str, ...] = (),
    output_keys: tuple[str, ...] = ("tool_response",),
) -> HookEvent:
    """A HookEvent from a Claude-style snake_case payload (most hosts start from this).

    Wrong types anywhere are ignored field by field; a non-dict payload counts as {}.
    """
    payload = payload if isinstance(payload, dict) else {}
    name = host_event.lower() if isinstance(host_event, str) else ""
    canonical = events.get(name, "")
    return HookEvent(
        platform,
        canonical,
        host_event=name,
        tool=canonical_tool_name(fields.text(payload, "tool_name")),
        tool_input=as_dict(payload.get("tool_input")),
        tool_output=first_present(payload, output_keys),
        session_id=fields.session_id(payload, session_env),
        project_dir=fields.project_dir(payload, project_env),
        host_project_dir=fields.env_dir(project_env),
        prompt=prompt_text(payload.get("prompt")),
        source=_source(canonical, payload),
        agent_id=fields.text(payload, "agent_id", "agent_type"),
        transcript_path=fields.text(payload, "transcript_path", "transcriptPath"),
        raw=payload,
    )


def _source(canonical: str, payload: dict) -> str:
    """SessionStart: startup | resume | compact | clear; PreCompact: its trigger (manual | auto)."""
    if canonical == ev.SESSION_START:
        return session_source(fields.text(payload, "source", "trigger"))
    if canonical == ev.PRE_COMPACT:
        return fields.text(payload, "trigger")
    return ""


def shim_hook_commands(platform_id: str, events: dict[str, str]) -> Callable[[str], dict]:
    """`Installer.hook_commands` for a plugin shim, whose event names are the CLI's too."""

    def hook_commands(command: str) -> dict[str, str]:
        from ctxmode.platforms._install import hook_lines

        return hook_lines(command, platform_id, {name: name for name in events})

    return hook_commands


def shim_parser(
    platform: str,
    events: dict[str, str],
    read_result: Callable[[dict], ToolResult],
    aliases: dict[str, str] | None = None,
) -> Callable[[dict, str], HookEvent]:
    """The parser of a plugin shim's payload, the one shape every plugin host's shim sends.

    The payload: `tool`, `input` (the call's arguments), `callId`, `sessionId`, `cwd`,
    `agentId`, `tools`, `config`, `prompt`, and after a call `result`, in a shape of the
    host's own: `read_result` reads it from the payload. `aliases` map a host's argument
    names to those the rules read (OpenCode's `filePath` is `file_path`).
    """

    def parse(payload: dict, host_event: str) -> HookEvent:
        payload = payload if isinstance(payload, dict) else {}
        canonical = events.get(host_event, "")
        tool_input = as_dict(payload.get("input"))
        for theirs, ours in (aliases or {}).items():
            copy_alias(tool_input, ours, (theirs,))
        return HookEvent(
            platform,
            canonical,
            host_event=host_event,
            tool=canonical_tool_name(fields.text(payload, "tool")),
            tool_input=tool_input,
            tool_output=read_result(payload) if canonical == ev.POST_TOOL_USE else None,
            session_id=fields.session_id(payload),
            project_dir=fields.project_dir(payload),
            prompt=prompt_text(payload.get("prompt")),
            source="compact" if host_event == "compacted" else "startup",
            agent_id=fields.text(payload, "agentId"),
            raw=payload,
        )

    return parse


def shim_answer(event: HookEvent, decision: Decision | None) -> HookOutput:
    """What a plugin shim is told, as JSON: `{deny}` a call, `{output}` in place of its
    result, a `{section}` of context; "" means carry on untouched."""
    if decision is None:
        return HookOutput()
    if event.event == ev.PRE_TOOL_USE and decision.action == ev.DENY:
        return HookOutput(dumps({"deny": decision.reason or "Blocked by ctxmode."}))
    if event.event == ev.POST_TOOL_USE and decision.action == ev.REPLACE_OUTPUT:
        return HookOutput(dumps({"output": decision.context}))
    if decision.action == ev.CONTEXT and decision.context:
        return HookOutput(dumps({"section": decision.context}))
    return HookOutput()
