"""One module per host; each builds one `ctxmode.vocab.platform.Platform` named `PLATFORM`.

The `Platform` object is the whole contract (wire, naming, capabilities, installer),
so adding a host is one module plus one `REGISTRY` line. A module's installer functions
import their helpers (`ctxmode.platforms._install`) inside the functions, keeping them
off the hook path; shared payload and envelope helpers are in `_common`, the shared
vocabulary in `ctxmode.vocab`.

Only this package names hosts. `REGISTRY` maps platform ids to module names so the
hook entry imports just the one module it needs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ctxmode.vocab.platform import Platform

REGISTRY: dict[str, str] = {
    "claude-code": "ctxmode.platforms.claude_code",
    "qwen-code": "ctxmode.platforms.qwen_code",
    "gemini-cli": "ctxmode.platforms.gemini_cli",
    "vscode-copilot": "ctxmode.platforms.vscode_copilot",
    "jetbrains-copilot": "ctxmode.platforms.jetbrains_copilot",
    "copilot-cli": "ctxmode.platforms.copilot_cli",
    "cursor": "ctxmode.platforms.cursor",
    "codex": "ctxmode.platforms.codex",
    "kimi": "ctxmode.platforms.kimi",
    "kiro": "ctxmode.platforms.kiro",
    "antigravity-cli": "ctxmode.platforms.antigravity_cli",
    "dsh": "ctxmode.platforms.dsh",
    "opencode": "ctxmode.platforms.opencode",
    "kilo": "ctxmode.platforms.kilo",
    "pi": "ctxmode.platforms.pi",
    "omp": "ctxmode.platforms.omp",
    "openclaw": "ctxmode.platforms.openclaw",
    "antigravity": "ctxmode.platforms.antigravity",
    "zed": "ctxmode.platforms.zed",
}


def load(platform_id: str) -> Platform | None:
    """The host's `Platform`, importing only its module; None for an unknown id."""
    name = REGISTRY.get(platform_id)
    if name is None:
        return None
    __import__(name)
    return sys.modules[name].PLATFORM


def all_platforms() -> list[Platform]:
    """Every registered host, in registry order (imports them all: not for the hook path)."""
    return [found for platform_id in REGISTRY if (found := load(platform_id)) is not None]


def from_environment(environ: Mapping[str, str]) -> Platform | None:
    """The host that started this process, told by the variables it sets; None if unsure.

    A host whose markers another matching host also sets (`env_shadows`: Kilo exports
    OpenCode's `OPENCODE=1` besides its own `KILO=1`) gives way to that one.
    """
    found = [p for p in all_platforms() if any(environ.get(name) for name in p.env_markers)]
    shadowed = {shadow for platform in found for shadow in platform.env_shadows}
    left = [platform for platform in found if platform.id not in shadowed]
    return left[0] if len(left) == 1 else None
