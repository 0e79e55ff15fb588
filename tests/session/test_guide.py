"""The guide: sections from events, filled by priority under an explicit byte budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.session.guide import build_guide, nbytes
from ctxmode.session.model import StoredEvent


def ev(
    i: int, type_: str, data: str, category: str = "", agent: str = "", ref: int | None = None
) -> StoredEvent:
    return StoredEvent(i, category or type_, type_, 3, data, agent_id=agent, ref=ref)


def busy_session() -> list[StoredEvent]:
    events = [ev(1, "user_prompt", "Port the importer to asyncio", "prompt")]
    events += [ev(10 + i, "file_read", f"src/module_{i}.py", "file") for i in range(200)]
    events += [
        ev(300 + i, "external_ref", f"https://docs.example.com/page/{i}", "external-ref")
        for i in range(50)
    ]
    events += [
        ev(400 + i, "decision", f"Use structured logging everywhere number {i}", "decision")
        for i in range(30)
    ]
    events += [ev(500 + i, "file_edit", f"src/importer/part_{i}.py", "file") for i in range(40)]
    events += [
        ev(
            600,
            "task_list",
            "completed\tRead the old importer\npending\tSwitch to aiohttp\nin_progress\tPort the parser",
            "task",
        ),
        ev(601, "error_tool", "$ pytest tests/test_importer.py → FAILED test_timeout", "error"),
        ev(602, "user_prompt", "Keep going with the port, tests first", "prompt"),
    ]
    return events


def test_the_guide_stays_within_its_budget_and_keeps_the_critical_facts() -> None:
    for budget in (700, 1024, 2048, 4096):
        guide = build_guide(busy_session(), budget=budget)
        assert nbytes(guide) <= budget
        assert "Keep going with the port" in guide
        assert "Switch to aiohttp" in guide and "Port the parser" in guide
    guide = build_guide(busy_session(), budget=2048)
    assert "src/importer/part_39.py" in guide
    assert "FAILED test_timeout" in guide
    assert "Use structured logging everywhere number 29" in guide
    assert "Read the old importer" not in guide


def test_fixed_errors_are_not_listed() -> None:
    events = [
        ev(1, "user_prompt", "fix it", "prompt"),
        ev(2, "error_tool", "$ pytest → FAILED a", "error"),
        ev(3, "error_resolved", "fixed by $ pytest", "error", ref=2),
    ]
    assert "Unresolved Errors" not in build_guide(events)


def test_a_subagent_prompt_never_becomes_the_last_request() -> None:
    events = [
        ev(1, "user_prompt", "Audit auth", "prompt"),
        ev(2, "user_prompt", "grep login", "prompt", agent="a1"),
    ]
    guide = build_guide(events)
    assert "Audit auth" in guide and "grep login" not in guide


def test_nothing_to_carry_gives_an_empty_guide() -> None:
    assert build_guide([]) == ""
    assert build_guide([ev(1, "session_start", "startup", "session")]) == ""


EVENT_TYPES = st.sampled_from(
    ["user_prompt", "decision", "file_edit", "file_write", "error_tool", "git_commit", "git_branch",
     "cwd", "env", "rule", "agent_finding", "skill", "mcp", "external_ref", "file_read", "goal",
     "blocker", "constraint", "rejected", "intent", "role", "task_list", "task_create"]
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(EVENT_TYPES, st.text(min_size=1, max_size=400)), max_size=120),
    st.integers(min_value=512, max_value=5000),
)
def test_any_events_any_budget_the_guide_fits(items: list[tuple[str, str]], budget: int) -> None:
    events = [ev(i, t, d) for i, (t, d) in enumerate(items)]
    assert nbytes(build_guide(events, budget=budget)) <= budget
