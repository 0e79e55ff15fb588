"""Shell-command reading for routing: stripping, curl/wget, inline HTTP, build tools, bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.hooks import shell
from ctxmode.policy.shell import scan, without_heredocs


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
        # wrappers and groupings routing used to miss
        ("sudo -u bob curl https://x", "dangerous"),
        ("nice -n 5 curl https://x", "dangerous"),
        ("timeout 5 wget -O- https://x", "dangerous"),
        ("stdbuf -o0 curl https://x", "dangerous"),
        ("watch -n 5 curl https://x", "dangerous"),
        ("eval 'curl https://x'", "dangerous"),
        ("echo https://x | xargs curl -s", "dangerous"),
        ("find . -name '*.url' -exec curl {} \\;", "dangerous"),
        ("{ curl https://x; }", "dangerous"),
        ("busybox wget -O- https://x", "dangerous"),
        ("bash -c 'curl https://x'", "dangerous"),
        ("curl -s https://x 2>/dev/null", "dangerous"),
        ("curl -s -o f https://x", "safe"),
        ("curl -sSLo f https://x", "safe"),
        ("curl -fsSL https://x > out.json", "safe"),
        ("curl -s --output=f https://x", "safe"),
        ("curl -sO https://x/file.tgz", "safe"),
        ("wget -q https://x/file.tgz", "safe"),
        ("wget -nv -O f https://x", "safe"),
        ("curl -s -o f https://x && curl https://y", "dangerous"),
        # The response followed wherever it is printed.
        ("curl -sS -o page.html https://x; cat page.html", "dangerous"),
        ("curl -sSo /tmp/p.json https://x && jq . /tmp/p.json", "dangerous"),
        ("curl -sS -o out https://x && head -c 100000 < out", "dangerous"),
        ("curl -sSO https://x/data.csv && cat data.csv", "dangerous"),
        ("curl -s https://x > page.html; less page.html", "dangerous"),
        ("wget -q https://x/notes.txt && cat notes.txt", "dangerous"),
        ("wget -q https://x/ && cat index.html", "dangerous"),
        ("curl -s -o /dev/fd/1 https://x", "dangerous"),
        ("curl -s -o /dev/stdout https://x", "dangerous"),
        ("curl -s --output /dev/tty https://x", "dangerous"),
        ("curl -s https://x > /dev/tty", "dangerous"),
        ("wget -q -O /dev/stdout https://x", "dangerous"),
        ("echo https://x | xargs curl", "dangerous"),
        ("cat urls.txt | xargs -n1 wget", "dangerous"),
        ("http https://x", "dangerous"),
        ("https GET x/api", "dangerous"),
        ("xh https://x", "dangerous"),
        ("aria2c https://x/f.iso", "dangerous"),
        ("lynx -dump https://x", "dangerous"),
        ("w3m https://x", "dangerous"),
        ("printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc example.com 80", "dangerous"),
        ("openssl s_client -connect x:443", "dangerous"),
        ("exec 3<>/dev/tcp/x/80; printf 'GET /\\n' >&3; cat <&3", "dangerous"),
        ("cat < /dev/tcp/x/80", "dangerous"),
        # A download to a file that is not printed stays allowed.
        ("curl -sS -o page.html https://x && wc -c page.html", "safe"),
        ("curl -sS -o page.html https://x; cat other.txt", "safe"),
        ("curl -sSo p.json https://x && jq .n p.json > n.txt", "safe"),
        ("http --download -q https://x/f.tgz", "safe"),
        ("aria2c -q https://x/f.iso", "safe"),
        ("nc -z host 80", "safe"),
        ("cat page.html", None),
        ('gh issue edit 1 --body "use curl https://x"', None),
        ("apt-get install -y curl wget", None),
        ("echo curl", None),
        ("cat <<EOF\ncurl https://x\nEOF", None),
    ],
)
def test_curl_wget_verdict(command, verdict):
    assert shell.curl_wget_verdict(scan(command)) == verdict


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
    assert shell.has_inline_http(without_heredocs(command, scan(command))) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python3 -c 'from urllib.request import urlopen as u; print(u(\"https://x\").read())'", True),
        ("python3 -c 'import http.client as h; c = h.HTTPSConnection(\"x\"); c.request(\"GET\", \"/\")'", True),
        ("python -c 'import requests as r; print(r.get(u).text)'", True),
        ("node -e 'fetch(url).then(r => r.text()).then(console.log)'", True),
        ("node -e 'require(\"https\").get(u, r => r.pipe(process.stdout))'", True),
        ("perl -MLWP::Simple -e 'getprint \"https://x\"'", True),
        ("perl -MHTTP::Tiny -e 'print HTTP::Tiny->new->get(shift)->{content}' https://x", True),
        ("ruby -rnet/http -e 'puts Net::HTTP.get(URI(ARGV[0]))' https://x", True),
        ("php -r 'echo file_get_contents(\"https://x\");'", True),
        ("python3 fetch_requests.py", False),
        ("python3 -c 'print(1)'", False),
        ("node -e 'console.log(process.version)'", False),
    ],
)  # fmt: skip
def test_inline_http_in_interpreters(command, expected):
    assert shell.interpreter_http(scan(command)) is expected


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
    assert shell.runs_build_tool(scan(command)) is expected


def test_inline_http_in_a_heredoc_body_is_not_run_by_the_command():
    command = "cat > f.py <<'EOF'\nimport requests\nrequests.get('https://x')\nEOF\necho done"
    assert not shell.has_inline_http(without_heredocs(command, scan(command)))


@given(st.text(max_size=300))
def test_shell_reading_never_fails(command):
    found = scan(command)
    assert shell.curl_wget_verdict(found) in (None, "safe", "dangerous")
    assert isinstance(shell.has_inline_http(command), bool)
    assert isinstance(shell.runs_build_tool(found), bool)
    assert isinstance(shell.is_bounded(command), bool)
