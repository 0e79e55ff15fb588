"""ctx_execute, ctx_execute_file and ctx_batch_execute, driven only through the MCP client."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
from pathlib import Path

import anyio
import pytest

from support.stored import stored_bytes

SECRET = "outside-secret-7f3a"


@pytest.fixture
def settings_env(tmp_path: Path) -> dict[str, str]:
    """Keep the user's own ~/.claude/settings.json out of these servers."""
    user_dir = tmp_path / "user-claude"
    user_dir.mkdir()
    return {"CLAUDE_CONFIG_DIR": str(user_dir)}


def write_project_settings(project: Path, permissions: dict[str, list[str]]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": permissions}))


def is_running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def peak_rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmHWM for pid {pid}")


def test_python_shell_and_javascript_run(mcp_run, settings_env):
    async def scenario(session):
        replies = {
            "python": await session.call("ctx_execute", language="python", code="print(6 * 7)"),
            "shell": await session.call("ctx_execute", language="shell", code="echo $((6 * 7))"),
        }
        if shutil.which("node"):
            replies["javascript"] = await session.call(
                "ctx_execute", language="javascript", code="console.log(6 * 7)"
            )
        return replies

    for language, (text, is_error) in mcp_run(scenario, env=settings_env).items():
        assert not is_error, (language, text)
        assert "42" in text, (language, text)


def test_numbers_and_booleans_sent_as_strings_are_accepted(mcp_run, settings_env):
    async def scenario(session):
        return await session.call(
            "ctx_execute",
            language="shell",
            code="echo coerced-ok",
            timeout="5000",
            background="false",
        )

    text, is_error = mcp_run(scenario, env=settings_env)
    assert not is_error, text
    assert "coerced-ok" in text


def test_failing_code_reports_exit_code_and_stderr(mcp_run, settings_env):
    async def scenario(session):
        return await session.call(
            "ctx_execute", language="python", code="import sys\nsys.exit('boom-on-stderr')"
        )

    text, is_error = mcp_run(scenario, env=settings_env)
    assert is_error
    assert "boom-on-stderr" in text and "exit code: 1" in text.lower(), text


def test_timeout_kills_the_whole_process_tree(mcp_run, settings_env, tmp_path):
    pid_file = tmp_path / "pids.txt"
    code = f"""
for i in 1 2 3; do sleep 300 & echo $! >> '{pid_file}'; done
( sleep 300 & echo $! >> '{pid_file}'; wait ) &
echo $! >> '{pid_file}'
echo $$ >> '{pid_file}'
echo started
wait
"""

    async def scenario(session):
        return await session.call("ctx_execute", language="shell", code=code, timeout="2500")

    text, _ = mcp_run(scenario, env=settings_env)
    assert "timed out" in text.lower(), text
    pids = [int(line) for line in pid_file.read_text().split()]
    assert len(pids) == 6
    deadline = time.monotonic() + 5
    while any(is_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # killed processes need a moment to be reaped; no event to await
    assert [pid for pid in pids if is_running(pid)] == []


def test_fifty_megabytes_of_stdout_stay_out_of_memory_and_reply(mcp_run, settings_env):
    flood = (
        "import sys\n"
        "line = 'x' * 99 + '\\n'\n"
        "block = line * 10_000\n"  # 1 MB
        "for _ in range(50):\n"
        "    sys.stdout.write(block)\n"
        "print('flood-done')\n"
    )

    async def scenario(session):
        # The shell's parent is the reaper the server runs each call under (on Linux).
        pid_text, _ = await session.call(
            "ctx_execute",
            language="shell",
            code="ps -o comm= -p $PPID | grep -q python && ps -o ppid= -p $PPID || echo $PPID",
        )
        server = int(pid_text.strip().splitlines()[-1])
        await session.call("ctx_execute", language="python", code="print('warm')")
        before = peak_rss_kb(server)
        reply = await session.call("ctx_execute", language="python", code=flood)
        return reply, before, peak_rss_kb(server)

    (text, is_error), before_kb, after_kb = mcp_run(scenario, env=settings_env)
    assert not is_error, text[:2000]
    assert len(text.encode()) < 6 * 1024, len(text.encode())
    assert "flood-done" in text
    grown_mb = (after_kb - before_kb) / 1024
    # Holding the output would cost at least its 50 MB; indexing a bounded part of it costs less.
    assert grown_mb < 50, f"server peak RSS grew by {grown_mb:.1f} MB for 50 MB of output"


def test_execute_file_refuses_paths_outside_the_project(mcp_run, settings_env, tmp_path):
    project = mcp_run.project
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET + "\n")
    (project / "inside.txt").write_text("inside-ok\n")
    (project / "sneaky.txt").symlink_to(outside)
    code = "print(FILE_CONTENT)"

    async def scenario(session):
        results = {}
        for path in ("inside.txt", "../outside.txt", "sneaky.txt", "/etc/passwd", str(outside)):
            results[path] = await session.call(
                "ctx_execute_file", path=path, language="python", code=code
            )
        return results

    results = mcp_run(scenario, env=settings_env)
    text, is_error = results.pop("inside.txt")
    assert not is_error and "inside-ok" in text, text
    for path, (text, is_error) in results.items():
        assert is_error, (path, text)
        assert "outside the project" in text, (path, text)
        assert SECRET not in text and "root:" not in text, (path, text)


def test_read_allow_rule_reopens_an_outside_file(mcp_run, settings_env, tmp_path):
    project = mcp_run.project
    outside = tmp_path / "shared" / "outside.txt"
    outside.parent.mkdir()
    outside.write_text(SECRET + "\n")

    async def scenario(session):
        arguments = {"path": "../shared/outside.txt", "language": "python",
                     "code": "print(FILE_CONTENT.upper())"}  # fmt: skip
        refused = await session.call("ctx_execute_file", **arguments)
        write_project_settings(project, {"allow": [f"Read({outside.parent}/**)"]})
        allowed = await session.call("ctx_execute_file", **arguments)
        return refused, allowed

    (refused, refused_err), (allowed, allowed_err) = mcp_run(scenario, env=settings_env)
    assert refused_err and "outside the project" in refused, refused
    assert "Read(" in refused  # the refusal says which rule would allow it
    assert not allowed_err, allowed
    assert SECRET.upper() in allowed


def test_batch_accepts_plain_string_commands_and_string_concurrency(mcp_run, settings_env):
    async def scenario(session):
        return await session.call(
            "ctx_batch_execute",
            commands=["echo alpha-marker-one", "echo beta-marker-two"],
            queries=["alpha marker", "beta marker"],
            concurrency="2",
        )

    text, is_error = mcp_run(scenario, env=settings_env)
    assert not is_error, text
    assert "alpha-marker-one" in text and "beta-marker-two" in text
    assert "cmd_1" in text and "cmd_2" in text


def test_small_batch_output_is_shown_inline_and_large_output_is_answered_from_the_index(
    mcp_run, settings_env
):
    big = "python3 -c \"[print('filler line', i) for i in range(4000)]; print('needle-7 found here')\""

    async def scenario(session):
        small = await session.call("ctx_batch_execute", commands=["echo tiny-output-q"])
        large = await session.call(
            "ctx_batch_execute", commands=[big] * 3, queries=["needle-7 found"] * 4, timeout=0
        )
        return small, large

    (small, small_err), (large, large_err) = mcp_run(scenario, env=settings_env)
    assert not small_err and "tiny-output-q" in small
    assert not large_err and "needle-7 found here" in large
    assert len(large.encode()) < 6_000


def test_deny_rules_in_project_settings_refuse_commands_and_reads(mcp_run, settings_env):
    project = mcp_run.project
    write_project_settings(project, {"deny": ["Bash(rm:*)", "Read(.env)"]})
    victim = project / "keep-me.txt"
    victim.write_text("still here\n")
    (project / ".env").write_text(f"TOKEN={SECRET}\n")

    async def scenario(session):
        rm_python = "import os\nos.system('rm -f keep-me.txt')"
        cleanup = [{"label": "clean", "command": "rm keep-me.txt"}]
        calls = {
            "shell": ("ctx_execute", {"language": "shell", "code": "echo hi && rm -f keep-me.txt"}),
            "python": ("ctx_execute", {"language": "python", "code": rm_python}),
            "batch": ("ctx_batch_execute", {"commands": cleanup, "queries": ["anything"]}),
            "read": (
                "ctx_execute_file",
                {"path": ".env", "language": "python", "code": "print(FILE_CONTENT)"},
            ),
            "other": ("ctx_execute", {"language": "shell", "code": "echo allowed-still"}),
        }
        return {name: await session.call(tool, **args) for name, (tool, args) in calls.items()}

    replies = mcp_run(scenario, env=settings_env)
    for name in ("shell", "python", "batch"):
        text, is_error = replies[name]
        assert is_error and "Bash(rm:*)" in text, (name, text)
    text, is_error = replies["read"]
    assert is_error and "Read(.env)" in text and SECRET not in text, text
    assert victim.exists()
    text, is_error = replies["other"]
    assert not is_error and "allowed-still" in text


def test_ask_rules_refuse_with_a_way_to_run_it_through_the_host(mcp_run, settings_env):
    project = mcp_run.project
    write_project_settings(project, {"ask": ["Bash(git push:*)"]})

    async def scenario(session):
        pushed = await session.call("ctx_execute", language="shell", code="git push origin x")
        computed = await session.call("ctx_execute", language="shell", code="$(echo git) push")
        batch = await session.call("ctx_batch_execute", commands=["git push"], queries=["x"])
        fine = await session.call("ctx_execute", language="shell", code="echo still-runs")
        return pushed, computed, batch, fine

    pushed, computed, batch, fine = mcp_run(scenario, env=settings_env)
    for text, is_error in (pushed, computed, batch):
        assert is_error and "require confirmation" in text and "own shell tool" in text, text
    assert "Bash(git push:*)" in pushed[0] and "computed at run time" in computed[0]
    assert not fine[1] and "still-runs" in fine[0]


def test_background_process_is_detached_then_stopped_with_the_server(mcp_run, settings_env):
    async def scenario(session):
        return await session.call(
            "ctx_execute",
            language="shell",
            code="echo serving-pid=$$; exec sleep 60",
            background="true",
            timeout="800",
        )

    text, is_error = mcp_run(scenario, env=settings_env)
    assert not is_error, text
    assert "serving-pid=" in text and "background" in text.lower()
    pid = int(re.search(r"serving-pid=(\d+)", text).group(1))
    deadline = time.monotonic() + 5
    while is_running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # the server stops it on exit; give the kill a moment to land
    assert not is_running(pid), "a background process outlived the server"


def test_indexed_output_loses_its_secrets_but_the_reply_keeps_them(
    mcp_run, settings_env, data_root
):
    code = (
        'for i in $(seq 1 400); do echo "build step $i compiled"; done\n'
        "echo 'export DB_PASS=hunter2pw'\n"
        "echo 'mysql -uroot -pS3cretPw prod'\n"
    )

    async def scenario(session):
        return await session.call("ctx_execute", language="shell", code=code)

    text, is_error = mcp_run(scenario, env=settings_env)
    assert not is_error, text
    assert "DB_PASS=hunter2pw" in text  # the model sees what the command printed
    stored = stored_bytes(data_root)  # packed chunk text read back too
    assert "indexed" in text and b"build step 400 compiled" in stored
    assert b"hunter2pw" not in stored and b"S3cretPw" not in stored


@pytest.mark.parametrize("stop", ["stdin closed", "SIGTERM"])
def test_a_stopped_server_ends_background_runs_and_what_they_started(
    mcp_run, settings_env, tmp_path, stop
):
    pid_file = tmp_path / "escaped.pid"
    code = f"setsid -f sh -c 'echo $$ > {pid_file}; exec sleep 300'; exec sleep 300"
    server_of_reaper = (
        "import os; print(open(f'/proc/{os.getppid()}/stat').read().rsplit(')', 1)[1].split()[1])"
    )

    async def scenario(session):
        await session.call("ctx_execute", language="shell", code=code, background="true",
                           timeout="800")  # fmt: skip
        if stop == "SIGTERM":
            text, _ = await session.call("ctx_execute", language="python", code=server_of_reaper)
            os.kill(int(text.strip()), signal.SIGTERM)
            deadline = time.monotonic() + 5
            while pid_file.exists() and is_running(int(pid_file.read_text())):
                assert time.monotonic() < deadline, "SIGTERM did not stop the background run"
                await anyio.sleep(0.05)

    try:
        mcp_run(scenario, env=settings_env)
    except Exception:
        if stop != "SIGTERM":  # the client may complain about a server that went away
            raise
    escaped = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while is_running(escaped) and time.monotonic() < deadline:
        time.sleep(0.05)  # the server stops it on exit; give the kill a moment to land
    assert not is_running(escaped), f"pid {escaped} outlived the server ({stop})"
