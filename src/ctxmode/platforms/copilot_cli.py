"""GitHub Copilot CLI: JSON command hooks in `~/.copilot/hooks/`.

The host sends camelCase payloads (`toolName`, `toolArgs`, `toolResult`) when the hook
is registered under a camelCase event key, and VS Code-style snake_case ones under a
PascalCase key; both are read. `toolArgs` may arrive as a JSON string (older builds)
and is decoded. PreToolUse answers are top-level fields; a rewrite is `modifiedArgs`,
except a command redirect, which becomes a deny carrying the guidance (the host honours
a deny). A postToolUse `modifiedResult` replaces what the model receives (1.0.102 honours
it from command hooks too). MCP tools are named `<server>-<tool>`, with a hyphen.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform
from ctxmode.vocab.toolnames import canonical_tool_name

PLATFORM_ID = "copilot-cli"
DEFAULT_ASK_REASON = "Action requires user confirmation"

# Host event key (camelCase, as registered) by the lower-case CLI name.
HOST_EVENTS = {
    "pretooluse": "preToolUse",
    "posttooluse": "postToolUse",
    "precompact": "preCompact",
    "sessionstart": "sessionStart",
    "userpromptsubmit": "userPromptSubmitted",
    "stop": "agentStop",
    "sessionend": "sessionEnd",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "precompact": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "userpromptsubmitted": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
    "agentstop": ev.STOP,
    "sessionend": ev.SESSION_END,
}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(PLATFORM_ID, EVENTS, payload, host_event)
    raw = event.raw
    if not event.tool:
        event.tool = canonical_tool_name(fields.text(raw, "toolName"))
    if not event.tool_input:
        args = raw.get("toolArgs")
        event.tool_input = common.as_dict(args) or common.json_object(args)
    event.tool_output = _tool_output(raw)
    if not event.prompt:  # sessionStart carries the first prompt as `initialPrompt`
        keys = ("user_prompt", "message", "initialPrompt")
        event.prompt = common.prompt_text(common.first_present(raw, keys))
    if not event.transcript_path:
        event.transcript_path = fields.text(raw, "transcriptPath")
    # Only some events carry transcriptPath; the explicit sessionId keeps them all in one session.
    if not fields.text(raw, "sessionId", "session_id"):
        uuid = fields.transcript_uuid(event.transcript_path)
        if uuid:
            event.session_id = uuid
    return event


def _tool_output(raw: dict) -> object:
    snake = fields.obj(raw, "tool_result").get("text_result_for_llm")
    if snake is not None:
        return snake
    camel = fields.obj(raw, "toolResult").get("textResultForLlm")
    if camel is not None:
        return camel
    return raw.get("tool_response")


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    if decision is not None and decision.action == ev.REPLACE_OUTPUT:
        if event.event == ev.POST_TOOL_USE and decision.context:  # what the model gets instead
            kind = fields.obj(event.raw, "toolResult").get("resultType")
            result = {"textResultForLlm": decision.context,
                      "resultType": kind if isinstance(kind, str) else "success"}  # fmt: skip
            return common.json_out({"modifiedResult": result})
        return HookOutput()
    context = common.context_of(decision)
    if context and event.event == ev.SESSION_START:
        # The host's docs call sessionStart output "not processed"; 1.0.102 does show it.
        return common.json_out({"additionalContext": context})
    return HookOutput()


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    if decision is None:
        return HookOutput()
    if decision.action == ev.DENY:
        return _deny(decision.reason)
    if decision.action == ev.ASK:
        reason = decision.reason or DEFAULT_ASK_REASON
        return common.json_out({"permissionDecision": "ask", "permissionDecisionReason": reason})
    if decision.action == ev.MODIFY and isinstance(decision.updated_input, dict):
        # A redirect that only echoes guidance becomes a deny (the host honours one: the model
        # reads why); a real rewrite (a command run through `ctxmode wrap`) runs.
        if ev.unwrap_echo(decision.updated_input.get("command")):
            return _deny(ev.redirect_reason(decision))
        return common.json_out({"modifiedArgs": decision.updated_input})
    if decision.action == ev.CONTEXT and decision.context:
        return common.json_out({"additionalContext": decision.context})
    return HookOutput()


def _deny(reason: str) -> HookOutput:
    return common.json_out({"permissionDecision": "deny", "permissionDecisionReason": reason})


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user", "project")
HOOKS_DEFAULTS = {"version": 1}  # a new hooks file needs it; uninstall takes it back
HOOK_TIMEOUT_S = 30
INSTALL_EVENTS = ("preToolUse", "postToolUse", "preCompact", "sessionStart",
                  "userPromptSubmitted", "agentStop")  # fmt: skip


def config_paths(project_dir: str = "") -> dict[str, str]:
    """Hooks in `$COPILOT_HOME/hooks/` or the repo's `.github/hooks/`; MCP is user-level only."""
    import os

    home = os.environ.get("COPILOT_HOME") or os.path.join("~", ".copilot")
    home = os.path.expanduser(home)
    found = {
        "hooks": os.path.join(home, "hooks", "context-mode.json"),
        "mcp": os.path.join(home, "mcp-config.json"),
    }
    if project_dir:
        found["project_hooks"] = os.path.join(project_dir, ".github", "hooks", "context-mode.json")
    return found


def hook_commands(command: str) -> dict[str, str]:
    """Host event key -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, INSTALL_EVENTS)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    entries = {
        host: {"type": "command", "bash": line, "timeoutSec": HOOK_TIMEOUT_S}
        for host, line in hook_commands(hook_prefix).items()
    }
    server = inst.stdio_server(server_command, type="local", tools=["*"])
    hooks = paths["project_hooks" if project_dir else "hooks"]
    changes = inst.install_json(hooks, entries, paths["mcp"], server, defaults=HOOKS_DEFAULTS)
    return [changes[0], inst.shared(changes[1])]  # one user-level MCP config for every repo


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    hooks = paths["project_hooks" if project_dir else "hooks"]
    changes = inst.uninstall_json(hooks, paths["mcp"], defaults=HOOKS_DEFAULTS)
    return [changes[0], inst.shared(changes[1])]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Copilot CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"{server}-",  # the host joins server and tool with a hyphen
    client_names=("copilot-cli",),  # its MCP clientInfo.name (1.0.102)
    mcp_config=lambda project_dir: ((config_paths(project_dir)["mcp"], ("mcpServers",)),),
    can_deny=True,
    can_modify_input=True,
    can_replace_output=True,
    can_inject_context=True,  # 1.0.102 adds sessionStart context as a user message
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
    ),
)
