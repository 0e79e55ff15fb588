"""What one call adds to the data root, against the bound (`CTXMODE_CALL_DISK_CAP`).

Run: `.venv/bin/python bench/call_bound.py` (add `--flood` for the `yes` run, about a
minute on a busy 2-core machine).

1. Index growth: the peak growth of the project database and its write-ahead log per byte
   of text indexed (`index_stream`), for log lines, a repeated `y` and random hex words,
   4 MB each. `ctxmode.sandbox.budget.INDEX_GROWTH` must stay above every ratio.
2. `--flood`: `yes` under a 60 s timeout through a real `ctxmode serve` (official MCP
   client over stdio), with the default bound and with a bound twice as large: the peak
   and the final growth of the data root (files, and the unlinked spools the server's
   processes hold open, counted once each), and each as a ratio of its bound.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

MB = 1024 * 1024
TEXT_BYTES = 4 * MB


def lines(kind: str):
    pieces, size = [], 0
    while size < TEXT_BYTES:
        if kind == "y":
            line = "y\n"
        elif kind == "hex":
            line = " ".join(secrets.token_hex(6) for _ in range(8)) + "\n"
        else:
            line = (
                f"2026-12-06T20:{random.randint(0, 59):02d} INFO worker-{random.randint(1, 50)}"
                f" request id={secrets.token_hex(4)} took {random.randint(1, 900)} ms\n"
            )
        pieces.append(line)
        size += len(line)
        if len(pieces) >= 5_000:
            yield "".join(pieces)
            pieces = []
    yield "".join(pieces)


def index_growth(root: str) -> None:
    from ctxmode.sandbox.budget import INDEX_GROWTH, database_path
    from ctxmode.store.knowledge import KnowledgeBase

    for kind in ("log", "y", "hex"):
        project = os.path.join(root, kind)
        os.makedirs(project)
        with KnowledgeBase.open(project) as kb:
            db = database_path(kb.conn)

            def size(db: str = db) -> int:
                return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))

            before = size()
            kb.index_stream("bench", lines(kind), "plain")
            peak = size() - before
        after = size() - before
        print(
            f"index {kind:<4} peak {peak / TEXT_BYTES:4.2f} x text, after close"
            f" {after / TEXT_BYTES:4.2f} x text (INDEX_GROWTH {INDEX_GROWTH})"
        )


def data_bytes(root: Path) -> int:
    sizes: dict[tuple[int, int], int] = {}
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):
            found = path.stat()
            sizes[(found.st_dev, found.st_ino)] = found.st_size
    prefix = str(root) + "/"
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith(prefix) and target.endswith("(deleted)"):
                held = fd.stat()
                sizes[(held.st_dev, held.st_ino)] = held.st_size
    return sum(sizes.values())


def flood(root: str, bound: int) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    data = Path(root) / f"data-{bound // MB}"
    project = Path(root) / f"project-{bound // MB}"
    data.mkdir()
    project.mkdir()
    env = {**os.environ, "CTXMODE_DIR": str(data), "CTXMODE_CALL_DISK_CAP": str(bound)}
    env["CLAUDE_CONFIG_DIR"] = str(Path(root) / "no-user-settings")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=env, cwd=str(project)
    )
    peak, done = [0], threading.Event()

    async def main() -> str:
        async with Client(params, read_timeout_seconds=600) as client:
            before = data_bytes(data)

            def watch() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], data_bytes(data) - before)
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            started = time.monotonic()
            arguments = {"language": "shell", "code": "yes", "timeout": 60_000}
            result = await client.call_tool("ctx_execute", arguments)
            done.set()
            watcher.join()
            after = data_bytes(data) - before
            print(
                f"flood bound {bound / MB:6.1f} MB: peak {peak[0] / MB:6.1f} MB"
                f" ({peak[0] / bound:4.2f} of the bound), after {after / MB:6.1f} MB"
                f" ({after / bound:4.2f}), {time.monotonic() - started:5.1f} s"
            )
            return "\n".join(b.text for b in result.content if getattr(b, "text", None))

    text = asyncio.run(main())
    notes = [line for line in text.splitlines() if line.startswith("_(")]
    print("  reply notes:", " / ".join(notes))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood", action="store_true", help="also run `yes` through the server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxmode-bench-bound-") as root:
        os.environ["CTXMODE_DIR"] = os.path.join(root, "index-data")
        index_growth(root)
        if args.flood:
            from ctxmode import settings

            default = settings.integer(settings.CALL_DISK_CAP)
            for bound in (default, 2 * default):
                flood(root, bound)


if __name__ == "__main__":
    main()
