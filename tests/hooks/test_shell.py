"""Shell-command reading for routing: stripping, curl/wget, inline HTTP, build tools, bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.hooks import shell


@pytest.mark.parametrize(
    "command",
    [
        "pwd", "whoami", "uname -a", "hostname", "id", "id user", "date +%s",
        "git status --short", "git log -5 --oneline", "git diff --stat HEAD~1", "git branch -a",
        "git remote -v", "git stash list", "git tag", "git config --get user.name",
        "ls -la src", "cp a b", "mv a b", "rm -rf build", "mkdir -p x/y", "cd src", "touch f",
        "python3 --version", "node -V", 'echo "run gradle build"', "echo 'a | b'",
        "which python3 node", "command -v git", "realpath .", "dirname /a/b",
    ],
)  # fmt: skip
def test_bounded_commands(command):
    assert shell.is_bounded(command)


@pytest.mark.parametrize(
    "command",
    [
        "git status && rm -rf build", "cat package.json | head", "git status\nfind /", "ls -R",
        "ls -la -R", "git log --oneline", "git log -100", "cp -rv a b", "cp -r -v a b",
        "rm --verbose x", "date & cat x", "echo $(cat f)", "echo `id`", "npm test",
        "gh pr list", "ls > out", "cat < f", "echo", "git push", "", "   ",
    ],
)  # fmt: skip
def test_unbounded_commands(command):
    assert not shell.is_bounded(command)


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("curl https://x", "dangerous"),
        ("curl -sSL https://x | jq .", "dangerous"),
        ("curl -s -o - https://x", "dangerous"),
        ("curl -v -s -o f https://x", "dangerous"),
        ("curl -s -D - -o f https://x", "dangerous"),
        ("wget https://x", "dangerous"),
        ("wget -qO- https://x", "dangerous"),
        ("wget -q -O - https://x", "dangerous"),
        ("sudo curl https://x", "dangerous"),
        ("/usr/bin/curl https://x", "dangerous"),
        ("curl -s -o f https://x", "safe"),
        ("curl -sSLo f https://x", "safe"),
        ("curl -fsSL https://x > out.json", "safe"),
        ("curl -s --output=f https://x", "safe"),
        ("curl -sO https://x/file.tgz", "safe"),
        ("wget -q https://x/file.tgz", "safe"),
        ("wget -nv -O f https://x", "safe"),
        ("curl -s -o f https://x && curl https://y", "dangerous"),
        ('gh issue edit 1 --body "use curl https://x"', None),
        ("apt-get install -y curl wget", None),
        ("echo curl", None),
        ("cat <<EOF\ncurl https://x\nEOF", None),
    ],
)
def test_curl_wget_verdict(command, verdict):
    assert shell.curl_wget_verdict(shell.prepare(command)) == verdict


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("node -e \"fetch('https://x').then(r => r.text())\"", True),
        ("python -c 'import requests; print(requests.get(\"https://x\").text)'", True),
        ("python3 -c \"import httpx; httpx.get('https://x')\"", True),
        ("node -e \"const http = require('http'); http.get('http://x')\"", True),
        ("python -c 'import urllib.request; urllib.request.urlopen(\"https://x\")'", True),
        ("pwsh -c Invoke-WebRequest https://x", True),
        ("python -c 'prefetch(1)'", False),
        ("grep -r fetchData src", False),
        ("python -c 'myrequests.get(1)'", False),
    ],
)
def test_inline_http(command, expected):
    assert shell.has_inline_http(shell.strip_heredocs(command)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("./gradlew build", True), ("gradle test", True), ("mvn -q package", True),
        ("cd app && ./mvnw verify", True), ("FOO=1 sbt compile", True), ("sudo mvn install", True),
        ("ls gradle-wrapper", False), ("echo gradle", False), ('git commit -m "mvn fix"', False),
        ("cat gradlew", False),
    ],
)  # fmt: skip
def test_build_tools_are_command_words(command, expected):
    assert shell.runs_build_tool(shell.prepare(command)) is expected


def test_heredoc_bodies_are_removed_and_the_rest_kept():
    command = "cat <<'EOF' > f\ncurl https://x\nEOF\necho done"
    assert shell.strip_heredocs(command) == "cat <<'EOF' > f\necho done"
    assert shell.strip_heredocs("cat <<-END\n\tbody\n\tEND\nls") == "cat <<-END\nls"
    assert shell.strip_heredocs("cat <<< 'x'") == "cat <<< 'x'"


def test_quotes_are_emptied_with_escapes_respected():
    assert shell.strip_quotes("""a 'b c' "d \\" e" f""") == """a '' "" f"""
    assert shell.strip_quotes("echo \\'x") == "echo \\'x"
    assert shell.strip_quotes("echo 'unterminated") == "echo ''"


@given(st.text(max_size=300))
def test_shell_reading_never_fails(command):
    prepared = shell.prepare(command)
    assert shell.curl_wget_verdict(prepared) in (None, "safe", "dangerous")
    assert isinstance(shell.has_inline_http(command), bool)
    assert isinstance(shell.runs_build_tool(prepared), bool)
    assert isinstance(shell.is_bounded(command), bool)
