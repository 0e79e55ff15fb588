from ctxmode.server.throttle import SearchThrottle, ThrottleSettings


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_calls_reduce_then_block_then_recover_as_the_window_rolls():
    clock = FakeClock()
    throttle = SearchThrottle(ThrottleSettings(window_s=60, soft_after=3, block_after=8), clock)
    verdicts = [throttle.check("s") for _ in range(9)]
    assert [v.reduced for v in verdicts[:3]] == [False, False, False]
    assert all(v.reduced for v in verdicts[3:8])
    assert verdicts[8].blocked and not any(v.blocked for v in verdicts[:8])
    clock.now = 61
    assert not throttle.check("s").reduced


def test_sessions_are_throttled_separately():
    throttle = SearchThrottle(
        ThrottleSettings(window_s=60, soft_after=1, block_after=2), FakeClock()
    )
    throttle.check("a")
    throttle.check("a")
    assert throttle.check("a").blocked
    assert not throttle.check("b").blocked


def test_settings_come_from_env(monkeypatch):
    monkeypatch.setenv("CONTEXT_MODE_SEARCH_BLOCK_AFTER", "4")
    monkeypatch.setenv("CTXMODE_SEARCH_WINDOW_MS", "1000")
    settings = ThrottleSettings.from_env()
    assert settings.block_after == 4 and settings.window_s == 1.0


# ------------------------------------------------------------------ through the real server


def _index_before_the_server(project, label: str) -> None:
    from ctxmode.storage import project as projects
    from ctxmode.store.knowledge import KnowledgeBase

    root = projects.resolve_project_root(str(project))
    with KnowledgeBase.open(root) as kb:
        kb.index_text(label, "# Old\nThe old refund rule rounds half up.\n", "markdown")


def test_searches_scoped_to_this_sessions_sources_are_never_starved(mcp_run) -> None:
    """A notice's label: as many different searches of it as the model needs, in full;
    unscoped repeats are still reduced and then blocked."""
    _index_before_the_server(mcp_run.project, "old:notes")
    lines = "\n\n".join(f"## Failure {i}\nFAILED test_refund_{i}: expected {i} got {i + 1}"
                        for i in range(12))  # fmt: skip

    async def scenario(session):
        await session.call("ctx_index", content=lines, source="cmd:tests:20261206T1-abc123")
        scoped = [
            await session.call(
                "ctx_search",
                queries=[f"test_refund_{i}"],
                limit=2,
                source="cmd:tests:20261206T1-abc123",
            )
            for i in range(12)
        ]
        repeats = [
            await session.call(
                "ctx_search",
                queries=["test_refund_3"],
                limit=2,
                source="cmd:tests:20261206T1-abc123",
            )
            for _ in range(9)
        ]
        old = [await session.call("ctx_search", queries=["refund rule"], source="old:notes")
               for _ in range(4)]  # fmt: skip
        unscoped = [await session.call("ctx_search", queries=["refund"]) for _ in range(9)]
        return scoped, repeats, old, unscoped

    scoped, repeats, old, unscoped = mcp_run(scenario)
    for i, (text, is_error) in enumerate(scoped):
        assert not is_error and f"expected {i} got {i + 1}" in text, text
        assert "1 result per query" not in text
    assert "1 result per query" in repeats[3][0] and repeats[-1][1]  # a loop is still stopped
    assert "1 result per query" in old[-1][0]  # a source from before this session: throttled
    assert unscoped[-1][1] and "Search blocked" in unscoped[-1][0]
