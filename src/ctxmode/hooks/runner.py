"""Run one hook call end to end, crash-proof: stdin bytes in, a HookOutput out.

The entry point hands over the host's `Platform`; this module never imports a host.
Every failure (bad input, a bug, a broken disk) is logged to
`<data root>/logs/hook-errors.log` and answered with the host's no-op, exit 0: a hook
must never break the host's tool call. Only a host's own protocol (Kiro's exit 2)
produces another exit code.
"""

from __future__ import annotations

import os
import time

from ctxmode import paths
from ctxmode.vocab.event import HookEvent, HookOutput

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep `collections` off the hook path
    from collections.abc import Callable

    from ctxmode.vocab.platform import Platform

ERROR_LOG = "hook-errors.log"


def log_error(platform_id: str, host_event: str, message: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    paths.append_log(
        ERROR_LOG, f"[{stamp}Z] pid={os.getpid()} {platform_id} {host_event}: {message}"
    )


def noop(platform: Platform, host_event: str, event: HookEvent | None = None) -> HookOutput:
    """The host's answer meaning "carry on" for this event (empty output if even that fails)."""
    try:
        if event is None:
            canonical = platform.events.get(host_event, "")
            event = HookEvent(platform.id, canonical, host_event=host_event)
        output = platform.render(event, None)
        return output if isinstance(output, HookOutput) else HookOutput()
    except Exception:
        return HookOutput()


def read_payload(read_stdin: Callable[[], bytes], platform_id: str, host_event: str) -> dict:
    """The parsed payload; unreadable or malformed input is logged and treated as {}."""
    from ctxmode.hooks.stdin import PayloadError, parse_payload

    try:
        return parse_payload(read_stdin())
    except (PayloadError, OSError) as error:
        log_error(platform_id, host_event, f"bad input: {error}")
        return {}


def run(platform: Platform, host_event: str, read_stdin: Callable[[], bytes]) -> HookOutput:
    """Answer `ctxmode hook <platform.id> <host_event>` for the payload `read_stdin` returns."""
    started = time.perf_counter()
    host_event = host_event.lower()
    if host_event not in platform.events:
        output = noop(platform, host_event)
        known = ", ".join(sorted(platform.events)) or "none: this host has no hooks"
        output.stderr = (
            f"ctxmode hook: unknown {platform.id} event {host_event!r} (known: {known})\n"
        )
        return output
    event = None
    try:
        from ctxmode.hooks.handlers import handle

        payload = read_payload(read_stdin, platform.id, host_event)
        event = platform.parse(payload, host_event)
        decision = handle(event, platform)
        output = platform.render(event, decision)
        if not isinstance(output, HookOutput):
            raise TypeError(f"render returned {type(output).__name__}, not HookOutput")
        from ctxmode.hooks import tally

        tally.record(event, decision, started)  # for `ctxmode insight`; never raises
        return output
    except BaseException as error:  # a hook answers no matter what
        if isinstance(error, KeyboardInterrupt):
            raise
        log_error(platform.id, host_event, _describe(error))
        return noop(platform, host_event, event)


def _describe(error: BaseException) -> str:
    """One log line: our own errors (a full or read-only data root) by their message, bugs
    with their traceback."""
    from ctxmode.errors import CtxmodeError

    if isinstance(error, CtxmodeError):
        return f"{type(error).__name__}: {error}"
    import traceback

    return "".join(traceback.format_exception(error)).strip().replace("\n", " | ")
