"""The server's `instructions`, naming our tools the way the connecting host shows them.

Instructions travel in the initialize result, after the client said who it is
(`clientInfo.name`), so each connection gets its own text: with the host's own tool
names when one host module claims that client, else worded by the bare tool names'
endings, which hold under every host's prefix.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ctxmode import paths, platforms
from ctxmode.launch.server_name import registered_server
from ctxmode.vocab.platform import Platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.server.state import ServerState

TOOLS_NAMED = (
    "ctxmode keeps raw tool output out of your context: run commands and code with "
    "{batch} / {execute}, process files with {execute_file}, fetch pages "
    "with {fetch}, and look things up with {search}."
)
UNKNOWN_CLIENT = " (Use the tools of this MCP server whose names end in these.)"


def client_platform(client_name: str, environ: Mapping[str, str] | None = None) -> Platform | None:
    """The one host whose MCP client introduces itself as `client_name`, else None.

    A client giving no name, or one several hosts share, is told by the environment the
    host started us in, if that names one of them.
    """
    found = [
        platform
        for platform in platforms.all_platforms()
        if any(client_name.startswith(known) for known in platform.client_names)
    ]
    if client_name and len(found) == 1:
        return found[0]
    started_by = platforms.from_environment(os.environ if environ is None else environ)
    return started_by if started_by and (not client_name or started_by in found) else None


def client_prefix(client_name: str, project_dir: str) -> tuple[Platform | None, str]:
    """The host claiming `client_name` and what it puts before our tools' names ("" if none)."""
    try:
        platform = client_platform(client_name)
        prefix = platform.tool_prefix(registered_server(platform, project_dir)) if platform else ""
    except Exception as exc:  # a host config we cannot read must not fail the handshake
        paths.append_log("server-errors.log", f"naming tools for {client_name!r}: {exc!r}")
        return None, ""
    return platform, prefix


def instructions_for(client_name: str, project_dir: str) -> str:
    """The instructions for a client that introduced itself as `client_name`."""
    return instructions_text(*client_prefix(client_name, project_dir))


def instructions_text(platform: Platform | None, prefix: str) -> str:
    text = TOOLS_NAMED.format(
        batch=f"{prefix}ctx_batch_execute",
        execute=f"{prefix}ctx_execute",
        execute_file=f"{prefix}ctx_execute_file",
        fetch=f"{prefix}ctx_fetch_and_index",
        search=f"{prefix}ctx_search",
    )
    return text if platform else text + UNKNOWN_CLIENT


class PerClientInstructions:
    """Server middleware: sets the initialize result's instructions for the client, and the
    name our tool replies give `ctx_search` (`state.search_tool`) the way it shows it."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        name = _client_name(ctx.params)
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict):
            platform, prefix = client_prefix(name, self.state.project_root)
            if ctx.method == "initialize" or "instructions" in result:
                result["instructions"] = instructions_text(platform, prefix)
            self.state.search_tool = prefix + "ctx_search"
        elif name and self.state.search_tool == "ctx_search":
            # The 2026 protocol may skip both and name the client on every request instead.
            self.state.search_tool = client_prefix(name, self.state.project_root)[1] + "ctx_search"
        return result


def _client_name(params: Any) -> str:
    """The client's name from a request's `clientInfo`, or (2026 protocol) its `_meta`."""
    if not isinstance(params, dict):
        return ""
    info = params.get("clientInfo")
    meta = params.get("_meta")
    if not isinstance(info, dict) and isinstance(meta, dict):
        info = meta.get("io.modelcontextprotocol/clientInfo")
    return str((info.get("name") if isinstance(info, dict) else "") or "")[:200]
