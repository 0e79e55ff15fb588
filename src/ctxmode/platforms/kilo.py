"""Kilo CLI: OpenCode's plugin API and config shape under its own name (`kilo.json`).

Everything but the names is OpenCode's (`ctxmode.platforms.opencode`). Kilo also sets
`OPENCODE=1` in its environment: its `env_shadows` makes Kilo, not OpenCode, the host
detected from such an environment.
"""

from __future__ import annotations

from ctxmode.platforms.opencode import installer_for, mcp_config_for, platform_for

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
    mcp_config=mcp_config_for("kilo", "kilo"),
    env_markers=("KILO", "KILO_PID"),
    env_shadows=("opencode",),  # Kilo exports OpenCode's OPENCODE=1 too
)
