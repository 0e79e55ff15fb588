"""The MCP server: the SDK's low-level `Server` wired to ctxmode's tool handlers over stdio.

Handlers are plain synchronous functions (see `handlers.py`) run in worker
threads; each opens its own SQLite connection, so no connection crosses threads.
A handler's failure becomes an `is_error` result with one line, never a stack
trace on the wire (`_tool_error`; a bug's trace goes to the server log).

Start-up is the MCP SDK's imports plus as little as possible: what the tools need
(sandbox, knowledge base, SQLite) loads on the first call, so a host sees our tools
listed before its model's first turn (`bench/serve.py` times it, and
`tests/server/test_start_up.py` keeps those modules out of start-up).
"""

from __future__ import annotations

import json
import signal
import sys
from typing import IO, Any, cast

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from ctxmode import __version__
from ctxmode.server.front import Front
from ctxmode.server.handlers import HANDLERS, handler_for
from ctxmode.server.instructions import PerClientInstructions, instructions_for
from ctxmode.server.state import Reply, ServerState
from ctxmode.server.tools import listed_tools


def _tool_objects() -> list[types.Tool]:
    return [types.Tool.model_validate(tool) for tool in listed_tools()]


# After a call that handled this much output, freed memory is handed back to the OS.
RELEASE_AFTER_BYTES = 1_000_000


def _release_freed_memory() -> None:
    """Return freed heap pages to the OS (glibc only; a no-op elsewhere).

    Each worker thread allocates from its own malloc arena, and glibc keeps freed pages:
    without this, big calls landing on different threads would stack their peaks.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _client_name(ctx: Any) -> str:
    """The name the MCP client gave at initialize ("" if it gave none)."""
    try:
        return str(ctx.session.client_params.client_info.name)[:80]
    except AttributeError:  # no client params: an initialize without client info
        return ""


def _result(text: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


def _run_tool(state: ServerState, tool: str, arguments: dict) -> Reply:
    """A tool call in its worker thread: the server's first-call housekeeping, then the handler."""
    state.before_first_call()
    return handler_for(tool)(state, arguments)


def _tool_error(state: ServerState, tool: str, arguments: dict, error: Exception) -> str:
    """The one place a tool's failure becomes its error text: one line, never a traceback."""
    from ctxmode import failures
    from ctxmode.storage import project

    explained = failures.explain(
        error,
        database=project.project_db_path(state.project_root),
        log="server-errors.log",
        context=f"{tool} {json.dumps(arguments, default=str)[:500]}",
    )
    return f"{tool}: {explained}"


def _with_notices(text: str) -> str:
    """`text` after what happened to the database meanwhile (a recovery), if anything."""
    from ctxmode.storage import db

    notices = db.take_notices()
    return "\n".join([*(f"ctxmode: {notice}" for notice in notices), text])


def build_server(state: ServerState) -> Server[Any]:
    tool_objects = _tool_objects()

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_objects)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in HANDLERS:
            return _result(f"Unknown tool '{params.name}'.", is_error=True)
        arguments = dict(params.arguments or {})
        state.client = state.client or _client_name(ctx)
        try:
            reply = await anyio.to_thread.run_sync(_run_tool, state, params.name, arguments)
        except Exception as exc:
            reply = Reply(_tool_error(state, params.name, arguments, exc), is_error=True)
            state.record_call(params.name, reply)
            return _result(_with_notices(reply.text), is_error=True)
        state.record_call(params.name, reply)
        if reply.bytes_processed > RELEASE_AFTER_BYTES:
            await anyio.to_thread.run_sync(_release_freed_memory)
        return _result(_with_notices(reply.text), is_error=reply.is_error)

    async def on_list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    async def on_list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def on_list_resource_templates(
        ctx: Any, params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    server: Server[Any] = Server(
        "ctxmode",
        version=__version__,
        instructions=instructions_for("", state.project_root),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_prompts=on_list_prompts,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_resource_templates,
    )
    server.middleware.append(PerClientInstructions(state))
    return server


async def _serve(state: ServerState, front: Front) -> None:
    server = build_server(state)
    # The front's line queues stand in for the text files the SDK's transport reads and
    # writes: they have the two methods it calls (readline, write and flush).
    stdin = anyio.wrap_file(cast(IO[str], front.sdk_stdin))
    stdout = anyio.wrap_file(cast(IO[str], front.sdk_stdout))
    async with stdio_server(stdin, stdout) as (read_stream, write_stream):
        front.hand_over()
        async with anyio.create_task_group() as background:
            background.start_soon(_warm_up, state)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            background.cancel_scope.cancel()


# What tool calls load on first use beyond their handlers' modules (not fetching: its HTML
# libraries are heavy, and a fetch waits on the network anyway).
WARMED = (
    "ctxmode.sandbox",
    "ctxmode.policy.permissions",
    "ctxmode.stats",
    "ctxmode.store.directory",
    "ctxmode.failures",
)


async def _warm_up(state: ServerState) -> None:
    """Load what tool calls need, and do the first call's housekeeping, while the host's
    model is still thinking: the first call then costs what any later one does."""

    def warm() -> None:
        for module in dict.fromkeys([*(module for module, _ in HANDLERS.values()), *WARMED]):
            __import__(module)
        from ctxmode.sandbox import runtimes

        runtimes.resolve("shell")  # found once per process: the commonest language
        state.before_first_call()

    await anyio.to_thread.run_sync(warm, abandon_on_cancel=True)


def _stop_on_signals() -> None:
    """SIGTERM and SIGHUP (a host closing us) end the server like Ctrl-C: its cleanup runs,
    stopping background runs and what they started (the default action would skip it)."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)


def serve(project_root: str, front: Front) -> None:
    """Serve MCP on the wire `front` holds until the host closes it."""
    state = ServerState.create(project_root)
    _stop_on_signals()
    try:
        anyio.run(_serve, state, front)
    except KeyboardInterrupt:
        pass
    finally:
        front.close()
        sys.stderr.flush()
