"""Kilo CLI: OpenCode's plugin API and config shape under its own name (`kilo.json`).

Everything but the names is OpenCode's (`ctxmode.platforms.opencode`). Kilo also sets
`OPENCODE=1` in its environment, so whatever detects hosts checks `KILO` first.
"""

from __future__ import annotations

from ctxmode.platforms.opencode import installer_for, platform_for

PLATFORM_ID = "kilo"

PLATFORM = platform_for(
    PLATFORM_ID,
    "Kilo CLI",
    installer_for(
        PLATFORM_ID,
        "kilo",
        "kilo",
        "Kilo loads the ctxmode plugin and the context-mode MCP server on its next start.",
    ),
)
