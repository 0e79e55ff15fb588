"""Evasion forms against a `Bash(curl:*)` deny rule, each judged by what bash really runs.

Every row is first run by a real bash with a recording `curl` first on PATH: the row must
really run curl (so the table cannot hold a form that only looks dangerous), and then the
policy must deny it (the scanner resolved the program) or ask (the program is only known
at run time). The rows that never run curl must pass untouched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxmode.policy.permissions import evaluate_bash
from ctxmode.policy.rules import RuleSet, parse_rule
from ctxmode.policy.shell import scan

CURL_DENY = RuleSet([parse_rule("Bash(curl:*)", "deny", "test")])  # type: ignore[list-item]
CURL_ALLOW = RuleSet([parse_rule("Bash(curl:*)", "allow", "test")])  # type: ignore[list-item]

# What the fake programs do: curl records its call; sudo and busybox run their command.
FAKES = {
    "curl": 'echo "curl $*" >> "$CURL_LOG"\n',
    "wget": 'echo "wget $*" >> "$CURL_LOG"\n',
    "sudo": 'while [ "${1#-}" != "$1" ]; do [ "$1" = -u ] && shift; shift; done\nexec "$@"\n',
    "busybox": 'exec "$@"\n',
}

RESOLVED = [
    "curl u",
    "f() { curl u; }; f",
    "function g { curl u; }; g",
    "shopt -s expand_aliases\nalias c='curl'\nc u",
    "trap 'curl u' EXIT",
    "script -qc 'curl u' /dev/null",
    "bash -O extglob -c 'curl u'",
    'sh -c "curl u"',
    "awk 'BEGIN{system(\"curl u\")}'",
    'awk \'BEGIN{print "u" | "curl -K-"}\'',
    "git -c alias.x='!curl u' x",
    "{curl,u}",
    "cur${EMPTY}l u",
    "c''url u",
    "curl${IFS}u",
    "X=cu; Y=rl; $X$Y u",
    "sudo -u root curl u",
    "sudo curl u",
    "nice -n 5 curl u",
    "timeout 5 curl u",
    "stdbuf -o0 curl u",
    "timeout 1 watch -n 0.5 curl u",
    "eval 'curl u'",
    "echo u | xargs curl",
    "echo u | xargs -I{} sh -c 'curl {}'",
    "find . -maxdepth 0 -exec curl u \\;",
    "{ curl u; }",
    "(curl u)",
    "echo $(curl u)",
    "busybox curl u",
    "env A=1 curl u",
    "command curl u",
    "nohup curl u",
    "exec curl u",
    "cat <<EOF | bash\ncurl u\nEOF",
    "bash <<< 'curl u'",
    "python3 -c \"import os; os.system('curl u')\"",
]

COMPUTED = [
    "$X$Y u",
    "$(echo curl) u",
    "`echo curl` u",
    'set -- curl u; "$@"',
    "read X <<< curl; $X u",
    "X=$(echo curl); $X u",
    "echo Y3VybCB1 | base64 -d | bash",
    "echo Y3VybCB1 | base64 -d | sh -s",
    "source <(echo curl u)",
    ". <(echo curl u)",
    'eval "$X$Y u"',
]

NOT_RUN = [
    "echo curl u",
    "echo 'curl u' > /dev/null",
    "command -v curl",
    "grep -c curl /dev/null",
    "cat <<'EOF'\ncurl u\nEOF",
    "X=curl",
    "true # curl u",
    "printf '%s\\n' '$(curl u)'",
]


@pytest.fixture(scope="module")
def fake_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bin")
    for name, body in FAKES.items():
        path = directory / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return directory


def really_runs_curl(command: str, fake_bin: Path, tmp_path: Path) -> bool:
    """Run `command` in bash (with X=cu, Y=rl set outside it) and report whether curl ran."""
    log = tmp_path / "curl.log"
    env = {
        **os.environ,
        "PATH": f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "CURL_LOG": str(log),
        "X": "cu",
        "Y": "rl",
        "TERM": "dumb",
    }
    subprocess.run(
        ["bash", "-c", command],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=20,
    )
    return log.exists() and "curl" in log.read_text()


def needs(command: str) -> None:
    for tool in ("watch", "script", "git", "awk", "python3", "base64"):
        if tool in command and shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.mark.parametrize("command", RESOLVED)
def test_resolved_evasion_really_runs_curl_and_is_denied(
    command: str, fake_bin: Path, tmp_path: Path
) -> None:
    needs(command)
    assert really_runs_curl(command, fake_bin, tmp_path), "the row does not run curl"
    verdict = evaluate_bash(command, CURL_DENY)
    assert verdict.action == "deny", list(scan(command).forms)
    assert "curl" in scan(command).programs() or verdict.matched_command.startswith("curl")


@pytest.mark.parametrize("command", COMPUTED)
def test_computed_program_really_runs_curl_and_asks(
    command: str, fake_bin: Path, tmp_path: Path
) -> None:
    needs(command)
    assert really_runs_curl(command, fake_bin, tmp_path), "the row does not run curl"
    verdict = evaluate_bash(command, CURL_DENY)
    assert verdict.action == "ask", scan(command).commands
    assert "computed at run time" in verdict.reason


@pytest.mark.parametrize("command", COMPUTED)
def test_computed_program_passes_without_deny_or_ask_rules(command: str) -> None:
    assert evaluate_bash(command, CURL_ALLOW).action is None
    assert evaluate_bash(command, RuleSet()).action is None


@pytest.mark.parametrize("command", NOT_RUN)
def test_curl_as_data_never_runs_and_passes(command: str, fake_bin: Path, tmp_path: Path) -> None:
    assert not really_runs_curl(command, fake_bin, tmp_path)
    assert evaluate_bash(command, CURL_DENY).action is None, scan(command).commands
