"""Which commands run through the wrapper: the rewrite rules as a table."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.hooks.bulky import directory_after, split_leading_cd, user_commands, wrap_reason

WRAPPED = [
    "pytest -x tests",
    "python3 -m pytest -q",
    "FOO=1 pytest",
    "npm test",
    "npm run test:unit",
    "yarn test --watch=false",
    "pnpm build",
    "bun test",
    "npx jest --ci",
    "go test ./...",
    "cargo test --all",
    "dotnet test",
    "make",
    "make check",
    "./gradlew build",
    "mvn -q package",
    "tsc --noEmit",
    "cat big.log",
    "less big.log",
    "head -n 500 big.log",
    "tail -n 2000 big.log",
    "tail -n +1 big.log",
    "cat big.log | grep ERROR",
    "git log",
    "git log --oneline",
    "git diff",
    "git diff HEAD~3",
    "git show HEAD",
    "git grep TODO",
    "find . -name '*.py'",
    "grep -rn TODO .",
    "grep -R TODO src",
    "rg TODO",
    "tree",
    "ls -R",
    "docker logs web",
    "docker compose logs",
    "kubectl logs pod/x --tail 5000",
    "journalctl -u nginx",
    "sudo journalctl -b",
    "dmesg",
    "pytest 2>&1 | grep FAIL",
    "git log | head -n 1000",
    "echo start; pytest",
    # The whole text runs in the wrapper's shell, so its own variables still apply.
    "export CI=1; npm test",
    "source venv/bin/activate && pytest",
    "timeout 600 pytest -x",
    'grep -rn "two words" src',
]

LEFT_ALONE = [
    "ls",
    "ls -la src",
    "git status",
    "git log -n 5",
    "git log -20 --oneline",
    "git diff --stat",
    "git show --stat HEAD",
    "cat small.txt",
    "cat missing.txt",
    "head big.log",
    "head -n 20 big.log",
    "tail -f big.log",
    "grep TODO file.py",
    "grep -rl TODO .",
    "grep -rc TODO .",
    "find . -maxdepth 1",
    "docker logs --tail 50 web",
    "docker logs -f web",
    "journalctl -n 20",
    "journalctl -f",
    "echo hello",
    "mkdir -p build",
    "cd sub; pytest",
    "cd sub && ls",
    "pushd sub && make; popd",
    "X=1",
    "pytest &",
    "pytest > out.txt",
    "pytest >> out.txt 2>&1",
    "pytest 2>&1 | tail -20",
    "git log | head -5",
    "git log | wc -l",
    "vim big.log",
    "watch make",
    "python script.py",
    "node scripts/report.js",
    "",
    "/venv/bin/python -I -S -c \"...from ctxmode._wrap import main...\" claude-code /p 'pytest'",
]


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    (tmp_path / "big.log").write_text("line of log output\n" * 5000)
    (tmp_path / "small.txt").write_text("small\n")
    return str(tmp_path)


@pytest.mark.parametrize("command", WRAPPED)
def test_likely_bulky_commands_are_wrapped(command: str, cwd: str) -> None:
    assert wrap_reason(command, cwd, user=[]) is not None


@pytest.mark.parametrize("command", LEFT_ALONE)
def test_short_interactive_and_state_changing_commands_are_left_alone(
    command: str, cwd: str
) -> None:
    assert wrap_reason(command, cwd, user=[]) is None


def test_commands_listed_in_the_setting_are_wrapped(cwd: str) -> None:
    listed = user_commands(" ./ci.sh , terraform  output ,")
    assert listed == [["./ci.sh"], ["terraform", "output"]]
    assert wrap_reason("./ci.sh --fast", cwd, listed) == "listed in CTXMODE_WRAP_COMMANDS"
    assert wrap_reason("terraform output -json", cwd, listed) is not None
    assert wrap_reason("terraform fmt", cwd, listed) is None


def test_the_setting_is_read_from_the_environment(
    cwd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMODE_WRAP_COMMANDS", "./ci.sh")
    assert wrap_reason("./ci.sh", cwd) is not None


@settings(max_examples=200)
@given(st.text(max_size=80))
def test_any_text_gets_an_answer(text: str) -> None:
    reason = wrap_reason(text, "/nonexistent")
    assert reason is None or isinstance(reason, str)


@pytest.mark.parametrize(
    ("command", "cd_part", "rest"),
    [
        ("cd sub && pytest", "cd sub && ", "pytest"),
        ("cd /abs/dir&&npm test", "cd /abs/dir&&", "npm test"),
        ("cd a && pushd b && cargo test -q", "cd a && pushd b && ", "cargo test -q"),
        ("  cd ~/proj && make", "  cd ~/proj && ", "make"),
        ("cd sub; pytest", "", "cd sub; pytest"),  # not a chain: the cd could fail unseen
        ('cd "my dir" && pytest', "", 'cd "my dir" && pytest'),  # quoted: left to the shell
        ("cd $DIR && pytest", "", "cd $DIR && pytest"),
        ("cd sub && ", "", "cd sub && "),
        ("pytest && cd sub", "", "pytest && cd sub"),
    ],
)
def test_a_leading_cd_chain_stays_outside_the_wrapper(command: str, cd_part: str, rest: str):
    assert split_leading_cd(command) == (cd_part, rest)


def test_the_rest_after_a_leading_cd_is_judged_in_the_directory_it_moves_to(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "big.log").write_text("line\n" * 5000)
    cd_part, rest = split_leading_cd("cd sub && cat big.log")
    assert wrap_reason(rest, directory_after(cd_part, str(tmp_path)), user=[]) is not None
    assert wrap_reason(rest, str(tmp_path), user=[]) is None  # no big.log up here
