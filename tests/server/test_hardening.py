"""The second hardening round, held by the real `ctxmode serve` over MCP: rules matched on
a command's meaning, programs named at run time, and one bound on what a call may write."""

from __future__ import annotations

from pathlib import Path

from .test_execute_tools import settings_env, write_project_settings  # noqa: F401


def test_rules_hold_for_every_spelling_and_for_names_built_at_run_time(mcp_run, settings_env):  # noqa: F811
    project: Path = mcp_run.project
    write_project_settings(project, {"deny": ["Bash(rm -rf *)"], "ask": ["Bash(git push:*)"]})
    victim = project / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("still here\n")
    built = "import os\nrun = getattr(os, 'sys' + 'tem')\nrun('rm -' + 'fr victim')"

    async def scenario(session):
        calls = {
            "fr": ("ctx_execute", {"language": "shell", "code": "rm -fr victim"}),
            "long": ("ctx_execute", {"language": "shell", "code": "rm --force -R victim"}),
            "batch": ("ctx_batch_execute", {"commands": ["echo x; rm -r -f victim"]}),
            "push": ("ctx_execute", {"language": "shell", "code": "git -C . --no-pager push"}),
            "built": ("ctx_execute", {"language": "python", "code": built}),
            "fine": ("ctx_execute", {"language": "shell", "code": "rm -r victim/none || echo ok"}),
        }
        return {name: await session.call(tool, **args) for name, (tool, args) in calls.items()}

    replies = mcp_run(scenario, env=settings_env)
    for name in ("fr", "long", "batch"):
        text, is_error = replies[name]
        assert is_error and "Bash(rm -rf *)" in text, (name, text)
    text, is_error = replies["push"]
    assert is_error and "Not run" in text and "git push" in text, text
    text, is_error = replies["built"]
    assert is_error and "Not run" in text and "only at run time" in text, text
    assert "'sys' + 'tem'" in text  # the reason names what was built
    text, is_error = replies["fine"]
    assert "ok" in text and "Blocked" not in text, text
    assert (victim / "keep.txt").read_text() == "still here\n"
