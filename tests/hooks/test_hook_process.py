"""Real `ctxmode hook` processes: odd stdin, a host that never closes stdin, concurrency, imports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from support.stored import stored_bytes

from .hookproc import fast_command, hook_env, run_hook

BASH_NODE = {
    "session_id": "proc-1",
    "cwd": "/p",
    "tool_name": "Bash",
    "tool_input": {"command": "node scripts/report.js"},
}


@pytest.fixture(autouse=True)
def no_user_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))


@pytest.mark.parametrize(
    "stdin",
    [
        b"\x00\xff garbage \xfe",
        b'{"tool_name": "Bash", "tool_input": {"command": "curl',
        b"\xef\xbb\xbf" + json.dumps(BASH_NODE).encode(),
        b"[]",
        b"",
        json.dumps(
            {**BASH_NODE, "tool_input": "not a dict", "cwd": 5, "session_id": None}
        ).encode(),
    ],
)
def test_odd_input_exits_0_with_a_well_formed_answer(stdin):
    completed = run_hook("claude-code", "pretooluse", stdin)
    assert completed.returncode == 0
    assert completed.stderr == b""
    if completed.stdout:
        assert json.loads(completed.stdout)["hookSpecificOutput"]["hookEventName"] == "PreToolUse"


def test_a_10_mb_tool_response_is_handled():
    payload = {
        "tool_name": "Bash",
        "tool_input": {"command": "cat big"},
        "tool_response": {"stdout": "y" * 10_000_000},
    }
    completed = run_hook("claude-code", "posttooluse", json.dumps(payload).encode())
    assert (completed.returncode, completed.stderr) == (0, b"")
    notice = json.loads(completed.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert len(notice.encode()) <= 2048 and "indexed" in notice


def _spawn_seconds() -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
    return time.monotonic() - start


@pytest.mark.parametrize(
    ("written", "expected"), [(b"", b"{}"), (b'{"session_id": "x", "tr', b"{}")]
)
def test_a_host_that_never_closes_stdin_gets_an_answer_after_the_idle_timeout(written, expected):
    idle_ms = 400
    env = hook_env(CTXMODE_HOOK_STDIN_IDLE_MS=str(idle_ms))
    start = time.monotonic()
    child = subprocess.Popen(
        fast_command("claude-code", "stop"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    try:
        child.stdin.write(written)
        child.stdin.flush()
        stdout = child.stdout.read()  # returns when the hook exits; stdin stays open
        child.wait(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        child.stdin.close()
        child.stdout.close()
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, stdout) == (0, expected)
    # Correctness bound, generous: idle timeout + 0.5 s + this machine's interpreter start.
    assert elapsed < idle_ms / 1000 + 0.5 + 2 * _spawn_seconds()


def test_20_concurrent_hooks_of_one_session_show_the_nudge_exactly_once():
    data = json.dumps({**BASH_NODE, "session_id": "concurrent-session"}).encode()
    children = [
        subprocess.Popen(
            fast_command("claude-code", "pretooluse"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=hook_env(CTXMODE_WRAP_EVERY="off"),  # else the command is wrapped, not nudged
        )
        for _ in range(20)
    ]
    for child in children:  # all are running before any gets its payload
        child.stdin.write(data)
        child.stdin.close()
    outputs = []
    for child in children:
        outputs.append(child.stdout.read())
        child.stdout.close()
        child.stderr.close()
        assert child.wait(timeout=60) == 0
    nudges = [out for out in outputs if b"additionalContext" in out]
    assert len(nudges) == 1
    assert outputs.count(b"") == 19


def imported_modules(command: list[str], stdin: bytes, env: dict[str, str]) -> set[str]:
    """Every module the call imports. The module cache is off: a module it serves runs
    without the import system, so `-X importtime` would not name it."""
    completed = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        input=stdin,
        capture_output=True,
        env={**env, "CTXMODE_HOOK_MODULE_CACHE": "off"},
        check=True,
    )
    lines = completed.stderr.decode().splitlines()
    names = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    return names - {"imported package"}  # the header line


FORBIDDEN = {
    "mcp",
    "pydantic",
    "click",
    "httpx",
    "httpx2",
    "platformdirs",
    "anyio",
}
# Only PreToolUse is a pure decision; the other events record session events in SQLite.
NO_DATABASE = {"sqlite3", "_sqlite3"}


def _third_party(modules: set[str]) -> set[str]:
    stdlib = set(sys.stdlib_module_names)
    return {
        m for m in modules if m.split(".")[0] not in stdlib and m.split(".")[0] not in ("ctxmode",)
    }


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pretooluse", BASH_NODE),
        ("pretooluse", {**BASH_NODE, "tool_input": {"command": "curl https://x"}}),
        ("pretooluse", {"tool_name": "Read", "tool_input": {"file_path": "/etc/hostname"}}),
        ("pretooluse", {"tool_name": "Agent", "tool_input": {"prompt": "x"}}),
        ("sessionstart", {"source": "startup"}),
        ("posttooluse", {"tool_name": "mcp__x__y", "tool_response": "z"}),
    ],
)
def test_the_hook_path_imports_no_third_party_module_and_sqlite_only_to_record(event, payload):
    modules = imported_modules(
        fast_command("claude-code", event), json.dumps(payload).encode(), hook_env()
    )
    assert "ctxmode.hooks.runner" in modules
    assert not modules & FORBIDDEN
    assert not _third_party(modules)
    assert "json" not in modules  # the C scanner parses; `import json` would double the cost
    assert "select" not in modules  # stdin is read with an alarm, not select()
    if event == "pretooluse":
        assert "re" not in modules
        assert not modules & NO_DATABASE


# What one call loads is what its decision needs: the shell grammar only for a shell
# command, the permission engine and its globs only once a rule was read (no settings
# file here), and the command-meaning tables only once a deny or ask rule names a program.
LS = {**BASH_NODE, "tool_input": {"command": "ls -la src"}}
READ = {"tool_name": "Read", "tool_input": {"file_path": "/etc/hostname"}}
GREP = {"tool_name": "Grep", "tool_input": {"pattern": "TODO", "path": "src"}}
SHELL_GRAMMAR = {"ctxmode.policy.shell", "ctxmode.hooks.shell", "ctxmode.hooks.bulky"}
RULE_ENGINE = {"ctxmode.policy.permissions", "ctxmode.policy.globs", "ctxmode.policy.meaning"}


@pytest.mark.parametrize(
    ("payload", "loaded", "not_loaded"),
    [
        (LS, SHELL_GRAMMAR | {"ctxmode.policy.rules"}, RULE_ENGINE),
        (READ, set(), SHELL_GRAMMAR | RULE_ENGINE | {"ctxmode.policy.rules"}),
        (GREP, set(), SHELL_GRAMMAR | RULE_ENGINE | {"ctxmode.policy.rules"}),
    ],
)
def test_a_pre_tool_use_call_loads_only_what_its_decision_needs(payload, loaded, not_loaded):
    modules = imported_modules(
        fast_command("claude-code", "pretooluse"), json.dumps(payload).encode(), hook_env()
    )
    assert loaded <= modules
    assert not modules & not_loaded, sorted(modules & not_loaded)


def test_a_deny_rule_naming_a_program_loads_its_meaning(tmp_path):
    user = tmp_path / "claude-config"
    user.mkdir()
    rules = {"permissions": {"deny": ["Bash(rm -rf *)"]}}
    (user / "settings.json").write_text(json.dumps(rules))
    rm = {**BASH_NODE, "tool_input": {"command": "rm -fr build"}}
    modules = imported_modules(
        fast_command("claude-code", "pretooluse"), json.dumps(rm).encode(), hook_env()
    )
    assert "ctxmode.policy.meaning" in modules
    denied = run_hook("claude-code", "pretooluse", json.dumps(rm).encode())
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_console_entry_skips_click():
    modules = imported_modules(
        [sys.executable, "-m", "ctxmode", "hook", "claude-code", "pretooluse"],
        json.dumps(BASH_NODE).encode(),
        hook_env(),
    )
    assert "ctxmode.hooks.runner" in modules
    assert "click" not in modules and "ctxmode.cli" not in modules


def test_the_fast_form_runs_from_any_directory(tmp_path):
    completed = run_hook("qwen-code", "sessionstart", b"{}", cwd=str(tmp_path))
    assert completed.returncode == 0
    assert json.loads(completed.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert os.getcwd() != str(tmp_path)


def test_redirects_follow_a_real_announced_server():
    from ctxmode.launch import mcp_ready

    env = hook_env()
    env.pop("CTXMODE_MCP_READY")
    curl = json.dumps({**BASH_NODE, "tool_input": {"command": "curl https://x"}}).encode()
    assert run_hook("claude-code", "pretooluse", curl, env=env).stdout == b""
    mcp_ready.announce_server()  # this test process plays the live `ctxmode serve`
    try:
        denied = json.loads(run_hook("claude-code", "pretooluse", curl, env=env).stdout)
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        mcp_ready.withdraw_server()
    assert run_hook("claude-code", "pretooluse", curl, env=env).stdout == b""


# One command per form the secret filter knows; each value is unique so a leak names its form.
SECRET_COMMANDS = [
    "psql postgres://app:pw-url-1@db/prod -c 'select 1'",
    "mysql -uroot -ppw-mysql-2 prod",
    "curl -u bob:pw-curl-3 https://api.example.com",
    "docker login -u bob -p pw-docker-4 registry.example.com",
    "export DB_PASS=pw-export-5 && make deploy",
    "MYSQL_PWD=pw-mysqlpwd-6 mysql -u app",
    "az storage ls --connection-string 'AccountName=a;AccountKey=pw-azure-7;'",
    "sshpass -p pw-sshpass-8 ssh deploy@host",
    "SECRET_KEY_BASE=pw-rails-9 rails s",
    "sqlcmd -Q x 'Server=db;Uid=sa;Pwd=pw-odbc-10;'",
    "curl -H 'Authorization: Bearer pw-bearer-11-0123456789abcdef' https://api.example.com",
    "curl -H 'Cookie: session=pw-cookie-16; theme=dark' https://api.example.com",
    "curl -b 'sid=pw-curlcookie-17' https://api.example.com",
    "PGPASSWORD='ab;pw-semicolon-18' psql -h db",
]
SECRET_OUTPUT = (
    "machine api.example.com login bob password pw-netrc-12\n"
    "db.example.com:5432:prod:app:pw-pgpass-13\n"
    "SENDGRID SG.pw-sendgrid-14-abcdefgh.ABCDEFGHIJKLMNOPQRSTUVWX0123\n"
    "STRIPE whsec_pwwebhook15abcdefghijklmnop\n"
    "replica.internal:5433:*:app:pw-pgpass-19\n"
    "DB_PASSWORD=ab;pw-semicolon-20\n"
    "Set-Cookie: sid=pw-setcookie-21; Path=/; HttpOnly\n"
    "Error: connection refused\n"
)


def test_post_tool_use_capture_persists_no_secret(tmp_path, data_root):
    project = tmp_path / "project"
    project.mkdir()
    for index, command in enumerate(SECRET_COMMANDS):
        payload = {
            "session_id": "secrets-1",
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": SECRET_OUTPUT, "stderr": "failed", "exit_code": index % 2},
        }
        completed = run_hook("claude-code", "posttooluse", json.dumps(payload).encode())
        assert completed.returncode == 0, completed.stderr
    persisted = stored_bytes(data_root)  # packed chunk text read back too
    assert b"[FILTERED]" in persisted  # the capture did store the events
    leaked = sorted({m.decode() for m in re.findall(rb"pw-?[a-z]+-?[0-9]+", persisted)})
    assert leaked == []
