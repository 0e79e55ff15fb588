"""Compaction on the real OpenCode and Kilo: our snapshot joins it, the guide follows it.

The fake model reports a prompt as big as the model's window, so the host compacts the
session on its own before the next request: it asks for a summary (the fake's summary
leaves the fact out), then continues the session with the summary in place of the
conversation. The fact said only in the first prompt must reach the model again, and
only through ctxmode: in our snapshot inside the summary request, and in the resume
guide in the system prompt of the request after it.
"""

from __future__ import annotations

import json

import pytest

from support.fake_model import Reply, Request, ToolCall, reply
from support.hosts import HostWorld
from support.opencode_hosts import HOSTS, LIMIT, Host
from support.plugin_session import scripted_session

FACT = "ZEBRA-17"
SUMMARY = reply("Objective: write notes for the user.")  # the fact is not in it


def is_summary_request(request: Request) -> bool:
    return "<conversation>" in request.last_message_text()


def not_system(request: Request) -> str:
    messages = [m for m in request.body.get("messages", []) if m.get("role") != "system"]
    return json.dumps(messages, ensure_ascii=False)


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_compaction_carries_our_snapshot_and_the_guide_follows(world: HostWorld, host: Host):
    write = ToolCall("bash", {"command": "echo data > notes.txt", "description": "write notes"})
    overflowing = Reply(tool_calls=[write], prompt_tokens=LIMIT["context"])
    prompt = f"Remember: the build flag is {FACT}. Write notes."
    session = scripted_session(world, host, [overflowing, reply("noted")], [prompt],
                               side_reply=lambda _: SUMMARY)  # fmt: skip
    model = session.model

    [summary_request] = [r for r in model.requests if is_summary_request(r)]
    asked = summary_request.last_message_text()
    snapshot = asked[asked.index('<session_guide source="compact"') :]
    assert FACT in snapshot, asked[-2000:]
    assert "<session_guide" not in summary_request.system()  # the guide waits for the session

    after = model.main_requests[-1]
    assert SUMMARY.text in after.text()  # this is the request after the compaction
    assert FACT in after.system() and "<session_guide" in after.system()
    assert FACT not in not_system(after)  # it came back through ctxmode only
    assert after.system().count("<session_guide") == 1
