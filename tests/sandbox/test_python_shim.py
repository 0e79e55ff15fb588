import os
import sys

from ctxmode.sandbox import runtimes


def test_a_version_manager_shim_is_resolved_to_the_interpreter_it_runs(tmp_path, monkeypatch):
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    runtime = runtimes.probe("python")
    assert runtime is not None
    assert os.path.samefile(runtime.binary, sys.executable)


def test_a_plain_interpreter_is_used_as_found(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    runtime = runtimes.probe("python")
    assert runtime is not None and runtime.binary == str(bin_dir / "python3")
