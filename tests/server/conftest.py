"""Drive `ctxmode serve` through the official MCP client over stdio, as a host would."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import Implementation


class McpSession:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.instructions = client.instructions or ""

    async def call(self, tool: str, **arguments: Any) -> tuple[str, bool]:
        result = await self.client.call_tool(tool, arguments)
        text = "\n".join(block.text for block in result.content if getattr(block, "text", None))
        return text, bool(result.is_error)


@pytest.fixture
def mcp_run(tmp_path) -> Callable[..., Any]:
    """Run `scenario(session)` against a real `ctxmode serve` subprocess; returns its result."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)

    def run(
        scenario: Callable[[McpSession], Awaitable[Any]],
        *,
        env: dict[str, str] | None = None,
        mode: str = "auto",
        cwd: str | None = None,
        client_name: str | None = None,
    ) -> Any:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "ctxmode", "serve"],
            env={**os.environ, **(env or {})},
            cwd=cwd or str(project),
        )

        async def main() -> Any:
            info = Implementation(name=client_name, version="1") if client_name else None
            async with Client(
                params, mode=mode, read_timeout_seconds=120, client_info=info
            ) as client:
                return await scenario(McpSession(client))

        return anyio.run(main)

    run.project = project  # type: ignore[attr-defined]
    return run
