"""Third-party MCP servers from npm, registered with a real host the way its user would.

`.ci/install-hosts` installs them pinned under `.hosts/npm/`: the official filesystem
server and Playwright MCP (which drives Debian's chromium: `.ci/install-chromium`). Each
host keeps its MCP servers in its own file and shape; `add_server` merges one entry into
the user-level file of the host after `ctxmode setup` wrote ours.
"""

from __future__ import annotations

import http.server
import json
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.hosts import HostWorld, missing, npm_host, socket_in_netns

CHROMIUM = "/usr/bin/chromium"


def filesystem(root: Path) -> list[str]:
    """argv of the official filesystem server, allowed to read under `root`."""
    return [str(npm_host("mcp-filesystem", "mcp-server-filesystem")), str(root)]


def playwright(world: HostWorld) -> list[str]:
    """argv of Playwright MCP on the system chromium (headless, no sandbox: CI runs as root)."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        missing("chromium is not installed (run .ci/install-chromium)")
    binary = npm_host("mcp-playwright", "playwright-mcp")
    # Chromium refuses a singleton socket path over ~100 characters: a short TMPDIR.
    short_tmp = tempfile.mkdtemp(prefix="pw-", dir="/tmp")
    return ["/usr/bin/env", f"TMPDIR={short_tmp}", str(binary), "--headless", "--no-sandbox", "--isolated", "--browser", "chromium",
            "--executable-path", CHROMIUM, "--output-dir", str(world.root / "playwright")]  # fmt: skip


def _merge_json(path: Path, keys: tuple[str, ...], name: str, entry: object) -> None:
    document = json.loads(path.read_text()) if path.exists() else {}
    table = document
    for key in keys:
        table = table.setdefault(key, {})
    table[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))


def add_server(host: str, world: HostWorld, name: str, argv: list[str]) -> None:
    """Register the stdio server `argv` as `name` in `host`'s user-level config."""
    command, args = argv[0], argv[1:]
    home = world.home
    if host == "claude-code":
        _merge_json(home / ".claude.json", ("mcpServers",), name,
                    {"type": "stdio", "command": command, "args": args})  # fmt: skip
    elif host == "gemini-cli":
        _merge_json(home / ".gemini" / "settings.json", ("mcpServers",), name,
                    {"command": command, "args": args, "trust": True})  # fmt: skip
    elif host == "qwen-code":
        _merge_json(home / ".qwen" / "settings.json", ("mcpServers",), name,
                    {"command": command, "args": args, "trust": True})  # fmt: skip
    elif host == "copilot-cli":
        _merge_json(home / ".copilot" / "mcp-config.json", ("mcpServers",), name,
                    {"type": "local", "command": command, "args": args, "tools": ["*"]})  # fmt: skip
    elif host == "codex":
        config = home / ".codex" / "config.toml"
        text = config.read_text() if config.exists() else ""
        config.write_text(
            text + f"\n[mcp_servers.{name}]\ncommand = {json.dumps(command)}\n"
            f"args = {json.dumps(args)}\nstartup_timeout_sec = 60\ntool_timeout_sec = 120\n"
        )
    elif host == "omp":  # Claude Desktop's shape, in the agent dir's `mcp.json`
        _merge_json(home / ".omp" / "agent" / "mcp.json", ("mcpServers",), name,
                    {"command": command, "args": args})  # fmt: skip
        if name == "playwright":  # OMP drops a browser server while its own browser is on
            _merge_json(home / ".omp" / "agent" / "config.yml", ("browser",), "enabled", False)
    elif host in ("opencode", "kilo"):
        path = home / ".config" / host / f"{host}.json"
        _merge_json(path, ("mcp",), name,
                    {"type": "local", "command": [command, *args], "enabled": True})  # fmt: skip
    elif host == "openclaw":
        path = home / ".openclaw" / "openclaw.json"
        _merge_json(path, ("mcp", "servers"), name, {"command": command, "args": args})
        # The server's tools offered by name (`<server>__<tool>`), not behind tool_search:
        # what `ctxmode setup openclaw` sets too; a user without ctxmode sets it the same way.
        document = json.loads(path.read_text())
        document.setdefault("tools", {}).setdefault("toolSearch", False)
        path.write_text(json.dumps(document, indent=2))
    elif host == "dsh":
        _add_dsh_mount(world, name, command, args)
    else:
        raise ValueError(f"no MCP config writer for {host}")


ORDERS = 2_000
PAGE_NEEDLE = "order 1234 shipped to Reykjavik-77"


def orders_page(rows: int = ORDERS) -> str:
    """A page whose accessibility snapshot is ~350 KB: headings, a form, a 2,000-row table
    with a link and a button per row; row 1234 holds the needle."""
    body = [f"<tr><td>order {i} shipped to city-{i % 50}</td><td>{i * 13 % 997} EUR</td>"
            f'<td><a href="#o{i}">Open order {i}</a></td><td><button>Refund {i}</button></td></tr>'
            for i in range(rows)]  # fmt: skip
    body[1234] = body[1234].replace("order 1234 shipped to city-34", PAGE_NEEDLE)
    return ("<!doctype html><html><head><title>Orders dashboard</title></head><body>"
            "<h1>Orders</h1><h2>Filters</h2><form><label>Search <input name=q></label>"
            "<button type=submit>Apply</button></form><h2>All orders</h2><table>"
            "<tr><th>Order</th><th>Total</th><th>Link</th><th>Action</th></tr>"
            + "".join(body) + "</table></body></html>")  # fmt: skip


@contextmanager
def page_server(world: HostWorld, html: str) -> Iterator[str]:
    """Serve `html` at `/` on 127.0.0.1 inside the world's network; yields its URL."""
    page = html.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    sock = socket_in_netns(world.netns)
    server = http.server.ThreadingHTTPServer(sock.getsockname(), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _add_dsh_mount(world: HostWorld, name: str, command: str, args: list[str]) -> None:
    """A DSH MCP mount, one JSON flow row of the headless profile's patch list (made by
    `dsh headless --dump-config` first; setup may have written ours)."""
    from support.dsh_host import dsh_env

    profile = Path(dsh_env(world)["DSH_HOME"]) / "profiles" / "headless"
    patch = profile / "cordis.patch.yml"
    text = patch.read_text() if patch.exists() else ""
    rows = [line for line in text.splitlines() if line.strip() and line.strip() != "[]"]
    config = {"serverName": name, "transport": "stdio", "command": command, "args": args,
              "failOnStartupError": False}  # fmt: skip
    mount = {"id": f"mcp-{name}", "name": "@deepseek-ai/dsh-mcp-client", "config": config}
    rows.append("- " + json.dumps({"insert": [mount]}))
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text("\n".join(rows) + "\n")
