"""The session-memory settings in `<config dir>/config.toml`: path scopes and allowed commands.

    allowed_commands = ["grep", "python3", "claude"]   # only these receive the context
    private_networks = true                            # also filter private IP addresses

    [[scopes]]
    path = "/data/prod/archive"
    session = "prod-archive-log"
    window = 8
    max_chars = 2000

The longest scope `path` containing the current directory wins. `CTXMODE_ALLOWED_COMMANDS`
(comma-separated) replaces `allowed_commands` when set.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass
from typing import Any

from ctxmode import paths, settings
from ctxmode.errors import CtxmodeError
from ctxmode.session.memory.guard import is_inside

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_WINDOW = 8
DEFAULT_MAX_CHARS = 2000


class ConfigError(CtxmodeError, ValueError):
    """The config file exists but cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Scope:
    path: str
    session: str | None = None
    window: int = DEFAULT_WINDOW
    max_chars: int = DEFAULT_MAX_CHARS


@dataclass(frozen=True)
class MemoryConfig:
    scopes: tuple[Scope, ...] = ()
    allowed_commands: tuple[str, ...] = ()
    private_networks: bool = False
    source: str | None = None

    def scope_for(self, cwd: str) -> Scope | None:
        """The longest scope whose path contains `cwd`."""
        matching = [s for s in self.scopes if is_inside(cwd, s.path)]
        return max(matching, key=lambda s: len(os.path.realpath(s.path)), default=None)

    def settings_for(self, cwd: str) -> Scope:
        """Window and budget for `cwd`: its scope's, else the defaults (path = cwd)."""
        return self.scope_for(cwd) or Scope(path=os.path.realpath(cwd))

    def allows(self, command: str) -> bool:
        """Whether `command` (argv[0]) may receive the context: its name or path matches a glob."""
        name = os.path.basename(command)
        return any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(command, pattern)
            for pattern in self.allowed_commands
        )


def config_path() -> str:
    return os.path.join(paths.config_dir(), "config.toml")


def load_config(path: str | None = None, environ: dict[str, str] | None = None) -> MemoryConfig:
    """Read the config (a missing file means defaults); the environment overrides the list."""
    env = os.environ if environ is None else environ
    path = path or config_path()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        data, source = {}, None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    else:
        source = path
    config = parse_config(data, path)
    allowed = config.allowed_commands
    from_env = settings.words(settings.ALLOWED_COMMANDS, env)
    if from_env is not None:
        allowed = from_env
    return MemoryConfig(config.scopes, allowed, config.private_networks, source)


def parse_config(data: dict[str, Any], path: str = "config.toml") -> MemoryConfig:
    allowed = data.get("allowed_commands", [])
    if not isinstance(allowed, list) or not all(isinstance(c, str) for c in allowed):
        raise ConfigError(f"{path}: allowed_commands must be a list of strings")
    private = data.get("private_networks", False)
    if not isinstance(private, bool):
        raise ConfigError(f"{path}: private_networks must be true or false")
    raw_scopes = data.get("scopes", [])
    if not isinstance(raw_scopes, list):
        raise ConfigError(f"{path}: scopes must be an array of tables ([[scopes]])")
    scopes = tuple(_parse_scope(raw, path, i) for i, raw in enumerate(raw_scopes))
    return MemoryConfig(scopes, tuple(allowed), private, path)


def _parse_scope(raw: Any, path: str, index: int) -> Scope:
    where = f"{path}: scopes[{index}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise ConfigError(f"{where} needs a path")
    session = raw.get("session")
    if session is not None and not isinstance(session, str):
        raise ConfigError(f"{where}.session must be a string")
    window = raw.get("window", DEFAULT_WINDOW)
    max_chars = raw.get("max_chars", DEFAULT_MAX_CHARS)
    for name, value in (("window", window), ("max_chars", max_chars)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{where}.{name} must be a positive integer")
    scope_path = os.path.expanduser(raw["path"])
    if not os.path.isabs(scope_path):
        raise ConfigError(f"{where}.path must be absolute, got {raw['path']!r}")
    return Scope(os.path.realpath(scope_path), session, window, max_chars)
