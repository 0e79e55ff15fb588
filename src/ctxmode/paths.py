"""Where ctxmode keeps its files: the data root, the config dir, and the logs.

Standard library only: the hook path calls `data_root()` on every tool call.
`platformdirs` is the authority for the default locations; `_default_data_dir`
mirrors its answer without importing it (a test keeps the two in step).
"""

from __future__ import annotations

import os
import sys

from ctxmode import settings
from ctxmode.errors import CtxmodeError

APP_NAME = "ctxmode"


class DataRootError(CtxmodeError, ValueError):
    """The configured data root is not usable (e.g. a relative CTXMODE_DIR)."""


def _default_data_dir() -> str:
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", APP_NAME)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, APP_NAME, APP_NAME)
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(home, ".local", "share")
    return os.path.join(base, APP_NAME)


def _default_config_dir() -> str:
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", APP_NAME)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, APP_NAME, APP_NAME)
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(home, ".config")
    return os.path.join(base, APP_NAME)


def data_root() -> str:
    """Absolute path of the data root (`CTXMODE_DIR`, else the user data dir)."""
    configured = settings.text(settings.DATA_DIR)
    if configured:
        configured = os.path.expanduser(configured)
        if not os.path.isabs(configured):
            raise DataRootError(f"CTXMODE_DIR must be an absolute path, got {configured!r}")
        return os.path.normpath(configured)
    return _default_data_dir()


def config_dir() -> str:
    """Absolute path of ctxmode's config dir (`CTXMODE_CONFIG_DIR`, else the user config dir)."""
    configured = settings.text(settings.CONFIG_DIR)
    if configured:
        return os.path.normpath(os.path.abspath(os.path.expanduser(configured)))
    return _default_config_dir()


def logs_dir() -> str:
    return os.path.join(data_root(), "logs")


def projects_dir() -> str:
    return os.path.join(data_root(), "projects")


def ensure_dir(path: str) -> str:
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def write_atomic(path: str, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` through a temporary file beside it, so that a reader never
    sees a half-written file (another hook process may read it at any moment)."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding=encoding) as handle:
        handle.write(text)
    os.replace(temporary, path)


def append_log(name: str, line: str, max_bytes: int = 1_000_000) -> bool:
    """Append one line to `<data root>/logs/<name>`, secrets filtered, keeping one rotated copy.

    Never raises (a full or read-only data root must not turn logging into a second
    failure); returns whether the line was written.
    """
    try:
        from ctxmode.policy.secrets import redact

        line = redact(line)
        directory = ensure_dir(logs_dir())
        path = os.path.join(directory, name)
        try:
            if os.path.getsize(path) > max_bytes:
                os.replace(path, path + ".1")
        except OSError:
            pass
        with open(path, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(line.rstrip("\n") + "\n")
    except Exception:
        return False
    return True


def log_traceback(name: str, error: BaseException, context: str) -> str:
    """Log `error` with its traceback to `<data root>/logs/<name>`; says where, for a user."""
    import time
    import traceback

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    if append_log(name, f"[{stamp}] {context}\n{trace}"):
        return f"the traceback is in {os.path.join(logs_dir(), name)}"
    return "the traceback could not be written to the data root"
