"""OMP (Oh My Pi): Pi's fork with Pi's extension API, so Pi's extension and rules serve it.

Everything but the names is Pi's (`ctxmode.platforms.pi`): the extension goes to
`~/.omp/agent/extensions/ctxmode/` (project: `.omp/extensions/`) and registers our tools
itself, marked `essential`. OMP's own MCP client is not used: it waits only 250 ms for
MCP servers at start (`ctxmode serve` answers its first `tools/list` later than that),
and it mounts MCP tools behind `xd://` devices unless the user turns `tools.xdev` off for
every tool. OMP keeps a cut shell output as an `artifact://N` file, which the extension
hands over as `fullOutputPath`. Nothing is written to `SYSTEM.md`, which would replace
OMP's whole system prompt: the routing block rides as a message, as on Pi.
"""

from __future__ import annotations

from ctxmode.platforms.pi import installer_for, platform_for

PLATFORM_ID = "omp"

PLATFORM = platform_for(
    PLATFORM_ID,
    "OMP (Oh My Pi)",
    installer_for(
        PLATFORM_ID,
        "omp",
        "OMP loads the ctxmode extension (and with it our ctx_* tools) on its next start.",
    ),
)
