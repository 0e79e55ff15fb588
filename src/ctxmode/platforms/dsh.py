"""DSH (DeepSeek Harness): a JS plugin bundle in a profile, forwarding to our Python rules.

DSH loads in-process ES-module plugins, not command hooks. Our bundle (package data under
`ctxmode/plugins/dsh/`) listens on `tools/pre-execute` (deny; the arguments are frozen,
so nothing can be rewritten), `tools/post-execute` (replace what the model sees), the
session events of a user prompt and of a compaction (session memory), and adds two
system-prompt sections (routing; the session guide after a compaction); each listener sends the call to `ctxmode hook dsh <event>` or to
the long-lived `ctxmode._bridge` child, and returns our answer as DSH's own decision
object. The rules are `ctxmode.hooks.plugin_rules`; this module only translates.

The shim's payload (the plugin-host bridge protocol): `tool` (DSH's name), `input`,
`callId`, `sessionId`, `cwd`, `agentId` (set for a subagent's call), `tools` (the names in
DSH's tool registry), `mcpServers` (the servers behind its `mcp__<server>__<tool>` names: another
server's bulky result, handed over whole, becomes a notice), `config` (the plugin's
validated `Config`), and for post-execute
`result` = `{content, isError, value}` (`value` with long strings dropped), for
user-prompt `prompt` (the message's content blocks).
"""

from __future__ import annotations

from ctxmode.fastjson import dumps
from ctxmode.hooks.plugin_rules import ToolResult
from ctxmode.platforms._common import shim_hook_commands, shim_parser
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep the hook path light
    from collections.abc import Callable

PLATFORM_ID = "dsh"
EVENTS = {
    "pre-execute": ev.PRE_TOOL_USE,
    "post-execute": ev.POST_TOOL_USE,
    "system-prompt": ev.SESSION_START,  # the routing section
    "user-prompt": ev.USER_PROMPT_SUBMIT,  # DSH's `user/message` session event
    "pre-compact": ev.PRE_COMPACT,  # `compaction/start`
    "compacted": ev.SESSION_START,  # `compaction/end`: the guide, in a section of its own
}
TRUNCATED_MARKER = "[output truncated; full output: "
EXIT_MARKER = "[exit code: "


def _text(content: object) -> str:
    """DSH's result content (a list of text blocks) as one text."""
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    )


def tool_result(payload: dict) -> ToolResult:
    """A result as DSH renders it; for bash the exit code and the spilled stdout file.

    DSH's bash keeps the last 64,000 bytes of stdout, writes the whole stream to a file
    and renders `<tail>\\n\\n[output truncated; full output: PATH]\\n[stderr]\\n…\\n[exit code: N]`.
    """
    result = fields.obj(payload, "result")
    text = _text(result.get("content"))
    value = fields.obj(result, "value")
    code = value.get("exitCode")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else _exit_code(text)
    spilled = fields.text(fields.obj(value, "stdout"), "spillPath")
    after = ""
    marker = text.rfind(TRUNCATED_MARKER)
    if marker >= 0:
        end = text.find("]", marker)
        spilled = spilled or text[marker + len(TRUNCATED_MARKER) : end]
        after = text[end + 1 :].lstrip("\n") if end >= 0 else ""
    return ToolResult(
        text,
        is_error=result.get("isError") is True,
        exit_code=exit_code,
        full_stdout_path=spilled if marker >= 0 else "",
        after_stdout=after,
        matches=_grep_matches(value),
    )


def _grep_matches(value: dict) -> list[tuple[str, int, str]]:
    """DSH's grep value `{matches: [{path, lineNumber, line}]}`: every match, also those
    past the 250 its rendered text shows (the shim cuts each line to 2,000 characters)."""
    found = value.get("matches")
    if not isinstance(found, list):
        return []
    return [
        (match["path"], match["lineNumber"], match.get("line") or "")
        for match in found
        if isinstance(match, dict)
        and isinstance(match.get("path"), str)
        and isinstance(match.get("lineNumber"), int)
        and isinstance(match.get("line", ""), str)
    ]


def _exit_code(text: str) -> int | None:
    start = text.rfind(EXIT_MARKER)
    if start < 0:
        return None
    digits = text[start + len(EXIT_MARKER) :].split("]", 1)[0]
    try:
        return int(digits)
    except ValueError:
        return None


parse = shim_parser(PLATFORM_ID, EVENTS, tool_result)  # bash (pwsh on Windows) is the shell


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    """DSH's decision object, as JSON, for the shim to return; "" means carry on (`next()`)."""
    if decision is None:
        return HookOutput()
    if event.event == ev.PRE_TOOL_USE and decision.action == ev.DENY:
        return HookOutput(
            dumps({"kind": "deny", "reason": decision.reason or "Blocked by ctxmode."})
        )
    if event.event == ev.POST_TOOL_USE and decision.action == ev.REPLACE_OUTPUT:
        content = [{"type": "text", "text": decision.context}]
        return HookOutput(dumps({"kind": "accept", "content": content}))
    if event.event == ev.SESSION_START and decision.action == ev.CONTEXT:
        return HookOutput(dumps({"section": decision.context}))
    return HookOutput()


# --------------------------------------------------------------- installer (off the hook path)

BUNDLE = "ctxmode-dsh"  # our bundle's package name in a profile
MCP_ROW_ID = "context-mode"
BUNDLE_FILES = ("package.json", "cordis.patch.yml", "index.js")  # plus the shared bridge.js
# DSH's shipped profile templates (as `dsh` 0.2.1rc2 initializes a profile on first use):
# setup makes a missing profile the same way, plus our bundle, so DSH still loads its own.
SHIPPED_BUNDLES = {
    "acp": ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-acp-app"],
    "web": ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"],
    "headless": ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-headless"],
    "sdk": ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-sdk-app"],
    "sdk-minimal": ["@deepseek-ai/dsh-sdk-minimal"],
}
OTHER_PROFILE_BUNDLES = ["@deepseek-ai/dsh-base"]  # what `dsh plugin --profile NEW add` starts from
DEFAULT_PROFILE = "sdk"  # the one DSH boots without a name: its Python SDK's
DESKTOP_PROFILE = "desktop"  # owned by the DeepSeek Harness Desktop app, which creates it
PNPM_WORKSPACE = "packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n"
NOTE = (
    "DSH loads the ctxmode bundle and the context-mode MCP server on its next start; "
    "tune it under the `ctxmode` row of the profile's cordis.patch.yml. Another profile: "
    "`ctxmode setup dsh --profile NAME`."
)


def dsh_home() -> str:
    import os

    return os.path.abspath(os.path.expanduser(os.environ.get("DSH_HOME") or "~/.dsh"))


def profiles(chosen: tuple[str, ...] = ()) -> list[str]:
    """The profiles to set up: those chosen, else every existing one (the Desktop app's
    `desktop` once it made it), else `sdk`, the profile DSH's Python SDK boots."""
    import os

    if chosen:
        return list(dict.fromkeys(chosen))
    root = os.path.join(dsh_home(), "profiles")
    try:
        found = sorted(
            name
            for name in os.listdir(root)
            if os.path.isfile(os.path.join(root, name, "package.json"))
        )
    except OSError:
        found = []
    return found or [DEFAULT_PROFILE]


def profile_dir(profile: str) -> str:
    import os

    from ctxmode.platforms._install import InstallError

    if not profile or profile in (".", "..") or "/" in profile or "\\" in profile:
        raise InstallError(f"{profile!r} is not a DSH profile name")
    return os.path.join(dsh_home(), "profiles", profile)


def config_paths(project_dir: str = "", chosen: tuple[str, ...] = ()) -> dict[str, str]:
    import os

    found = {}
    for profile in profiles(chosen):
        base = profile_dir(profile)
        found[f"{profile}:package"] = os.path.join(base, "package.json")
        found[f"{profile}:patch"] = os.path.join(base, "cordis.patch.yml")
        found[f"{profile}:bundle"] = os.path.join(base, "node_modules", BUNDLE)
    return found


def mcp_row(server_command: list[str]) -> str:
    """Our MCP mount, one JSON flow row of the profile's patch list (YAML accepts JSON)."""
    import json

    config = {
        "serverName": MCP_ROW_ID,
        "transport": "stdio",
        "command": server_command[0],
        "args": server_command[1:],
        "failOnStartupError": False,
    }
    row = {"id": MCP_ROW_ID, "name": "@deepseek-ai/dsh-mcp-client", "config": config}
    return "- " + json.dumps({"insert": [row]}, ensure_ascii=False)


def _is_our_row(line: str) -> bool:
    return line.startswith('- {"insert": [{"id": "' + MCP_ROW_ID + '"') and "ctxmode" in line


def _patch_without_ours(text: str) -> str:
    kept = [line for line in text.splitlines(keepends=True) if not _is_our_row(line.rstrip("\n"))]
    result = "".join(kept)
    if not any(line.strip() and not line.lstrip().startswith("#") for line in kept):
        result = result.rstrip("\n") + ("\n" if result.strip() else "") + "[]\n"  # stays an array
    return result


def _patch_with_row(text: str, row: str) -> str:
    """The patch list with our row last; an empty flow list `[]` gives way to block rows."""
    lines = _patch_without_ours(text).splitlines(keepends=True)
    lines = [line for line in lines if line.strip() != "[]"]
    body = "".join(lines)
    if body and not body.endswith("\n"):
        body += "\n"
    return body + row + "\n"


def _bundle_changes(directory: str, hook_prefix: str, remove: bool) -> list:
    from ctxmode.platforms._shim import launch_config, shim_changes

    launch = launch_config(PLATFORM_ID, hook_prefix)
    return shim_changes(directory, "dsh", BUNDLE_FILES, launch, remove)


def _package_edit(remove: bool) -> Callable[[dict, str], None]:
    from ctxmode.platforms._install import InstallError

    def edit(document: dict, path: str) -> None:
        dsh = document.setdefault("dsh", {})
        profile = dsh.setdefault("profile", {}) if isinstance(dsh, dict) else None
        bundles = profile.setdefault("bundles", []) if isinstance(profile, dict) else None
        if not isinstance(profile, dict) or not isinstance(bundles, list):
            raise InstallError(
                f"{path}: `dsh.profile.bundles` is not a list; fix it first, nothing changed"
            )
        kept = [name for name in bundles if name != BUNDLE]
        profile["bundles"] = kept if remove else [*kept, BUNDLE]

    return edit


def _profile_changes(
    profile: str, hook_prefix: str, server_command: list[str], remove: bool
) -> list:
    import os

    from ctxmode.platforms._install import Change, created_by_setup, json_change, read_text

    base = profile_dir(profile)
    package = os.path.join(base, "package.json")
    patch = os.path.join(base, "cordis.patch.yml")
    if remove and not os.path.exists(package):
        return []
    if remove:
        changes = _profile_removal(profile, base)
    elif os.path.exists(package):
        changes = [json_change(package, _package_edit(remove))]
    else:
        changes = _new_profile(profile, base)
    before = read_text(patch)
    after: str | None = (
        _patch_without_ours(before or "")
        if remove
        else _patch_with_row(before or "[]\n", mcp_row(server_command))
    )
    if remove and (before is None or (after == "[]\n" and created_by_setup(patch))):
        after = None
    changes.append(Change(patch, before, after))
    directory = os.path.join(base, "node_modules", BUNDLE)
    changes += _bundle_changes(directory, hook_prefix, remove)
    return changes


def _new_profile(profile: str, base: str) -> list:
    """A profile DSH has not made yet, laid out as DSH makes it on first use (its shipped
    template's bundles, the pnpm settings `dsh plugin` needs), with our bundle added."""
    import os

    from ctxmode.platforms._install import Change, InstallError, dump_json, read_text

    if profile.lower() == DESKTOP_PROFILE:
        raise InstallError(
            "the desktop profile belongs to DeepSeek Harness Desktop: open the app once so it "
            "creates the profile, quit it, then run this again; nothing changed"
        )
    workspace = os.path.join(base, "pnpm-workspace.yaml")
    kept = read_text(workspace)
    return [Change(os.path.join(base, "package.json"), None, dump_json(_new_manifest(profile))),
            Change(workspace, kept, kept or PNPM_WORKSPACE)]  # fmt: skip


def _profile_removal(profile: str, base: str) -> list:
    """Our bundle out of the profile; a profile setup made and DSH never used (its files
    still as setup wrote them, minus our bundle) goes entirely."""
    import os

    from ctxmode.platforms._install import Change, created_by_setup, json_change, read_text

    package = os.path.join(base, "package.json")
    workspace = os.path.join(base, "pnpm-workspace.yaml")
    untouched = {**_new_manifest(profile), "dsh": {"profile": {"bundles": _shipped(profile)}}}
    ours = created_by_setup(package)
    changes = [
        json_change(
            package,
            _package_edit(True),
            delete_when=lambda document: ours and document == untouched,
        )
    ]
    text = read_text(workspace)
    if text == PNPM_WORKSPACE and created_by_setup(workspace) and changes[0].after is None:
        changes.append(Change(workspace, text, None))
    return changes


def _shipped(profile: str) -> list[str]:
    return list(SHIPPED_BUNDLES.get(profile, OTHER_PROFILE_BUNDLES))


def _new_manifest(profile: str) -> dict:
    """The package.json DSH writes for a new profile (its template's bundles), ours added."""
    return {"name": f"dsh-profile-{profile}", "private": True, "dependencies": {},
            "dsh": {"profile": {"bundles": [*_shipped(profile), BUNDLE]}}}  # fmt: skip


def install_changes(
    hook_prefix: str, server_command: list[str], project_dir: str = "", chosen: tuple[str, ...] = ()
) -> list:
    changes = []
    for profile in profiles(chosen):
        changes += _profile_changes(profile, hook_prefix, server_command, remove=False)
    return changes


def uninstall_changes(project_dir: str = "", chosen: tuple[str, ...] = ()) -> list:
    changes = []
    for profile in profiles(chosen):
        changes += _profile_changes(profile, "", [], remove=True)
    return changes


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="DSH (DeepSeek Harness)",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"mcp__{server}__",  # the rules detect it per call anyway
    can_deny=True,
    can_modify_input=False,  # a call's arguments are frozen
    can_replace_output=True,
    can_inject_context=True,  # the system-prompt section
    client_names=("dsh-mcp-client",),  # its MCP clientInfo.name: our replies name its tools
    plugin_host=True,
    installer=Installer(
        scopes=("user",),
        config_paths=config_paths,
        hook_commands=shim_hook_commands(PLATFORM_ID, EVENTS),
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        note=NOTE,
        profiles=True,
    ),
)
