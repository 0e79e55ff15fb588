"""Project-boundary containment: real paths, symlinks and `..` are resolved before judging."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxmode.policy.containment import PathOutsideProject, is_within, resolve_within


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x")
    (tmp_path / "outside.txt").write_text("secret")
    return project


def test_relative_path_resolves_against_the_project(root: Path) -> None:
    assert resolve_within(str(root), "src/a.py") == os.path.realpath(root / "src" / "a.py")


def test_the_root_itself_is_inside(root: Path) -> None:
    assert resolve_within(str(root), ".") == os.path.realpath(root)


def test_missing_files_inside_are_allowed(root: Path) -> None:
    assert resolve_within(str(root), "new/file.txt").endswith("file.txt")


def test_dotdot_escape_is_refused_with_an_allow_rule_hint(root: Path) -> None:
    with pytest.raises(PathOutsideProject) as caught:
        resolve_within(str(root), "src/../../outside.txt")
    message = str(caught.value)
    assert "outside the project" in message
    assert "Read(/" in message and "permissions.allow" in message
    assert caught.value.resolved == os.path.realpath(root.parent / "outside.txt")


def test_absolute_path_outside_is_refused(root: Path) -> None:
    with pytest.raises(PathOutsideProject):
        resolve_within(str(root), str(root.parent / "outside.txt"))


def test_sibling_with_a_common_prefix_is_outside(root: Path) -> None:
    sibling = root.parent / "project-other"
    sibling.mkdir()
    with pytest.raises(PathOutsideProject):
        resolve_within(str(root), str(sibling / "x"))


def test_symlink_pointing_outside_is_refused(root: Path) -> None:
    (root / "link").symlink_to(root.parent / "outside.txt")
    with pytest.raises(PathOutsideProject):
        resolve_within(str(root), "link")


def test_symlinked_directory_pointing_outside_is_refused(root: Path) -> None:
    (root / "dirlink").symlink_to(root.parent)
    with pytest.raises(PathOutsideProject):
        resolve_within(str(root), "dirlink/outside.txt")


def test_symlink_staying_inside_is_allowed(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "src" / "a.py")
    assert resolve_within(str(root), "alias.py") == os.path.realpath(root / "src" / "a.py")


def test_project_reached_through_a_symlink(root: Path, tmp_path: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(root)
    assert resolve_within(str(via), str(via / "src" / "a.py")) == os.path.realpath(
        root / "src" / "a.py"
    )


def test_tilde_is_expanded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(root))
    assert resolve_within(str(root), "~/src/a.py") == os.path.realpath(root / "src" / "a.py")


def test_nul_byte_is_a_clear_error(root: Path) -> None:
    with pytest.raises(ValueError, match="NUL"):
        resolve_within(str(root), "a\0b")


@pytest.mark.skipif(sys.platform not in ("darwin", "win32"), reason="case-insensitive hosts")
def test_case_is_ignored_where_the_file_system_ignores_it(root: Path) -> None:
    assert is_within(str(root).upper(), str(root / "src"))


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="case-sensitive hosts")
def test_case_matters_where_the_file_system_cares(root: Path) -> None:
    assert not is_within(str(root).upper(), str(root / "src"))


SEGMENT = st.sampled_from(["..", ".", "src", "a.py", "x", "link", "up", "", "project"])


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(SEGMENT, max_size=8), st.booleans())
def test_random_paths_are_inside_exactly_when_their_real_path_is(
    root: Path, segments: list[str], absolute: bool
) -> None:
    if not (root / "up").exists():
        (root / "up").symlink_to(root.parent)
        (root / "src" / "link").symlink_to(root / "src")
    real_root = Path(os.path.realpath(root))
    links = {real_root / "up": real_root.parent, real_root / "src" / "link": real_root / "src"}
    current = real_root
    for segment in segments:  # an independent model of realpath over this small tree
        if segment == "..":
            current = current.parent
        elif segment not in ("", "."):
            current = links.get(current / segment, current / segment)
    inside = current == real_root or real_root in current.parents
    joined = "/".join(segments)
    candidate = f"{root}/{joined}" if absolute else f"./{joined}"
    try:
        resolved = resolve_within(str(root), candidate)
    except PathOutsideProject as error:
        assert not inside, candidate
        assert error.resolved == str(current)
    else:
        assert inside, candidate
        assert resolved == str(current)
