"""The second hardening round, held by the real `ctxmode serve` over MCP: rules matched on
a command's meaning, programs named at run time, and one bound on what a call may write."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

from .test_execute_tools import settings_env, write_project_settings  # noqa: F401


def test_rules_hold_for_every_spelling_and_for_names_built_at_run_time(mcp_run, settings_env):  # noqa: F811
    project: Path = mcp_run.project
    write_project_settings(project, {"deny": ["Bash(rm -rf *)"], "ask": ["Bash(git push:*)"]})
    victim = project / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("still here\n")
    built = "import os\nrun = getattr(os, 'sys' + 'tem')\nrun('rm -' + 'fr victim')"

    async def scenario(session):
        calls = {
            "fr": ("ctx_execute", {"language": "shell", "code": "rm -fr victim"}),
            "long": ("ctx_execute", {"language": "shell", "code": "rm --force -R victim"}),
            "batch": ("ctx_batch_execute", {"commands": ["echo x; rm -r -f victim"]}),
            "push": ("ctx_execute", {"language": "shell", "code": "git -C . --no-pager push"}),
            "built": ("ctx_execute", {"language": "python", "code": built}),
            "fine": ("ctx_execute", {"language": "shell", "code": "rm -r victim/none || echo ok"}),
        }
        return {name: await session.call(tool, **args) for name, (tool, args) in calls.items()}

    replies = mcp_run(scenario, env=settings_env)
    for name in ("fr", "long", "batch"):
        text, is_error = replies[name]
        assert is_error and "Bash(rm -rf *)" in text, (name, text)
    text, is_error = replies["push"]
    assert is_error and "Not run" in text and "git push" in text, text
    text, is_error = replies["built"]
    assert is_error and "Not run" in text and "only at run time" in text, text
    assert "'sys' + 'tem'" in text  # the reason names what was built
    text, is_error = replies["fine"]
    assert "ok" in text and "Blocked" not in text, text
    assert (victim / "keep.txt").read_text() == "still here\n"


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                children = [int(c) for c in (task / "children").read_text().split()]
                found += children
                todo += children
    return found


def _data_bytes(root: Path) -> int:
    """Bytes under `root`, with the unlinked files our processes hold open there (spools)."""
    sizes: dict[tuple[int, int], int] = {}
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):  # a file removed while we walk
            found = path.stat()
            sizes[(found.st_dev, found.st_ino)] = found.st_size
    prefix = str(root) + "/"
    for pid in _descendants(os.getpid()):  # the server, its reaper and the command share fds
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd).startswith(prefix) and os.readlink(fd).endswith("(deleted)"):
                        held = fd.stat()
                        sizes[(held.st_dev, held.st_ino)] = held.st_size
    return sum(sizes.values())


def test_one_call_adds_at_most_the_bound_to_the_data_root(
    mcp_run,
    settings_env,  # noqa: F811
    data_root: Path,
) -> None:
    cap = 100 * 1024 * 1024  # the default bound
    env = {**settings_env}
    peak, done = [0], threading.Event()

    async def scenario(session):
        before = _data_bytes(data_root)

        def watch() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _data_bytes(data_root) - before)
                time.sleep(0.02)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            # `yes` under a 60 s timeout: printing without end until the bound stops it.
            reply = await session.call("ctx_execute", language="shell", code="yes", timeout=60000)
        finally:
            done.set()
            watcher.join()
        return reply, _data_bytes(data_root) - before

    (text, is_error), after = mcp_run(scenario, env=env)
    assert is_error and "output capped at 50.0 MB" in text and "killed" in text, text[-500:]
    assert peak[0] <= cap and after <= cap, (peak[0], after)
    assert "indexing stopped after the first" in text  # the bound reached, and said
    assert "ctx_search" in text  # what fits is indexed
