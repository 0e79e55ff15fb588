"""The hook's module cache, on real hook processes over a copy of the package: it answers
as the sources do, follows a changed source at once, and anything wrong with its file (or
no place to write one) costs time, never an answer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import ctxmode

PACKAGE = Path(ctxmode.__file__).parent
FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
GREP = {"session_id": "s", "cwd": "/p", "tool_name": "Grep", "tool_input": {"pattern": "x"}}
NUDGE = "Search results can be larger than expected."


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """A copy of the package, without compiled files: its cache and its sources are ours."""
    shutil.copytree(
        PACKAGE, tmp_path / "src" / "ctxmode", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path / "src"


class Hooks:
    """Runs `ctxmode hook claude-code <event>` from one copy, each call on a new data root."""

    def __init__(self, src: Path, work: Path) -> None:
        self.src, self.work, self.calls = src, work, 0

    def __call__(
        self, event: str, payload: bytes | dict, cache: str = "on", importtime: bool = False
    ) -> subprocess.CompletedProcess[bytes]:
        self.calls += 1
        code = (
            f"import sys;sys.path.insert(0,{str(self.src)!r});"
            "from ctxmode._hook import main;main(sys.argv[1:])"
        )
        env = {
            **os.environ,
            "CTXMODE_DIR": str(self.work / f"data-{self.calls}"),
            "CLAUDE_CONFIG_DIR": str(self.work / "claude-config"),
            "CTXMODE_MCP_READY": "1",
            "CTXMODE_HOOK_MODULE_CACHE": cache,
        }
        flags = ["-X", "importtime"] if importtime else []
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return subprocess.run(
            [sys.executable, *flags, "-I", "-S", "-c", code, "claude-code", event],
            input=data, capture_output=True, env=env, timeout=60, check=False,
        )  # fmt: skip

    def cache_file(self, event: str) -> Path:
        name = f"hook-claude-code-{event}.{sys.implementation.cache_tag}.modules"
        return self.src / "ctxmode" / "__pycache__" / name

    def errors(self) -> str:
        logs = self.work.glob("data-*/logs/hook-errors.log")
        return "".join(path.read_text() for path in logs)


@pytest.fixture
def hook(src: Path, tmp_path: Path) -> Hooks:
    return Hooks(src, tmp_path)


def answer(done: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
    return done.returncode, done.stdout, done.stderr


def imported(done: subprocess.CompletedProcess[bytes]) -> set[str]:
    rows = done.stderr.decode().splitlines()
    return {row.rsplit("|", 1)[-1].strip() for row in rows if row.startswith("import time:")}


def recorded() -> list[tuple[str, bytes]]:
    """Claude Code's recorded payloads: each tool's PreToolUse, a PostToolUse, a start."""
    return [
        (path.stem.split("-")[0], path.read_bytes())
        for path in sorted(FIXTURES.glob("*.json"))
        if path.stem.split("-")[0] in ("pretooluse", "posttooluse", "sessionstart")
    ]


def test_every_recorded_call_answers_from_the_cache_as_from_the_sources(hook):
    for event, payload in recorded():
        expected = answer(hook(event, payload, cache="off"))
        assert answer(hook(event, payload)) == expected  # loads from sources, writes the file
        assert answer(hook(event, payload)) == expected  # runs from the file
    assert hook.cache_file("pretooluse").is_file()
    assert hook.errors() == ""


def test_a_cached_module_runs_without_the_import_system(hook):
    hook("pretooluse", GREP)
    warm = imported(hook("pretooluse", GREP, importtime=True))
    cold = imported(hook("pretooluse", GREP, cache="off", importtime=True))
    assert {"ctxmode.hooks.runner", "ctxmode.hooks.routing", "__future__"} <= cold
    assert not warm & {"ctxmode.hooks.runner", "ctxmode.hooks.routing", "__future__"}


def test_a_changed_source_is_run_at_once_and_cached_again(hook, src):
    assert NUDGE.encode() in hook("pretooluse", GREP).stdout
    cached = hook.cache_file("pretooluse").read_bytes()
    guidance = src / "ctxmode" / "hooks" / "guidance.py"
    guidance.write_text(guidance.read_text().replace(NUDGE, "Searches print more than you think."))
    assert b"Searches print more than you think." in hook("pretooluse", GREP).stdout
    assert hook.cache_file("pretooluse").read_bytes() != cached
    assert b"Searches print more than you think." in hook("pretooluse", GREP).stdout


def test_a_module_that_fails_to_load_fails_as_it_does_from_its_source(hook, src):
    hook("pretooluse", GREP)
    guidance = src / "ctxmode" / "hooks" / "guidance.py"
    guidance.write_text(guidance.read_text() + "\nraise RuntimeError('broken on purpose')\n")
    assert answer(hook("pretooluse", GREP)) == answer(hook("pretooluse", GREP, cache="off"))
    assert hook.errors().count("RuntimeError: broken on purpose") == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: b"\x00\xff not a cache \xfe" * 100,
        lambda data: data[: len(data) // 2],
        lambda data: data[:4] + b"\xff" * 64 + data[68:],
    ],
    ids=["empty", "garbage", "truncated", "bad index"],
)
def test_a_damaged_file_is_ignored_then_written_anew(hook, damage):
    expected = answer(hook("pretooluse", GREP, cache="off"))
    hook("pretooluse", GREP)
    path = hook.cache_file("pretooluse")
    path.write_bytes(damage(path.read_bytes()))
    assert answer(hook("pretooluse", GREP)) == expected
    assert answer(hook("pretooluse", GREP)) == expected
    assert "ctxmode.hooks.runner" not in imported(hook("pretooluse", GREP, importtime=True))


def test_the_file_of_another_copy_of_the_package_is_not_run(hook, src, tmp_path):
    other = Hooks(tmp_path / "other", tmp_path / "other-work")
    shutil.copytree(src, other.src)
    guidance = other.src / "ctxmode" / "hooks" / "guidance.py"
    guidance.write_text(guidance.read_text().replace(NUDGE, "The other copy speaks."))
    assert b"The other copy speaks." in other("pretooluse", GREP).stdout
    hook.cache_file("pretooluse").parent.mkdir(exist_ok=True)
    shutil.copy(other.cache_file("pretooluse"), hook.cache_file("pretooluse"))
    assert NUDGE.encode() in hook("pretooluse", GREP).stdout


def test_where_nothing_can_be_written_every_call_answers_from_the_sources(hook, src):
    (src / "ctxmode" / "__pycache__").write_text("a file where the folder would be")
    expected = answer(hook("pretooluse", GREP, cache="off"))
    for _ in range(2):
        assert answer(hook("pretooluse", GREP)) == expected
    assert hook.errors() == ""


def test_switched_off_it_neither_reads_nor_writes_the_file(hook):
    hook("pretooluse", GREP, cache="off")
    assert not hook.cache_file("pretooluse").exists()
    hook("pretooluse", GREP)
    assert "ctxmode.hooks.runner" in imported(
        hook("pretooluse", GREP, cache="off", importtime=True)
    )


def test_calls_racing_to_write_it_leave_one_whole_file(hook):
    expected = answer(hook("pretooluse", GREP, cache="off"))
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: answer(hook("pretooluse", GREP)), range(8)))
    assert answers == [expected] * 8
    assert answer(hook("pretooluse", GREP)) == expected
    assert "ctxmode.hooks.runner" not in imported(hook("pretooluse", GREP, importtime=True))
    assert not list(hook.cache_file("pretooluse").parent.glob("*.tmp"))


# Every module of the package, first in its process: from a cache holding them all, its
# import runs the same code in the same order (a package before its modules) as from the
# sources. `__main__` runs the command line when imported.
BUILD = """
import importlib, json, pkgutil, sys
from ctxmode._modcache import ModuleCache
cache = ModuleCache(sys.argv[1])
cache.install()
import ctxmode
names = [m.name for m in pkgutil.walk_packages(ctxmode.__path__, "ctxmode.")]
names = [name for name in names if name != "ctxmode.__main__"]
for name in names:
    importlib.import_module(name)
cache.save()
print(json.dumps(names))
"""
DESCRIBE = """
import importlib, json, sys
from ctxmode._modcache import ModuleCache
if sys.argv[1] != "-":
    ModuleCache(sys.argv[1]).install()
found = {}
for name in sys.argv[2:]:
    module = importlib.import_module(name)
    parent, _, child = name.rpartition(".")
    found[name] = {
        "names": sorted(  # the module's own, not the modules of a package imported so far
            key for key, value in vars(module).items()
            if not key.startswith("__") and getattr(value, "__name__", "") != f"{name}.{key}"
        ),
        "file": module.__file__, "package": module.__package__,
        "path": list(getattr(module, "__path__", [])), "spec": module.__spec__.name,
        "bound": getattr(sys.modules[parent], child) is module,
    }
print(json.dumps(found))
"""


def python(code: str, *args: str) -> str:
    env = {**os.environ, "CTXMODE_HOOK_MODULE_CACHE": "off"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_each_module_imported_first_from_a_full_cache_is_the_module_its_source_makes(tmp_path):
    path = str(tmp_path / "everything.modules")
    names = json.loads(python(BUILD, path))
    assert len(names) > 100
    expected = json.loads(python(DESCRIBE, "-", *names))
    with ThreadPoolExecutor(4) as pool:
        found = pool.map(lambda name: json.loads(python(DESCRIBE, path, name)), names)
        for name, described in zip(names, found, strict=True):
            assert described == {name: expected[name]}, name
