"""The real DeepSeek Harness (`dsh headless`), offline, with what `ctxmode setup dsh` wrote.

One scripted session runs with the adapter, then the same first turn runs again after
`ctxmode setup dsh --uninstall`: what the model received is compared call by call.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, ToolCall, reply
from support.host_checks import named_tools_exist, offered_our_tools, tool_named_in
from support.hosts import HOSTS_DIR, HostRun, HostWorld, npm_host, pypi_python

OUR_NAME = "mcp__context-mode__{tool}"
ANY_OUR_TOOL = r"mcp__context-mode__ctx_\w+"
NEEDLE = "NEEDLE-from-the-middle-4242"
GREP_NEEDLE = "needle-past-the-grep-cap"  # one of 400 matches; DSH shows 250 of them
NOTICE_BYTES = 2048


def dsh_binary() -> Path:
    return pypi_python("dsh", (3, 10)).parent / "dsh"


def dsh_env(world: HostWorld, model: FakeModel | None = None) -> dict[str, str]:
    extra = {
        "DSH_HOME": str(world.root / "dsh-home"),
        "DSH_PERMISSION_MODE": "danger-full-access",
        "DSH_TELEMETRY_MODE": "DISABLED",
        # The runtime unpacks ~84 MB of native addons on first start: once per clone.
        "PKG_NATIVE_CACHE_PATH": str(HOSTS_DIR / "pypi" / "dsh" / "pkg-cache"),
    }
    if model is not None:
        extra.update(DEEPSEEK_BASE_URL=f"{model.url}/anthropic", DEEPSEEK_API_KEY="sk-fake")
    return world.env(**extra)


def dsh(world: HostWorld, model: FakeModel) -> HostRun:
    run = world.run(
        [dsh_binary(), "headless", "do the task"], env=dsh_env(world, model), timeout=180
    )
    assert run.returncode == 0, run.describe()
    return run


def setup(world: HostWorld, *options: str) -> None:
    done = ctx(
        "setup", "dsh", "--profile", "headless", *options, cwd=world.work, env=dsh_env(world)
    )
    assert done.returncode == 0, done.stderr


def results_by_call(request: Request) -> dict[str, tuple[str, bool]]:
    """tool_use id -> (the text the model read, is_error), over the whole conversation."""
    found = {}
    for message in request.body.get("messages", []):
        for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content", "")
                text = content if isinstance(content, str) else "".join(
                    part.get("text", "") for part in content
                )  # fmt: skip
                found[block["tool_use_id"]] = (text, bool(block.get("is_error")))
    return found


def first_turn(work: Path) -> Reply:
    big = work / "big.log"
    lines = [
        f"2026-12-01 12:00:{n % 60:02d} worker-{n % 7} processed batch {n} ok" for n in range(5_700)
    ]
    lines[2_500] = f"2026-12-01 12:00:00 worker-3 {NEEDLE} checksum verified"
    big.write_text("\n".join(lines) + "\n")
    assert big.stat().st_size > 290_000
    found = work / "found"
    found.mkdir(exist_ok=True)  # the native run writes the same files again
    for n in range(40):
        rows = [f"def case_{n}_{k}(): raise ValueError('case {n}/{k}')" for k in range(10)]
        if n == 33:
            rows[2] = f"def case_33_2(): raise KeyError('{GREP_NEEDLE}')"
        (found / f"mod_{n:02d}.py").write_text("\n".join(rows) + "\n")
    calls = {
        "fetch": ("web_fetch", {"url": "https://example.com/docs"}),
        "curl": ("bash", {"command": "curl -s https://example.com/docs", "description": "fetch"}),
        "big": ("bash", {"command": "cat big.log", "description": "show the log"}),
        "small": ("bash", {"command": "echo small-output", "description": "echo"}),
        "nonzero": ("bash", {"command": "ls missing-dir", "description": "list"}),
        "missing": ("read", {"file_path": str(work / "missing.txt")}),
        "grep": ("grep", {"pattern": "raise ", "path": str(found)}),
    }
    return Reply(tool_calls=[ToolCall(name, {**args}) for name, args in calls.values()])


CALL_KEYS = ("fetch", "curl", "big", "small", "nonzero", "missing", "grep")


def by_key(request: Request) -> dict[str, tuple[str, bool]]:
    """The first turn's results in call order (tool_use ids are the fake model's)."""
    results = list(results_by_call(request).values())
    return dict(zip(CALL_KEYS, results[: len(CALL_KEYS)], strict=True))


def search_the_labels(request: Request) -> Reply:
    """One ctx_search for the log's needle, one for the grep's, each by its notice's label."""
    calls = []
    for key, needle in (("big", NEEDLE), ("grep", GREP_NEEDLE)):
        notice = by_key(request)[key][0]
        name = tool_named_in(notice, r"mcp__[\w-]+__ctx_search\b")
        label = re.search(r'source="([^"]+)"', notice).group(1)
        calls.append(ToolCall(name, {"queries": [needle], "source": label}))
    return Reply(tool_calls=calls)


def test_dsh_denies_cuts_and_uninstalls_to_native_behaviour(world: HostWorld) -> None:
    dsh_binary()
    env = dsh_env(world)
    os.makedirs(env["DSH_HOME"], exist_ok=True)
    made = world.run([dsh_binary(), "headless", "--dump-config"], env=env)  # makes the profile
    assert made.returncode == 0, made.describe()
    setup(world)

    with world.fake_model([first_turn(world.work), search_the_labels, reply("done")]) as model:
        dsh(world, model)
    first, after_tools, after_search = model.main_requests
    offered_our_tools(first, OUR_NAME)
    system = first.system()
    assert system.count("<ctxmode_routing>") == 1
    assert system.index("<ctxmode_routing>") < system.index("## MCP resource servers")
    named_tools_exist(system, ANY_OUR_TOOL, first)

    ours = by_key(after_tools)
    for key in ("fetch", "curl"):
        text, is_error = ours[key]
        assert is_error and "ctxmode" in text, text
        named_tools_exist(text, ANY_OUR_TOOL, after_tools)
    notice, is_error = ours["big"]
    assert not is_error and len(notice.encode()) <= NOTICE_BYTES, notice
    assert "processed batch 0 ok" in notice and "processed batch 5699 ok" in notice
    named_tools_exist(notice, ANY_OUR_TOOL, after_tools)
    grep_notice, is_error = ours["grep"]
    assert not is_error and len(grep_notice.encode()) <= NOTICE_BYTES, grep_notice
    assert "400 matches in 40 files" in grep_notice, grep_notice
    found_log, found_grep = [text for text, _ in list(results_by_call(after_search).values())[-2:]]
    assert NEEDLE in found_log
    assert GREP_NEEDLE in found_grep  # all 400 indexed, not only the 250 DSH shows

    setup(world, "--uninstall")
    with world.fake_model([first_turn(world.work), reply("done")]) as model:
        dsh(world, model)
    native_first, native = model.main_requests[0], by_key(model.main_requests[1])
    assert "<ctxmode_routing>" not in native_first.system()
    assert not [name for name in native_first.tool_names() if "ctx_" in name]
    for key in ("small", "nonzero", "missing"):  # untouched by the adapter: byte-identical
        assert ours[key] == native[key], key
    assert native["nonzero"][1] is False and native["missing"][1] is True
    assert "ctxmode" not in native["fetch"][0] and "ctxmode" not in native["curl"][0]
    assert len(native["big"][0].encode()) > 40_000  # DSH's own cut: tens of KB reach the model
    assert native["grep"][0].startswith("Found 250 of 400 matches")  # which 250: rg's walk order
    profile = Path(env["DSH_HOME"]) / "profiles" / "headless"
    assert (
        json.loads((profile / "package.json").read_text())["dsh"]["profile"]["bundles"][-1]
        != "ctxmode-dsh"
    )


OVERFLOW = "prompt is too long: context length exceeded"  # DSH reads it as CONTEXT_WINDOW_EXCEEDED
COMPACTION_ASK = "acting as a compaction engine"  # DSH's own summary instruction


def message_texts(request: Request, role: str) -> list[str]:
    return [
        block.get("text", "")
        for message in request.body.get("messages", [])
        if message.get("role") == role and isinstance(message.get("content"), list)
        for block in message["content"]
    ]


def test_dsh_compaction_snapshots_the_session_and_the_guide_reaches_the_retried_request(
    world: HostWorld,
) -> None:
    """A context overflow makes DSH compact and retry at once; the retried request carries
    the guide built from the snapshot taken when the compaction started."""
    env = dsh_env(world)
    made = world.run([dsh_binary(), "headless", "--dump-config"], env=env)
    assert made.returncode == 0, made.describe()
    setup(world)
    notes = world.work / "notes.txt"
    notes.write_text("hello\n")
    edit = {"file_path": str(notes), "old_string": "hello", "new_string": "bye"}  # unread: fails
    first = [ToolCall("bash", {"command": "cat notes.txt", "description": "show"}),
             ToolCall("edit", edit)]  # fmt: skip
    turns = [
        Reply(tool_calls=first),
        Reply(error=OVERFLOW),
        reply("Checkpoint: the user wants the greeting in notes.txt changed."),
        reply("done"),
    ]
    prompt = "fix the greeting in notes.txt, keep {{braces}} as they are"
    with world.fake_model(turns) as model:
        run = world.run([dsh_binary(), "headless", prompt], env=dsh_env(world, model), timeout=180)
    assert run.returncode == 0, run.describe()  # a `{{x}}` in the guide is no prompt variable
    summary_at = next(
        n for n, r in enumerate(model.main_requests) if COMPACTION_ASK in r.last_message_text()
    )
    retried = model.main_requests[summary_at + 1]
    assert "<compacted-summary>" in "".join(message_texts(retried, "user"))
    guides = [text for text in message_texts(retried, "user") if "<session_guide" in text]
    assert len(guides) == 1, "the guide is not in the retried request's runtime context"
    guide = guides[0]
    assert 'compactions="1"' in guide  # the snapshot taken at compaction/start, not one built late
    assert prompt in guide and "Edit notes.txt" in guide
    named_tools_exist(guide, ANY_OUR_TOOL, retried)
    before = model.main_requests[:summary_at]
    assert not [r for r in before if "<session_guide" in json.dumps(r.body)]


SDK_DRIVER = """
import sys
from deepseek_harness import DeepSeekHarness

home, work, url, task = sys.argv[1:5]
with DeepSeekHarness(dsh_home=home, cwd=work, base_url=url, api_key="sk-fake") as harness:
    print(harness.run(task).final_response)
"""


def test_setup_without_profiles_makes_the_sdk_profile_that_dsh_python_sdk_boots(
    world: HostWorld,
) -> None:
    """No profile yet: setup makes `sdk` as DSH would, and DSH's own Python SDK (which
    boots `dsh --profile sdk`) then denies, cuts and shows the routing section."""
    done = ctx("setup", "dsh", cwd=world.work, env=dsh_env(world))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (Path(dsh_env(world)["DSH_HOME"]) / "profiles").iterdir()] == ["sdk"]
    (world.work / "big.log").write_text("".join(f"row {n} ok\n" for n in range(30_000)))
    driver = world.root / "sdk_driver.py"
    driver.write_text(SDK_DRIVER)
    calls = [ToolCall("web_fetch", {"url": "https://example.com/docs"}),
             ToolCall("bash", {"command": "cat big.log", "description": "show"})]  # fmt: skip
    with world.fake_model([Reply(tool_calls=calls), reply("done")]) as model:
        env = dsh_env(world, model)
        argv = [pypi_python("dsh", (3, 10)), driver, env["DSH_HOME"], world.work,
                env["DEEPSEEK_BASE_URL"], "do the task"]  # fmt: skip
        run = world.run(argv, env=env, timeout=180)
    assert run.returncode == 0 and "done" in run.stdout, run.describe()
    first, after = model.main_requests[:2]
    offered_our_tools(first, OUR_NAME)
    assert "<ctxmode_routing>" in first.system()
    denied, notice = list(results_by_call(after).values())[:2]
    assert denied[1] and "ctx_fetch_and_index" in denied[0]
    named_tools_exist(denied[0], ANY_OUR_TOOL, after)
    assert not notice[1] and len(notice[0].encode()) <= NOTICE_BYTES and "row 0 ok" in notice[0]


def test_our_bundle_survives_dsh_plugin_add_remove_and_a_pnpm_reinstall(world: HostWorld) -> None:
    """`dsh plugin` forwards to pnpm in the profile; setup's bundle is no pnpm dependency,
    yet pnpm must not prune it: DSH then skips a listed bundle it cannot find."""
    pnpm = npm_host("pnpm", "pnpm")
    env = dsh_env(world)
    env["PATH"] = f"{pnpm.parent}:{env['PATH']}"
    made = world.run([dsh_binary(), "headless", "--dump-config"], env=env)
    assert made.returncode == 0, made.describe()
    setup(world)
    other = world.root / "other-bundle"
    other.mkdir()
    manifest = {"name": "other-bundle", "version": "1.0.0", "type": "module",
                "dsh": {"bundle": {"patch": "./cordis.patch.yml"}}}  # fmt: skip
    (other / "package.json").write_text(json.dumps(manifest))
    (other / "cordis.patch.yml").write_text("[]\n")
    for args in (["add", f"file:{other}"], ["remove", "other-bundle"], ["install", "--force"]):
        done = world.run([dsh_binary(), "plugin", "--profile", "headless", *args], env=env)
        assert done.returncode == 0, done.describe()
        loaded = world.run([dsh_binary(), "headless", "--dump-config"], env=env)
        assert loaded.returncode == 0, loaded.describe()
        assert "# == ctxmode-dsh" in loaded.stdout, args  # our bundle's layer still loads
        assert "ctxmode-dsh" not in loaded.stderr, loaded.stderr  # not skipped
