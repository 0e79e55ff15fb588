"""Guidance throttling that holds across concurrent hook processes.

Each session gets `<data root>/throttle/<session key>/`. A once-per-session nudge is
shown by whichever process creates its marker file with O_CREAT|O_EXCL first; a periodic
nudge counts calls in a file incremented under an exclusive lock, so concurrent hooks
never lose an increment. Session dirs idle for a week are removed when a new session
starts (cheap: one directory listing per new session, never per call).
"""

from __future__ import annotations

import os
import time

from ctxmode import paths

STALE_AFTER_SECONDS = 7 * 24 * 3600
SAFE_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
MAX_KEY_LENGTH = 80


def throttle_root() -> str:
    return os.path.join(paths.data_root(), "throttle")


def session_key(session_id: str) -> str:
    """A file-name-safe, collision-resistant key for a session id."""
    safe = len(session_id) <= MAX_KEY_LENGTH and set(session_id) <= SAFE_KEY_CHARS
    if session_id and safe and not session_id.startswith("."):
        return "s-" + session_id
    import zlib

    readable = "".join(c if c in SAFE_KEY_CHARS else "_" for c in session_id[:40])
    digest = zlib.crc32(session_id.encode("utf-8", "surrogatepass"))
    length = len(session_id)
    return f"h-{readable}-{digest:08x}{length:x}"


def session_dir(session_id: str) -> str:
    """The session's throttle dir, created on first use (which also sweeps stale sessions)."""
    root = throttle_root()
    directory = os.path.join(root, session_key(session_id))
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        return directory
    except FileNotFoundError:
        paths.ensure_dir(root)
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            return directory
    remove_stale_sessions(root, keep=directory)
    return directory


def first_time(session_id: str, kind: str) -> bool:
    """True for exactly one caller per (session, kind), across processes."""
    try:
        marker = os.path.join(session_dir(session_id), kind)
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except (OSError, ValueError):  # exists (already shown) or unusable data root: stay quiet
        return False
    return True


def count_call(session_id: str, kind: str) -> int:
    """Increment and return the session's counter for `kind` (1 for the first call)."""
    path = os.path.join(session_dir(session_id), kind + ".count")
    try:
        import fcntl
    except ImportError:  # Windows: unique numbered marker files instead of a lock
        return _count_with_markers(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        raw = os.read(fd, 32)
        try:
            count = int(raw.decode("ascii").strip() or 0) + 1
        except ValueError:
            count = 1
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, str(count).encode("ascii"))
        return count
    finally:
        os.close(fd)  # also releases the lock


def _count_with_markers(path: str) -> int:
    directory, name = os.path.split(path)
    count = sum(1 for entry in os.listdir(directory) if entry.startswith(name + ".")) + 1
    while True:
        try:
            os.close(os.open(f"{path}.{count}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return count
        except FileExistsError:
            count += 1


def every_nth(session_id: str, kind: str, every: int) -> bool:
    """True on calls 1, every+1, 2*every+1, ... of `kind` in this session."""
    try:
        count = count_call(session_id, kind)
    except (OSError, ValueError):
        return True  # an IO error never suppresses a periodic nudge
    return (count - 1) % max(every, 1) == 0


def _last_activity(directory: str) -> float:
    newest = os.stat(directory).st_mtime
    for entry in os.scandir(directory):
        newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
    return newest


def remove_stale_sessions(root: str, keep: str = "", now: float | None = None) -> int:
    """Delete session dirs with no activity for STALE_AFTER_SECONDS; returns how many."""
    cutoff = (time.time() if now is None else now) - STALE_AFTER_SECONDS
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        if entry.path == keep or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            if _last_activity(entry.path) >= cutoff:
                continue
            for child in os.scandir(entry.path):
                os.unlink(child.path)
            os.rmdir(entry.path)
            removed += 1
        except OSError:
            continue  # another process is sweeping too, or the dir came back to life
    return removed
