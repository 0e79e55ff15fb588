"""Every `CTXMODE_*` setting, declared once: its name, alias, type, default and meaning.

Standard library only and cheap to import: the hook path reads settings on every tool
call. Each reader asks this module (`integer`, `number`, `flag`, `text`, `words`); a value
that is not of the declared type or out of range is ignored (the default applies), so a
typo never changes behaviour. `explain` says where an effective value came from, for
`ctxmode doctor --config`; `python -m ctxmode.settings` prints the README's table.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


class Setting:
    """One environment variable we read: `name` wins over its `aliases` (first set wins)."""

    __slots__ = (
        "aliases", "choices", "default", "default_text", "description", "high", "kind", "low", "name"
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        kind: str,
        default: object,
        description: str,
        *,
        aliases: tuple[str, ...] = (),
        low: float | None = None,
        high: float | None = None,
        choices: tuple[str, ...] = (),
        default_text: str | None = None,
    ) -> None:
        self.name, self.kind, self.default, self.description = name, kind, default, description
        self.aliases, self.low, self.high, self.choices = aliases, low, high, choices
        self.default_text = default_text  # for defaults computed at run time
        ALL.append(self)  # declaring a setting is constructing it: ALL keeps their order

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def __repr__(self) -> str:
        return f"Setting({self.name})"


ALL: list[Setting] = []


# ------------------------------------------------------------------ where things live

DATA_DIR = Setting(
    "CTXMODE_DIR", "path", None,
    "Data root: the project databases, logs and run files (an absolute path).",
    aliases=("CONTEXT_MODE_DIR",), default_text="the user data dir",
)  # fmt: skip
CONFIG_DIR = Setting(
    "CTXMODE_CONFIG_DIR", "path", None,
    "Config dir holding config.toml (session-memory scopes and allowed commands).",
    default_text="the user config dir",
)  # fmt: skip
PROJECT_DIR = Setting(
    "CTXMODE_PROJECT_DIR", "path", None,
    "Project root a call belongs to (one database per project).",
    aliases=("CONTEXT_MODE_PROJECT_DIR",), default_text="the git root above the current dir",
)  # fmt: skip

# ------------------------------------------------------------------ knowledge base and server

RETENTION_DAYS = Setting(
    "CTXMODE_RETENTION_DAYS", "float", 14.0,
    "Days an unused indexed source is kept (dropped by last use, never by file age).",
    low=0.001,
)  # fmt: skip
REDACT = Setting(
    "CTXMODE_REDACT", "bool", True,
    "`off` stores what you index on request verbatim; everything else is always filtered.",
)  # fmt: skip
INDEX_MAX_BYTES = Setting(
    "CTXMODE_INDEX_MAX_BYTES", "int", 256 * 1024 * 1024,
    "Bytes of files `ctxmode index DIR` reads; files past it are skipped and named (`--max-bytes`).",
    low=1,
)  # fmt: skip
EXEC_TIMEOUT_MS = Setting(
    "CTXMODE_EXEC_TIMEOUT_MS", "int", 120_000,
    "Timeout of a sandboxed run when the call names none, in milliseconds.",
    low=1,
)  # fmt: skip
CALL_DISK_CAP = Setting(
    "CTXMODE_CALL_DISK_CAP", "int", 100 * 1024 * 1024,
    "Most bytes one tool call may add to the data root: its command's output (half of it"
    " at most) and the index of it together. Past it the command is stopped or the"
    " indexing ends there, and the reply says so.",
    low=1,
)  # fmt: skip
SEARCH_WINDOW_MS = Setting(
    "CTXMODE_SEARCH_WINDOW_MS", "int", 60_000,
    "Rolling window of the ctx_search throttle, in milliseconds.",
    aliases=("CONTEXT_MODE_SEARCH_WINDOW_MS",), low=1,
)  # fmt: skip
SEARCH_MAX_RESULTS_AFTER = Setting(
    "CTXMODE_SEARCH_MAX_RESULTS_AFTER", "int", 3,
    "Searches per window with full results; later ones get one result per query. A search "
    "scoped to a source indexed in this session counts only against its own repeats.",
    aliases=("CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER",), low=0,
)  # fmt: skip
SEARCH_BLOCK_AFTER = Setting(
    "CTXMODE_SEARCH_BLOCK_AFTER", "int", 8,
    "Searches per window after which ctx_search refuses until the window rolls on.",
    aliases=("CONTEXT_MODE_SEARCH_BLOCK_AFTER",), low=0,
)  # fmt: skip
FETCH_STRICT = Setting(
    "CTXMODE_FETCH_STRICT", "bool", False,
    "Also refuse to fetch private-network addresses (metadata addresses are always refused).",
    aliases=("CTX_FETCH_STRICT", "CONTEXT_MODE_FETCH_STRICT"),
)  # fmt: skip
HOST_OUTPUT_CAP = Setting(
    "CTXMODE_HOST_OUTPUT_CAP", "int", 30_000,
    "Characters a host shows of a tool output, for the bytes-kept-out estimate.",
    low=1,
)  # fmt: skip

# ------------------------------------------------------------------ hooks

ROUTING = Setting(
    "CTXMODE_ROUTING", "choice", "full",
    "Size of the routing block injected at session start and into subagent prompts.",
    choices=("full", "minimal", "off"),
)  # fmt: skip
MCP_READY = Setting(
    "CTXMODE_MCP_READY", "bool", None,
    "`1`/`0` overrides the detection of a running `ctxmode serve` (hosts with remote servers).",
    default_text="detected",
)  # fmt: skip
REQUIRE_SECURITY = Setting(
    "CTXMODE_REQUIRE_SECURITY", "bool", False,
    "`1` denies every tool call while the permission policy cannot be loaded (fail closed).",
    aliases=("CONTEXT_MODE_REQUIRE_SECURITY",),
)  # fmt: skip
HOOK_STDIN_IDLE_MS = Setting(
    "CTXMODE_HOOK_STDIN_IDLE_MS", "int", 1_500,
    "How long a hook waits on a silent stdin before it answers without a payload.",
    aliases=("CONTEXT_MODE_HOOK_STDIN_IDLE_MS",), low=1, high=600_000,
)  # fmt: skip
HOOK_MODULE_CACHE = Setting(
    "CTXMODE_HOOK_MODULE_CACHE", "bool", True,
    "Hooks keep the compiled code of the modules they load in one file in the package's "
    "`__pycache__` (`off`: every call loads them from their source files).",
)  # fmt: skip
READ_THRESHOLD = Setting(
    "CTXMODE_READ_THRESHOLD", "int", 50_000,
    "Bytes above which a Read is bounded and the whole file indexed.",
    low=1,
)  # fmt: skip
WRAP_THRESHOLD = Setting(
    "CTXMODE_WRAP_THRESHOLD", "int", 5_000,
    "Bytes of wrapped command output passed through unchanged; more is cut and indexed.",
    low=0,
)  # fmt: skip
PLUGIN_THRESHOLD = Setting(
    "CTXMODE_PLUGIN_THRESHOLD", "int", None,
    "Plugin hosts: bytes of tool output above which it is indexed and replaced by a notice.",
    low=0, default_text="the plugin's: 20,000, or `ctxmode setup <host> --threshold`",
)  # fmt: skip
WRAP_EVERY = Setting(
    "CTXMODE_WRAP_EVERY", "bool", True,
    "Where a host runs a rewritten command silently, run every shell command through the "
    "wrapper (`off`: only those predicted to print a lot).",
)  # fmt: skip
WRAP_COMMANDS = Setting(
    "CTXMODE_WRAP_COMMANDS", "list", (),
    "More command prefixes to run through `ctxmode wrap`, comma-separated.",
)  # fmt: skip
MCP_OUTPUT_LIMIT = Setting(
    "CTXMODE_MCP_OUTPUT_LIMIT", "int", 40_000,
    "Characters of another MCP server's result passed whole; a longer one is indexed and noticed.",
    low=9_000,
)  # fmt: skip
MCP_PASSTHROUGH = Setting(
    "CTXMODE_MCP_PASSTHROUGH", "list", (),
    "MCP servers (`server`) or tools (`server__tool`) whose results are never cut, comma-separated.",
)  # fmt: skip
EXTERNAL_MCP_NUDGE_EVERY = Setting(
    "CTXMODE_EXTERNAL_MCP_NUDGE_EVERY", "int", 10,
    "Calls to another MCP server between two reminders to batch them.",
    aliases=("CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY",), low=1, high=100,
)  # fmt: skip
BASH_NUDGE_MIN_COMMAND_BYTES = Setting(
    "CTXMODE_BASH_NUDGE_MIN_COMMAND_BYTES", "int", 0,
    "Shell commands shorter than this many bytes get no ctx_execute tip; unset: none is spared.",
    aliases=("CONTEXT_MODE_BASH_NUDGE_MIN_COMMAND_BYTES",), low=1, high=100_000,
)  # fmt: skip
BRIDGE = Setting(
    "CTXMODE_BRIDGE", "choice", "child",
    "How a plugin host's shim reaches Python: one long-lived child, or one process a call.",
    choices=("child", "call"),
)  # fmt: skip

# ------------------------------------------------------------------ session continuity

SNAPSHOT_BUDGET = Setting(
    "CTXMODE_SNAPSHOT_BUDGET", "int", 2_048,
    "Bytes of the session guide injected after a compaction.",
    low=512,
)  # fmt: skip
SESSION_RETENTION_DAYS = Setting(
    "CTXMODE_SESSION_RETENTION_DAYS", "float", 7.0,
    "Days an idle host session's events are kept.",
    low=0,
)  # fmt: skip
SESSION_EVENT_CAP = Setting(
    "CTXMODE_SESSION_EVENT_CAP", "int", 1_000,
    "Events kept per host session (the oldest go first).",
    low=1,
)  # fmt: skip

# ------------------------------------------------------------------ command-line session memory

SESSION = Setting(
    "CTXMODE_SESSION", "text", None,
    "Session name for `ctxmode run` and `ctxmode session` (like `--session`).",
    default_text="the path's scope, else the workspace's name",
)  # fmt: skip
ALLOWED_COMMANDS = Setting(
    "CTXMODE_ALLOWED_COMMANDS", "list", None,
    "Commands that receive the session context, comma-separated (replaces config.toml's list).",
    default_text="config.toml's list",
)  # fmt: skip


# ------------------------------------------------------------------ reading


def lookup(setting: Setting, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The first of the setting's names set to a non-blank value: (name, raw value)."""
    env = os.environ if environ is None else environ
    for name in setting.names:
        raw = env.get(name)
        if raw and raw.strip():
            return name, raw.strip()
    return None


def parse(setting: Setting, raw: str) -> object:
    """`raw` as the setting's type; ValueError (saying why) when it is not a usable value."""
    kind = setting.kind
    if kind in ("int", "float"):
        try:
            value = int(raw) if kind == "int" else float(raw)
        except ValueError:
            raise ValueError("not an integer" if kind == "int" else "not a number") from None
        if (setting.low is not None and value < setting.low) or (
            setting.high is not None and value > setting.high
        ):
            raise ValueError(f"outside {_range(setting)}")
        return value
    if kind == "bool":
        word = raw.lower()
        if word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
        raise ValueError("not one of 1/0, true/false, yes/no, on/off")
    if kind == "choice":
        if raw.lower() not in setting.choices:
            raise ValueError("not one of " + ", ".join(setting.choices))
        return raw.lower()
    if kind == "list":
        return tuple(item.strip() for item in raw.split(",") if item.strip())
    return raw


def explain(setting: Setting, environ: Mapping[str, str] | None = None) -> tuple[object, str]:
    """The effective value and where it came from: `default`, a variable's name, or why
    a set variable was ignored."""
    found = lookup(setting, environ)
    if found is None:
        return setting.default, "default"
    name, raw = found
    try:
        value = parse(setting, raw)
    except ValueError as exc:
        return setting.default, f"default; {name}={raw!r} ignored: {exc}"
    return value, name if name == setting.name else f"alias {name}"


def value(setting: Setting, environ: Mapping[str, str] | None = None) -> object:
    return explain(setting, environ)[0]


def integer(setting: Setting, environ: Mapping[str, str] | None = None) -> int:
    found = value(setting, environ)
    if not isinstance(found, int):
        raise TypeError(f"{setting.name} is not declared as an integer")
    return found


def optional_integer(setting: Setting, environ: Mapping[str, str] | None = None) -> int | None:
    """An integer setting whose default is "unset" (None)."""
    found = value(setting, environ)
    if found is not None and not isinstance(found, int):
        raise TypeError(f"{setting.name} is not declared as an integer")
    return found


def number(setting: Setting, environ: Mapping[str, str] | None = None) -> float:
    found = value(setting, environ)
    if not isinstance(found, (int, float)):
        raise TypeError(f"{setting.name} is not declared as a number")
    return float(found)


def flag(setting: Setting, environ: Mapping[str, str] | None = None) -> bool:
    return bool(value(setting, environ))


def text(setting: Setting, environ: Mapping[str, str] | None = None) -> str | None:
    found = value(setting, environ)
    if found is not None and not isinstance(found, str):
        raise TypeError(f"{setting.name} is not declared as text")
    return found


def words(setting: Setting, environ: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
    found = value(setting, environ)
    if found is not None and not isinstance(found, tuple):
        raise TypeError(f"{setting.name} is not declared as a list")
    return found


# ------------------------------------------------------------------ the README table


def _range(setting: Setting) -> str:
    low = "" if setting.low is None else f"{setting.low:g}"
    high = "" if setting.high is None else f"{setting.high:g}"
    return f"{low}..{high}"


def _shown_default(setting: Setting) -> str:
    if setting.default_text is not None:
        return setting.default_text
    if setting.kind == "bool":
        return "on" if setting.default else "off"
    if setting.kind == "list" and not setting.default:
        return "none"
    if isinstance(setting.default, int):
        return f"{setting.default:,}"
    return f"{setting.default:g}" if isinstance(setting.default, float) else str(setting.default)


def _shown_type(setting: Setting) -> str:
    if setting.kind == "choice":
        return "one of " + ", ".join(setting.choices)
    if setting.low is not None or setting.high is not None:
        return f"{setting.kind} {_range(setting)}"
    return setting.kind


BEGIN = "<!-- settings table: generated by `python -m ctxmode.settings` -->"
END = "<!-- end of settings table -->"


def settings_table() -> str:
    """The markdown table of every setting, between its BEGIN and END markers."""
    rows = ["| Variable (alias) | Type | Default | What it does |", "|---|---|---|---|"]
    for s in ALL:
        name = f"`{s.name}`" + (f" (`{'`, `'.join(s.aliases)}`)" if s.aliases else "")
        rows.append(f"| {name} | {_shown_type(s)} | {_shown_default(s)} | {s.description} |")
    return "\n".join((BEGIN, *rows, END))


if __name__ == "__main__":
    print(settings_table())
