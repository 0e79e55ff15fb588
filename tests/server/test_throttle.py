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
