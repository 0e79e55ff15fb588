"""Running the real `ctxmode` command line in a child process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CTXMODE = [sys.executable, "-m", "ctxmode"]


def ctx(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`ctxmode ARGS...` in `cwd`; the completed process (never raises on exit codes)."""
    return subprocess.run(
        [*CTXMODE, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
