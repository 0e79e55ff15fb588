"""The package's import rules, read statically from every module's import statements
(at any depth: function-level and TYPE_CHECKING imports count too).

- the hook core (`hooks/`) never imports a host module (`platforms/`): hosts import it;
- the MCP server (`server/`) never imports the hook engine (`hooks/`);
- the shared vocabulary (`vocab/`) imports nothing of ours outside itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ctxmode

PACKAGE = Path(ctxmode.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, as a dotted name (`from a import b` gives a and a.b)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def ours_imported_by(package: str) -> dict[str, set[str]]:
    """For each module of `ctxmode.<package>`, the `ctxmode` modules it imports."""
    return {
        str(path.relative_to(PACKAGE)): {
            name for name in imported_modules(path) if name.split(".")[0] == "ctxmode"
        }
        for path in sorted((PACKAGE / package).rglob("*.py"))
    }


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def breaking(package: str, forbidden: str) -> dict[str, list[str]]:
    return {
        module: sorted(name for name in names if within(name, forbidden))
        for module, names in ours_imported_by(package).items()
        if any(within(name, forbidden) for name in names)
    }


def test_the_scan_sees_imports_at_any_depth():
    # platforms/codex imports vocab.platform at the top; _hook.py imports inside a function
    assert "ctxmode.vocab.platform" in imported_modules(PACKAGE / "platforms" / "codex.py")
    assert "ctxmode.platforms" in imported_modules(PACKAGE / "_hook.py")
    assert breaking("platforms", "ctxmode.hooks")  # hosts may import the hook core


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("hooks", "ctxmode.platforms"), ("server", "ctxmode.hooks")],
)
def test_a_package_does_not_import_the_one_above_it(package, forbidden):
    assert breaking(package, forbidden) == {}


def test_the_vocabulary_imports_nothing_of_ours_but_itself():
    outside = {
        module: sorted(name for name in names if not within(name, "ctxmode.vocab"))
        for module, names in ours_imported_by("vocab").items()
    }
    assert {module: names for module, names in outside.items() if names} == {}
