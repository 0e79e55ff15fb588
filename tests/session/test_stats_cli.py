"""`ctxmode stats` shows the session section after a compaction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def hook(event: str, payload: dict, root: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "ctxmode", "hook", "claude-code", event],
        input=json.dumps({"session_id": "st", "cwd": str(root), **payload}).encode(),
        capture_output=True, env=dict(os.environ), cwd=root, timeout=60, check=True,
    )  # fmt: skip


def test_stats_reports_events_compactions_and_injected_bytes(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    hook("userpromptsubmit", {"prompt": "Always run ruff before committing."}, tmp_path)
    hook("precompact", {"trigger": "auto"}, tmp_path)
    hook("sessionstart", {"source": "compact"}, tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ctxmode", "stats", "--project", str(tmp_path)],
        capture_output=True, text=True, env=dict(os.environ), timeout=60, check=True,
    )  # fmt: skip
    assert "Sessions (this project)" in done.stdout
    assert "compactions: 1" in done.stdout and "guides injected: 1" in done.stdout
    assert "decision 1" in done.stdout and "prompt 1" in done.stdout
