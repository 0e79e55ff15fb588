"""The routing block as a marked section of the instruction file a host reads at start.

For hosts that cannot inject context at session start (`Platform.can_inject_context`
false), `ctxmode setup` writes the block between two marker lines into the file the
host reads (AGENTS.md, GEMINI.md, ...). The user's own text around it is kept; setting
up again replaces the section in place, `--uninstall` takes it out (and deletes a file
that held nothing else). Off the hook path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxmode.platforms._install import Change, read_text
from ctxmode.vocab.toolnames import SERVER_NAME

if TYPE_CHECKING:
    from ctxmode.vocab.platform import Platform

BEGIN = "<!-- ctxmode routing: begin (written by `ctxmode setup`, removed by --uninstall) -->"
END = "<!-- ctxmode routing: end -->"


def with_section(text: str | None, body: str) -> str:
    """`text` with our section holding `body`: replaced where it is, else appended after
    a blank line."""
    section = f"{BEGIN}\n{body.strip()}\n{END}\n"
    text = text or ""
    start, end = _bounds(text)
    if start >= 0:
        return text[:start] + section + text[end:]
    if not text:
        return section
    # Always exactly one blank line of ours before the section, so `without_section` can
    # take it back out without guessing (a user's own trailing blank lines stay).
    return text + ("\n" if text.endswith("\n") else "\n\n") + section


def without_section(text: str | None) -> str | None:
    """`text` minus our section; None (delete the file) when nothing would be left."""
    if text is None:
        return None
    start, end = _bounds(text)
    if start < 0:
        return text
    head, tail = text[:start], text[end:]
    if not tail and head.endswith("\n\n"):
        head = head[:-1]  # the blank line `with_section` put before an appended section
    rest = head + tail
    return rest or None


def _bounds(text: str) -> tuple[int, int]:
    """Start of our BEGIN line and end of our END line (with its newline); (-1, -1) if absent."""
    start = text.find(BEGIN)
    if start < 0:
        return -1, -1
    end = text.find(END, start)
    if end < 0:  # a damaged section: take everything after BEGIN as ours
        return start, len(text)
    end += len(END)
    return start, end + 1 if text.startswith("\n", end) else end


def instruction_changes(platform: Platform, project_dir: str, uninstall: bool) -> list[Change]:
    """The change to the host's instruction file for `project_dir` ("" = user scope)."""
    if platform.installer.instructions is None:
        return []
    path = platform.installer.instructions(project_dir)
    if not path:
        return []
    before = read_text(path)
    if uninstall:
        return [Change(path, before, without_section(before))]
    from ctxmode.hooks.routing_block import routing_block

    block = routing_block(platform.tool_prefix(SERVER_NAME), "full")
    return [Change(path, before, with_section(before, block))]
