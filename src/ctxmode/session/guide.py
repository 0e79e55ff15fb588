"""The session guide: what a compacted session needs to carry on, under a byte budget.

`build_guide(events, ...)` derives sections from the stored events (pure), then fills
them by priority: the last request, pending tasks, modified files, unresolved errors and
decisions claim bytes first; each section also has its own cap, and the whole text
(header, sections, search footer) never exceeds the total budget.
"""

from __future__ import annotations

from ctxmode import settings
from ctxmode.session.model import StoredEvent, clip, one_line

DEFAULT_BUDGET = 2_048
MIN_BUDGET = 512
DONE_STATUSES = frozenset(("completed", "complete", "done", "cancelled", "canceled", "deleted"))

# (key, heading, section byte cap) in display order: the sections of the Node.js
# context-mode's session guide, under the same headings, plus our extra ones.
SECTIONS = (
    ("last_request", "Last Request", 420),
    ("tasks", "Pending Tasks", 480),
    ("decisions", "Key Decisions", 480),
    ("files", "Files Modified", 360),
    ("errors", "Unresolved Errors", 380),
    ("git", "Git", 260),
    ("rules", "Rules", 160),
    ("environment", "Environment", 260),
    ("goal", "Goal", 180),
    ("constraints", "Constraints", 220),
    ("blockers", "Blockers", 200),
    ("rejected", "Rejected Approaches", 220),
    ("plan", "Plan Mode", 160),
    ("subagents", "Subagent Findings", 300),
    ("skills", "Skills Used", 120),
    ("mcp", "MCP Tools Used", 140),
    ("data", "Data References", 200),
    ("role", "User Role", 140),
    ("intent", "Session Intent", 60),
    ("reads", "Files Read", 160),
)
# Which sections get bytes first when the budget is tight.
FILL_ORDER = (
    "last_request", "tasks", "files", "errors", "decisions", "git", "environment", "goal",
    "constraints", "blockers", "rules", "rejected", "plan", "subagents", "role", "intent",
    "skills", "mcp", "data", "reads",
)  # fmt: skip


def budget_from_env() -> int:
    return settings.integer(settings.SNAPSHOT_BUDGET)


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


# ------------------------------------------------------------------ sections (pure)


def _last(events: list[StoredEvent], *types: str) -> StoredEvent | None:
    for event in reversed(events):
        if event.type in types:
            return event
    return None


def _unique_recent(values: list[str], limit: int) -> list[str]:
    """The last `limit` distinct values, most recent first."""
    seen: list[str] = []
    for value in reversed(values):
        if value and value not in seen:
            seen.append(value)
        if len(seen) >= limit:
            break
    return seen


def pending_tasks(events: list[StoredEvent]) -> list[str]:
    lines: list[str] = []
    task_list = _last(events, "task_list")
    if task_list is not None:
        for line in task_list.data.splitlines():
            status, _, text = line.partition("\t")
            if status not in DONE_STATUSES and text:
                lines.append(f"[{status}] {text}")
    created: dict[str, str] = {}
    status_of: dict[str, str] = {}
    for event in events:
        if event.type == "task_create":
            task_id, _, subject = event.data.partition("\t")
            created[task_id or str(event.id)] = subject
        elif event.type == "task_update":
            task_id, _, rest = event.data.partition("\t")
            status, _, subject = rest.partition("\t")
            status_of[task_id] = status
            if subject and task_id not in created:
                created[task_id] = subject
    for task_id, subject in created.items():
        status = status_of.get(task_id, "pending")
        if status not in DONE_STATUSES and subject:
            lines.append(f"[{status}] {subject}")
    return lines


def modified_files(events: list[StoredEvent]) -> list[str]:
    counts: dict[str, int] = {}
    order: list[str] = []
    for event in events:
        if event.type in ("file_edit", "file_write"):
            counts[event.data] = counts.get(event.data, 0) + 1
            if event.data in order:
                order.remove(event.data)
            order.append(event.data)
    return [f"{p} (×{counts[p]})" if counts[p] > 1 else p for p in reversed(order)]


def unresolved_errors(events: list[StoredEvent]) -> list[str]:
    fixed = {e.ref for e in events if e.type == "error_resolved" and e.ref is not None}
    open_errors = [
        one_line(e.data, 200) for e in events if e.type == "error_tool" and e.id not in fixed
    ]
    return _unique_recent(open_errors, 5)


def decisions(events: list[StoredEvent]) -> list[str]:
    values = [one_line(e.data, 180) for e in events if e.type in ("decision", "question_answered")]
    return _unique_recent(values, 8)


def git_lines(events: list[StoredEvent]) -> list[str]:
    lines = []
    branch = _last(events, "git_branch")
    if branch is not None:
        lines.append(branch.data)
    commits = [one_line(e.data, 140) for e in events if e.type == "git_commit"]
    lines.extend(_unique_recent(commits, 3))
    ops = [e.data.split(" ", 1)[0] for e in events if e.type == "git"]
    if ops:
        lines.append("ops: " + ", ".join(reversed(_unique_recent(ops, 8))))
    return lines


def environment(events: list[StoredEvent]) -> list[str]:
    lines = []
    cwd = _last(events, "cwd")
    if cwd is not None:
        lines.append(f"cwd: {cwd.data.removeprefix('cd ')}")
    lines.extend(_unique_recent([e.data for e in events if e.category == "env"], 5))
    return lines


def counts(events: list[StoredEvent], kind: str) -> list[str]:
    tally: dict[str, int] = {}
    for event in events:
        if event.type == kind:
            name = event.data.split(":", 1)[0]
            tally[name] = tally.get(name, 0) + 1
    ordered = sorted(tally.items(), key=lambda item: -item[1])
    return [", ".join(f"{name}({n})" for name, n in ordered[:10])] if ordered else []


def blockers(events: list[StoredEvent]) -> list[str]:
    open_blockers: list[str] = []
    for event in events:
        if event.type == "blocker":
            open_blockers.append(one_line(event.data, 180))
        elif event.type == "blocker_resolved":
            open_blockers.clear()
    return _unique_recent(open_blockers, 3)


def plan_state(events: list[StoredEvent]) -> list[str]:
    last = _last(events, "plan_enter", "plan_exit", "plan_approved", "plan_rejected")
    if last is None:
        return []
    state = {"plan_enter": "ACTIVE: planning, do not edit yet", "plan_exit": "COMPLETED",
             "plan_approved": "APPROVED: implement the plan", "plan_rejected": "REJECTED: revise the plan"}[last.type]  # fmt: skip
    return [f"{state} {one_line(last.data, 120)}".strip()]


def short_path(path: str) -> str:
    """The last two segments of a path (`.claude/CLAUDE.md`)."""
    return "/".join(path.replace("\\", "/").rstrip("/").rsplit("/", 2)[-2:])


def section_lines(events: list[StoredEvent]) -> dict[str, list[str]]:
    """Every section's candidate lines, most important first (empty sections omitted later)."""
    main = [e for e in events if not e.agent_id]
    prompt = _last(main, "user_prompt")

    def by_type(*types: str) -> list[str]:
        return [e.data for e in events if e.type in types]

    return {
        "last_request": [clip(" ".join(prompt.data.split()), 300)] if prompt is not None else [],
        "tasks": pending_tasks(events),
        "decisions": decisions(main),
        "files": modified_files(events),
        "errors": unresolved_errors(events),
        "git": git_lines(events),
        "rules": _unique_recent([short_path(p) for p in by_type("rule")], 6),
        "environment": environment(events),
        "goal": _unique_recent(by_type("goal"), 1),
        "constraints": _unique_recent([one_line(d, 180) for d in by_type("constraint")], 3),
        "blockers": blockers(main),
        "rejected": _unique_recent(
            [one_line(d, 180) for d in by_type("rejected", "plan_rejected")], 3
        ),
        "plan": plan_state(events),
        "subagents": _unique_recent([one_line(d, 240) for d in by_type("agent_finding")], 3),
        "skills": counts(events, "skill"),
        "mcp": counts(events, "mcp"),
        "data": _unique_recent([one_line(d, 150) for d in by_type("data", "external_ref")], 6),
        "role": _unique_recent(by_type("role"), 1),
        "intent": _unique_recent([e.data for e in main if e.type == "intent"], 1),
        "reads": _unique_recent(by_type("file_read"), 6),
    }


# ------------------------------------------------------------------ budgeted rendering


def _fit_section(heading: str, lines: list[str], limit: int) -> str:
    """`## heading` and as many lines as fit in `limit` bytes ("" if not even one)."""
    bullet = heading not in ("Last Request", "Goal", "Session Intent", "User Role")
    out = f"## {heading}\n"
    used = nbytes(out)
    kept = 0
    for line in lines:
        item = (f"- {line}" if bullet else line) + "\n"
        size = nbytes(item)
        if used + size > limit:
            if kept == 0 and limit - used > 40:  # a long first item: keep a clipped version
                room = limit - used - 2
                item = clip_bytes(item.rstrip("\n"), room) + "\n"
                out, used, kept = out + item, used + nbytes(item), 1
            break
        out, used, kept = out + item, used + size, kept + 1
    return out if kept else ""


def clip_bytes(text: str, limit: int) -> str:
    """`text` cut so its UTF-8 form is at most `limit` bytes (ellipsis included)."""
    if nbytes(text) <= limit:
        return text
    data = text.encode("utf-8")[: max(0, limit - 3)]
    return data.decode("utf-8", "ignore").rstrip() + "…"


def build_guide(
    events: list[StoredEvent],
    *,
    budget: int = DEFAULT_BUDGET,
    source: str = "compact",
    compactions: int = 0,
    search_tool: str = "ctx_search",
) -> str:
    """The guide text, at most `budget` UTF-8 bytes; "" when there is nothing to carry over."""
    lines = section_lines(events)
    if not any(lines.values()):
        return ""
    header = (
        f'<session_guide source="{source}" events="{len(events)}" compactions="{compactions}">\n'
    )
    footer = _footer(search_tool, search_queries(lines))
    if nbytes(header) + nbytes(footer) + 80 > budget:  # a tiny budget: the short footer
        footer = _footer(search_tool, '["last request"]')
    left = budget - nbytes(header) - nbytes(footer)
    caps = {key: cap for key, _, cap in SECTIONS}
    rendered: dict[str, str] = {}
    for key in FILL_ORDER:
        if not lines.get(key) or left < 40:
            continue
        heading = next(h for k, h, _ in SECTIONS if k == key)
        text = _fit_section(heading, lines[key], min(caps[key], left))
        if text:
            rendered[key] = text
            left -= nbytes(text)
    if not rendered:
        return ""
    body = "".join(rendered[key] for key, _, _ in SECTIONS if key in rendered)
    return header + body + footer


def _footer(search_tool: str, queries: str) -> str:
    return (
        '</session_guide>\n<session_search>Full history indexed as source "session-events": '
        f'{search_tool}(queries: {queries}, source: "session-events")</session_search>'
    )


def search_queries(lines: dict[str, list[str]]) -> str:
    """Up to 3 short suggested queries (a JSON-style list) from what the guide mentions."""
    picks = []
    for key in ("errors", "files", "decisions"):
        if lines.get(key):
            picks.append(one_line(lines[key][0], 40).replace('"', "'").replace("\\", "/"))
    picks = picks or ["last request"]
    return "[" + ", ".join(f'"{p}"' for p in picks[:3]) + "]"


def history_markdown(events: list[StoredEvent], session_id: str) -> str:
    """The whole event history as markdown, for the knowledge base (`session-events`)."""
    out = [f"# Session {session_id}\n"]
    current = ""
    for event in sorted(events, key=lambda e: (e.category, e.id)):
        if event.category != current:
            current = event.category
            out.append(f"\n## {current}\n")
        who = f" (agent {event.agent_id})" if event.agent_id else ""
        out.append(f"- {event.type}{who}: {event.data}\n")
    return "".join(out)
