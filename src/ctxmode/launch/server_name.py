"""The name the host registered our MCP server under, read from the host's own config.

A user may register ctxmode under any name (`claude mcp add ctx -- ctxmode serve`), and
the host then names our tools after it (`mcp__ctx__ctx_search`), so every tool name we
show the model must use it. The host's MCP config files are parsed again only when one
of them changed: the answer is cached under the data root, keyed by each file's size
and mtime. A file over MAX_CONFIG_BYTES is skipped (Claude Code's ~/.claude.json keeps
prompt history and can grow to megabytes, rewritten as the user works). Without a
config that runs ctxmode the answer is the name setup registers.
"""

from __future__ import annotations

import os

from ctxmode import fastjson, paths
from ctxmode.vocab.toolnames import SERVER_NAME, runs_ctxmode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.vocab.platform import Platform

CACHE_FILE = "server-names.json"
MAX_CONFIG_BYTES = 1_000_000  # parsing more on a tool call costs more than a decision
MAX_CACHE_ENTRIES = 64


def registered_server(platform: Platform, project_dir: str) -> str:
    """Our server's name in this host's config for `project_dir` (most specific file first).

    Started by the host as part of a plugin (its hooks and server get the plugin's place
    in their environment), the name is the plugin server's, as the host names it.
    """
    plugin_prefix, plugin_sources = platform.plugin_mcp_config(os.environ)
    if plugin_sources:
        found = _find(plugin_sources)
        if found:
            return plugin_prefix + found
    sources = platform.mcp_config(project_dir)
    if not sources:
        return SERVER_NAME
    stamps = [_stamp(path) for path, _keys in sources]
    key = f"{platform.id}\n{project_dir}"
    cache = _read_cache()
    hit = cache.get(key)
    if isinstance(hit, dict) and hit.get("stamps") == stamps and isinstance(hit.get("name"), str):
        return hit["name"]
    name = _find(sources) or SERVER_NAME
    if len(cache) >= MAX_CACHE_ENTRIES:
        cache.clear()
    cache[key] = {"stamps": stamps, "name": name}
    _write_cache(cache)
    return name


def configured_servers(platform: Platform, project_dir: str) -> list[str]:
    """Every MCP server name in this host's config files for `project_dir`, ours excluded."""
    names: list[str] = []
    for path, keys in platform.mcp_config(project_dir):
        for name, entry in _lookup(_read_json(path), keys).items():
            if isinstance(name, str) and name and not runs_ctxmode(entry) and name not in names:
                names.append(name)
    return names


def _stamp(path: str) -> list[int] | None:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _find(sources: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """The first server entry that runs ctxmode (ours by its usual name first), else ""."""
    for path, keys in sources:
        servers = _lookup(_read_json(path), keys)
        if runs_ctxmode(servers.get(SERVER_NAME)):
            return SERVER_NAME
        for name, entry in servers.items():
            if isinstance(name, str) and name and runs_ctxmode(entry):
                return name
    return ""


def _lookup(document: object, keys: tuple[str, ...]) -> dict:
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document if isinstance(document, dict) else {}


def _read_json(path: str) -> object:
    try:
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return fastjson.loads(handle.read())
    except (OSError, ValueError):
        return None


def _cache_path() -> str:
    return os.path.join(paths.data_root(), "cache", CACHE_FILE)


def _read_cache() -> dict:
    try:
        document = _read_json(_cache_path())
    except ValueError:  # an unusable data root: no cache, still an answer
        return {}
    return document if isinstance(document, dict) else {}


def _write_cache(cache: dict) -> None:
    """Best effort, atomic: a failed write only costs a parse next time."""
    try:
        target = _cache_path()
        paths.ensure_dir(os.path.dirname(target))
        paths.write_atomic(target, fastjson.dumps(cache))
    except (OSError, ValueError):
        pass
