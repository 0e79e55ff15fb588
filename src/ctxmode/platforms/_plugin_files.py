"""The host plugin files in the repository (Claude Code, Gemini CLI), rendered from the host modules.

`claude plugin marketplace add <this repository>` reads `.claude-plugin/marketplace.json`,
which lists one plugin, `plugins/claude-code/`: its manifest, its hooks (the events and
matchers `ctxmode setup claude-code` registers) and its MCP server. Claude Code names the
plugin's tools `mcp__plugin_ctxmode_context-mode__<tool>`; the hooks and the server learn
that from the environment Claude Code starts them in (see
`claude_code.plugin_mcp_config`). `gemini extensions install plugins/gemini-cli` takes
the Gemini CLI extension: a manifest with the server and the hooks `ctxmode setup
gemini-cli` registers (Gemini CLI names an extension's tools as a configured server's).
Both start `ctxmode ...` from PATH, so ctxmode must be installed as a user tool (`pipx
install`, `uv tool install`).

`python -m ctxmode.platforms._plugin_files [--check] [DIR]` writes the files under DIR
(default: the current directory) or, with `--check`, exits 1 naming the ones that differ.
"""

from __future__ import annotations

import json
import os
import sys

from ctxmode import __version__
from ctxmode.platforms import _install as inst
from ctxmode.platforms import claude_code, gemini_cli
from ctxmode.vocab.toolnames import SERVER_NAME

PLUGIN_NAME = "ctxmode"
PLUGIN_DIR = "plugins/claude-code"
GEMINI_DIR = "plugins/gemini-cli"
DESCRIPTION = (
    "Keeps the context window for thinking: routing hooks, session continuity and the "
    "ctx_* MCP tools of ctxmode (install ctxmode first: pipx install / uv tool install)."
)


def _json(document: object) -> str:
    return json.dumps(document, indent=2) + "\n"


def plugin_files() -> dict[str, str]:
    """Path (relative to the repository root) -> content, for every file of the plugin."""
    commands = claude_code.hook_commands("ctxmode hook")
    hooks = {
        host_event: [inst.nested(line, claude_code.MATCHERS.get(host_event, ""))]
        for host_event, line in commands.items()
    }
    return {
        ".claude-plugin/marketplace.json": _json(
            {
                "name": PLUGIN_NAME,
                "owner": {"name": "ctxmode"},
                "plugins": [
                    {"name": PLUGIN_NAME, "source": f"./{PLUGIN_DIR}", "description": DESCRIPTION}
                ],
            }
        ),
        f"{PLUGIN_DIR}/.claude-plugin/plugin.json": _json(
            {"name": PLUGIN_NAME, "version": __version__, "description": DESCRIPTION}
        ),
        f"{PLUGIN_DIR}/hooks/hooks.json": _json({"hooks": hooks}),
        f"{PLUGIN_DIR}/.mcp.json": _json(
            {"mcpServers": {SERVER_NAME: {"command": "ctxmode", "args": ["serve"]}}}
        ),
        **gemini_extension_files(),
    }


def gemini_extension_files() -> dict[str, str]:
    """Gemini CLI's extension: a manifest with our server, and the hooks setup registers."""
    commands = gemini_cli.hook_commands("ctxmode hook")
    hooks = {
        host_event: [inst.nested(line, gemini_cli.MATCHERS[host_event])]
        for host_event, line in commands.items()
    }
    manifest = {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": DESCRIPTION,
        "mcpServers": {SERVER_NAME: {"command": "ctxmode", "args": ["serve"]}},
    }
    return {
        f"{GEMINI_DIR}/gemini-extension.json": _json(manifest),
        f"{GEMINI_DIR}/hooks/hooks.json": _json({"hooks": hooks}),
    }


def stale_files(root: str) -> list[str]:
    """The plugin files under `root` that are missing or differ from what is rendered."""
    stale = []
    for relpath, text in plugin_files().items():
        try:
            with open(os.path.join(root, relpath), encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except OSError:
            pass
        stale.append(relpath)
    return stale


def main(argv: list[str]) -> int:
    check = "--check" in argv
    rest = [arg for arg in argv if arg != "--check"]
    root = rest[0] if rest else "."
    stale = stale_files(root)
    if check:
        for relpath in stale:
            print(f"out of date: {relpath}", file=sys.stderr)
        return 1 if stale else 0
    for relpath in stale:
        target = os.path.join(root, relpath)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(plugin_files()[relpath])
        print(f"wrote {relpath}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
