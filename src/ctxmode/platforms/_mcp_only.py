"""The hook side of hosts that have no hooks (Zed, Antigravity IDE): every event is unknown.

Such a host only runs our MCP server and reads an instruction file; `ctxmode hook`
for it answers nothing, like for any event a host does not have.
"""

from __future__ import annotations

from ctxmode.vocab.event import Decision, HookEvent, HookOutput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

EVENTS: dict[str, str] = {}


def parser(platform_id: str) -> Callable[[dict, str], HookEvent]:
    def parse(payload: dict, host_event: str) -> HookEvent:
        return HookEvent(platform_id, "", host_event=host_event)

    return parse


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    return HookOutput()
