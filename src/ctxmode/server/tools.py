"""The eleven MCP tools as the model sees them: names, parameters, descriptions, annotations.

Names and parameter names are the reference's, so instructions written for it keep
working. Descriptions say what a model needs to choose the tool and nothing more:
the whole `tools/list` is paid for in tokens on every session. Schemas avoid
`const` and `additionalProperties`, which strict clients reject.
"""

from __future__ import annotations

from typing import Any

from ctxmode.vocab.languages import SUPPORTED_LANGUAGES

LANGUAGES = SUPPORTED_LANGUAGES

_STR = {"type": "string"}
_NUM = {"type": "number"}
_BOOL = {"type": "boolean"}
_STRS = {"type": "array", "items": _STR}


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def _desc(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {**schema, "description": text}


_TIMEOUT = _desc(_NUM, "ms; default 120000")
_INTENT = _desc(_STR, "What you look for; large output is indexed and only matching lines return")

TOOLS: list[dict[str, Any]] = [
    {
        "name": "ctx_execute",
        "title": "Run code in a sandbox",
        "description": (
            "Run code in a subprocess in the project dir and get back only what matters. "
            "Use instead of shell/reads that print a lot (logs, test runs, API calls, data). "
            "Print just the answer. Output over 5 KB is indexed: give `intent` to get the "
            "matching lines; without it you get head, tail and every error line."
        ),
        "inputSchema": _obj(
            {
                "language": {"type": "string", "enum": list(LANGUAGES)},
                "code": _STR,
                "timeout": _TIMEOUT,
                "background": _desc(_BOOL, "Detach long-running processes (servers)"),
                "cwd": _desc(_STR, "Working dir; default project root"),
                "intent": _INTENT,
            },
            ("language", "code"),
        ),
        "annotations": (False, True, False, True),
    },
    {
        "name": "ctx_execute_file",
        "title": "Run code over a file",
        "description": (
            "Process a project file with code without reading it into context. The file's "
            "text is in FILE_CONTENT (path in FILE_CONTENT_PATH). Print only the result."
        ),
        "inputSchema": _obj(
            {
                "path": _STR,
                "language": {"type": "string", "enum": list(LANGUAGES)},
                "code": _STR,
                "timeout": _TIMEOUT,
                "intent": _INTENT,
            },
            ("path", "language", "code"),
        ),
        "annotations": (False, True, False, True),
    },
    {
        "name": "ctx_batch_execute",
        "title": "Batch execute and search",
        "description": (
            "Run several shell commands, index all their output as one source, and answer "
            "queries from it in one call. The first choice for gathering information."
        ),
        "inputSchema": _obj(
            {
                "commands": {
                    "type": "array",
                    "items": _obj({"label": _STR, "command": _STR}, ("command",)),
                },
                "queries": _STRS,
                "timeout": _desc(_NUM, "ms budget for all commands; default 120000"),
                "concurrency": _desc(_NUM, "1-8, default 1"),
                "cwd": _STR,
                "query_scope": {"type": "string", "enum": ["batch", "global"]},
            },
            ("commands",),
        ),
        "annotations": (False, True, False, True),
    },
    {
        "name": "ctx_index",
        "title": "Index content",
        "description": (
            "Index text or a file/directory into the searchable knowledge base without "
            "putting it in context. Then use ctx_search."
        ),
        "inputSchema": _obj(
            {
                "content": _STR,
                "path": _STR,
                "source": _desc(_STR, "Label for later filtering"),
                "include": _STRS,
                "exclude": _STRS,
                "maxDepth": _NUM,
                "maxFiles": _NUM,
                "extensions": _STRS,
                "respectGitignore": _BOOL,
                "followSymlinks": _BOOL,
            }
        ),
        "annotations": (False, False, False, False),
    },
    {
        "name": "ctx_search",
        "title": "Search indexed content",
        "description": (
            "Search the knowledge base (indexed outputs, files, pages, session history). "
            "Pass all questions at once in `queries`. Returns matching passages."
        ),
        "inputSchema": _obj(
            {
                "queries": _STRS,
                "query": _STR,
                "limit": _desc(_NUM, "Results per query, default 3"),
                "source": _desc(_STR, "Source label substring"),
                "contentType": {"type": "string", "enum": ["code", "prose"]},
                "sort": {"type": "string", "enum": ["relevance", "timeline"]},
            }
        ),
        "annotations": (True, False, True, False),
    },
    {
        "name": "ctx_fetch_and_index",
        "title": "Fetch and index URLs",
        "description": (
            "Fetch web pages or JSON (HTML becomes markdown), index them, and return a short "
            "preview. Use instead of WebFetch; then ctx_search."
        ),
        "inputSchema": _obj(
            {
                "url": _STR,
                "source": _STR,
                "requests": {
                    "type": "array",
                    "items": _obj({"url": _STR, "source": _STR}, ("url",)),
                },
                "concurrency": _desc(_NUM, "1-8, default 8"),
                "force": _desc(_BOOL, "Bypass the cache"),
                "ttl": _desc(_NUM, "Cache lifetime ms, default 24 h"),
                "timeout": _desc(_NUM, "Deadline ms for the whole call, default 60000"),
            }
        ),
        "annotations": (False, False, False, True),
    },
    {
        "name": "ctx_stats",
        "title": "Session statistics",
        "description": "Show how much output ctxmode kept out of context, per tool.",
        "inputSchema": _obj({}),
        "annotations": (True, False, True, False),
    },
    {
        "name": "ctx_doctor",
        "title": "Run diagnostics",
        "description": "Check runtimes, SQLite FTS5, storage and versions.",
        "inputSchema": _obj({}),
        "annotations": (True, False, True, False),
    },
    {
        "name": "ctx_upgrade",
        "title": "Upgrade ctxmode",
        "description": "Get the command that upgrades this ctxmode installation.",
        "inputSchema": _obj({}),
        "annotations": (False, False, True, False),
    },
    {
        "name": "ctx_purge",
        "title": "Purge knowledge base",
        "description": (
            "Delete indexed content and session data. Needs confirm=true. scope 'project' "
            "(default) or 'session' with sessionId."
        ),
        "inputSchema": _obj(
            {
                "confirm": _BOOL,
                "sessionId": _STR,
                "scope": {"type": "string", "enum": ["session", "project"]},
            },
            ("confirm",),
        ),
        "annotations": (False, True, True, False),
    },
    {
        "name": "ctx_insight",
        "title": "Insight report",
        "description": "A short project report and the URL of a local dashboard (started if none runs).",
        "inputSchema": _obj({}),
        "annotations": (True, False, True, False),
    },
]

TOOL_NAMES = tuple(tool["name"] for tool in TOOLS)


def listed_tools() -> list[dict[str, Any]]:
    """The tools as `tools/list` puts them on the wire."""
    listed = []
    for spec in TOOLS:
        read_only, destructive, idempotent, open_world = spec["annotations"]
        annotations = {
            "title": spec["title"],
            "readOnlyHint": read_only,
            "destructiveHint": destructive,
            "idempotentHint": idempotent,
            "openWorldHint": open_world,
        }
        listed.append({**spec, "annotations": annotations})
    return listed
