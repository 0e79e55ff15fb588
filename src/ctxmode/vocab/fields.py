"""Typed lookups in a host payload, plus where a call's session id and project dir come from.

Payloads come from other programs: every lookup tolerates missing keys and wrong types.
"""

from __future__ import annotations

import os

HEX_UUID_CHARS = frozenset("0123456789abcdef-")


def text(mapping: object, *names: str) -> str:
    """The first of `names` holding a non-empty string, else ""."""
    if not isinstance(mapping, dict):
        return ""
    for name in names:
        value = mapping.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def obj(mapping: object, name: str) -> dict:
    """`mapping[name]` if it is a dict, else {}."""
    value = mapping.get(name) if isinstance(mapping, dict) else None
    return value if isinstance(value, dict) else {}


def transcript_uuid(transcript_path: str) -> str:
    """The UUID in `…/<uuid>.jsonl`, else "" (a non-UUID file name is ignored)."""
    if not transcript_path.endswith(".jsonl"):
        return ""
    name = transcript_path.replace("\\", "/").rsplit("/", 1)[-1][: -len(".jsonl")]
    if len(name) == 36 and name.count("-") == 4 and set(name) <= HEX_UUID_CHARS:
        return name
    return ""


def session_id(payload: dict, env_names: tuple[str, ...] = ()) -> str:
    """The first found of: the UUID in the transcript file's name, the payload's
    conversation_id, sessionId or session_id, the host's env variables, `pid-<parent pid>`."""
    found = transcript_uuid(text(payload, "transcript_path")) or text(
        payload, "conversation_id", "sessionId", "session_id"
    )
    if found:
        return found
    for name in env_names:
        value = os.environ.get(name)
        if value:
            return value
    return f"pid-{os.getppid()}"


def project_dir(payload: dict, env_names: tuple[str, ...] = ()) -> str:
    """The first usable of: payload `cwd`, `workspace_roots[0]`, host env, this process's
    cwd (a path with a NUL character names no directory and is skipped)."""
    found = usable_dir(text(payload, "cwd"))
    if found:
        return found
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        found = usable_dir(roots[0])
        if found:
            return found
    found = env_dir(env_names)
    if found:
        return found
    try:
        return os.getcwd()
    except OSError:  # the cwd was deleted under us
        return ""


def env_dir(env_names: tuple[str, ...]) -> str:
    """The first of the host's project-dir variables that is set, else ""."""
    for name in env_names:
        value = os.environ.get(name)
        if value:
            return value
    return ""


def usable_dir(path: str) -> str:
    """`path`, or "" when it cannot name a directory (a NUL character)."""
    return "" if "\0" in path else path
