"""The package root holds entry points and foundations only; every other noun has a package.

A new module at the root fails here: put it in the package of its noun (CONTRIBUTING.md
maps each noun to its module), or add it below with the reason it must sit at the root.
"""

from __future__ import annotations

from pathlib import Path

import ctxmode

PACKAGE = Path(ctxmode.__file__).parent

ENTRY_POINTS = {
    "__main__.py": "python -m ctxmode",
    "_entry.py": "the `ctxmode` console script",
    "_hook.py": "the fast hook form, named by import path in hosts' installed configs",
    "_modcache.py": "the hook process's module cache, loaded before any other module of ours",
    "_bridge.py": "the plugin shims' long-lived child, named by import path once installed",
    "_wrap.py": "the `ctxmode-wrap` console script and its fast form in rewritten commands",
    "cli.py": "the click command line",
}
FOUNDATIONS = {
    "__init__.py": "the version",
    "errors.py": "the one exception base and exit codes",
    "failures.py": "what a user is told about an exception, at both edges",
    "paths.py": "where files live",
    "settings.py": "every CTXMODE_* setting",
    "fastjson.py": "JSON on the hook path",
    "stats.py": "what was kept out of context",
}


def test_the_root_holds_only_entry_points_and_foundations() -> None:
    root_modules = {path.name for path in PACKAGE.glob("*.py")}
    assert root_modules == set(ENTRY_POINTS) | set(FOUNDATIONS)


def test_tests_mirror_the_packages() -> None:
    """Each package of ours has its tests in the same place under tests/."""
    tests = Path(__file__).parent
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    packages -= {"plugins"}  # JS package data: its tests drive the real hosts
    missing = sorted(name for name in packages if not (tests / name).is_dir())
    assert not missing
