"""Coercing tool arguments the way models actually send them.

Models send numbers as strings, booleans as "true"/"false", arrays as a JSON
string or a single bare string, and batch commands as plain strings. These
functions accept all of that and raise `ArgumentError` with a one-line message
for anything else.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ctxmode.errors import CtxmodeError


class ArgumentError(CtxmodeError, ValueError):
    """A tool argument is missing or has a shape we cannot use."""


_MISSING = object()


def get(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    value = args.get(name)
    if value is None or value == "":
        if default is _MISSING:
            raise ArgumentError(f"missing required argument '{name}'")
        return default
    return value


def as_str(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    value = get(args, name, default)
    if value is default:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise ArgumentError(f"'{name}' must be a string")
    return value


def as_number(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    value = get(args, name, default)
    if value is default:
        return value
    if isinstance(value, bool):
        raise ArgumentError(f"'{name}' must be a number, got a boolean")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ArgumentError(f"'{name}' must be a number, got {value!r}") from None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArgumentError(f"'{name}' must be a finite number")
        return int(value) if value.is_integer() else value
    raise ArgumentError(f"'{name}' must be a number")


def as_int(
    args: dict[str, Any],
    name: str,
    default: Any = _MISSING,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> Any:
    value = as_number(args, name, default)
    if value is default:
        return value
    value = int(value)
    if minimum is not None and value < minimum:
        raise ArgumentError(f"'{name}' must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ArgumentError(f"'{name}' must be at most {maximum}, got {value}")
    return value


def as_bool(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    value = get(args, name, default)
    if value is default or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
    raise ArgumentError(f"'{name}' must be true or false, got {value!r}")


def as_list(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    """An array, a JSON-encoded array, or one bare value lifted to a one-item list."""
    value = get(args, name, default)
    if value is default:
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                decoded = json.loads(text)
            except ValueError:
                decoded = None
            if isinstance(decoded, list):
                return decoded
        return [value]
    if isinstance(value, list):
        return value
    return [value]


def as_str_list(args: dict[str, Any], name: str, default: Any = _MISSING) -> Any:
    items = as_list(args, name, default)
    if items is default:
        return items
    out = []
    for item in items:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            item = str(item)
        if not isinstance(item, str):
            raise ArgumentError(f"'{name}' must be a list of strings")
        if item.strip():
            out.append(item)
    return out


def as_choice(
    args: dict[str, Any], name: str, choices: tuple[str, ...], default: Any = _MISSING
) -> Any:
    value = as_str(args, name, default)
    if value is default:
        return value
    if value not in choices:
        raise ArgumentError(f"'{name}' must be one of {', '.join(choices)}; got {value!r}")
    return value


def as_commands(args: dict[str, Any], name: str = "commands") -> list[tuple[str, str]]:
    """Batch commands: objects {label, command} or plain strings (labelled cmd_1, cmd_2, ...)."""
    items = as_list(args, name)
    commands: list[tuple[str, str]] = []
    for index, item in enumerate(items, start=1):
        if isinstance(item, str):
            label, command = f"cmd_{index}", item
        elif isinstance(item, dict):
            given, label = item.get("command"), item.get("label") or f"cmd_{index}"
            if not isinstance(given, str) or not isinstance(label, str):
                raise ArgumentError(f"'{name}[{index - 1}]' needs a string 'command' (and 'label')")
            command = given
        else:
            raise ArgumentError(f"'{name}[{index - 1}]' must be a string or {{label, command}}")
        if command.strip():
            commands.append((label, command))
    if not commands:
        raise ArgumentError(f"'{name}' must contain at least one command")
    return commands


def as_requests(args: dict[str, Any]) -> list[tuple[str, str | None]]:
    """Fetch requests: `url` (+ `source`) or `requests[{url, source?}]` (also bare URL strings)."""
    items = as_list(args, "requests", None)
    if items is None:
        return [(as_str(args, "url"), as_str(args, "source", None))]
    out: list[tuple[str, str | None]] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            out.append((item, None))
        elif isinstance(item, dict) and isinstance(item.get("url"), str):
            source = item.get("source")
            out.append((item["url"], source if isinstance(source, str) and source else None))
        else:
            raise ArgumentError(f"'requests[{index}]' must be a URL or {{url, source?}}")
    if not out:
        raise ArgumentError("'requests' must contain at least one URL")
    return out
