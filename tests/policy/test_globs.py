"""Glob matching for permission rules: Read path globs and `*`-only Bash patterns."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.policy import globs

CASE_INSENSITIVE = sys.platform in ("darwin", "win32")


def read_glob_matches(glob: str, path: str, project: str = "/project") -> bool:
    """As a Read deny rule matches: every compiled glob against every spelling of the path."""
    loose, anchored = globs.path_globs(glob, globs.roots(project))
    spellings = globs.candidates(path, project)
    return any(globs.path_glob_match(g, path) for g in loose + anchored for path in spellings)


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        (".env", ".env", True),
        (".env", "/project/.env", True),
        (".env", "./.env", True),
        (".env", "a/.env", False),
        ("**/.env*", ".env", True),
        ("**/.env*", "a/.env.local", True),
        ("**/.env*", "/elsewhere/deep/.env.prod", True),
        ("./secrets/**", "secrets/a/b.txt", True),
        ("./secrets/**", "/project/secrets/key", True),
        ("./secrets/**", "/other/secrets/key", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),
        ("src/?.py", "src/a.py", True),
        ("src/?.py", "src/ab.py", False),
        ("//etc/**", "/etc/passwd", True),
        ("/etc/passwd", "/etc/passwd", True),
        ("*.pem", "key.pem", True),
        ("data\\*.csv", "data/x.csv", True),  # backslashes are separators
    ],
)
def test_read_glob_grammar(glob: str, path: str, matches: bool) -> None:
    assert read_glob_matches(glob, path) is matches


def test_a_path_is_tried_as_written_absolute_and_real(tmp_path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    spellings = globs.candidates("link/x", str(tmp_path))
    assert spellings == [
        "link/x",
        globs.fold(str(tmp_path / "link" / "x")),
        globs.fold(str((tmp_path / "real").resolve() / "x")),
    ]


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("git push", "git push", True),
        ("git push", "git push origin", False),
        ("git *", "git push origin", True),
        ("*push*", "git push origin", True),
        ("a*b*c", "abc", True),
        ("a*b*c", "acb", False),
        ("ab*ba", "aba", False),  # the pieces may not overlap
        ("*", "", True),
    ],
)
def test_star_is_the_only_bash_wildcard(pattern: str, text: str, matches: bool) -> None:
    assert globs.star_match(pattern, text) is matches
    assert globs.star_match(pattern.replace("*", "?"), text) is (pattern.replace("*", "?") == text)


def test_fold_uses_forward_slashes_and_the_platforms_case() -> None:
    assert globs.fold("A\\b/C") == ("a/b/c" if CASE_INSENSITIVE else "A/b/C")


def glob_oracle(glob: str, path: str) -> bool:
    """The Read glob rules as a regular expression, to check the regex-free matcher."""
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif glob.startswith("**", i):
            out, i = out + ".*", i + 2
        elif glob[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif glob[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(glob[i]), i + 1
    return re.fullmatch(out, path, re.DOTALL) is not None


GLOB_SEGMENT = st.lists(st.sampled_from(["a", "b", "*", "**", "?", "a.b"]), min_size=1, max_size=3)
PATH_SEGMENT = st.sampled_from(["a", "b", "ab", "a.b", "ba"])


@settings(max_examples=400, deadline=None)
@given(st.lists(GLOB_SEGMENT, max_size=4), st.lists(PATH_SEGMENT, max_size=5))
def test_read_globs_agree_with_a_regex_model(
    glob_segments: list[list[str]], path_segments: list[str]
) -> None:
    glob = "/zz-nonexistent/" + "/".join("".join(segment) for segment in glob_segments)
    path = "/zz-nonexistent/" + "/".join(path_segments)
    assert globs.path_glob_match(globs.tokenize(glob), path) is glob_oracle(glob, path)
    assert read_glob_matches("/" + glob, path) is glob_oracle(glob, path)
