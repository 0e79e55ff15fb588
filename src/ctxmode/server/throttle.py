"""The progressive ctx_search throttle: a rolling window per session key.

Within the window, the first `soft_after` calls get the full `limit`, later calls
get one result per query (with a note), and calls past `block_after` are refused
until the window rolls on. It nudges a model that searches in a loop towards
batching its questions, without ever hiding results silently.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ctxmode import settings


@dataclass(frozen=True)
class ThrottleSettings:
    window_s: float = 60.0
    soft_after: int = 3
    block_after: int = 8

    @classmethod
    def from_env(cls) -> ThrottleSettings:
        return cls(
            window_s=settings.integer(settings.SEARCH_WINDOW_MS) / 1000,
            soft_after=settings.integer(settings.SEARCH_MAX_RESULTS_AFTER),
            block_after=settings.integer(settings.SEARCH_BLOCK_AFTER),
        )


@dataclass(frozen=True)
class ThrottleVerdict:
    call_number: int  # this call's number within the window
    blocked: bool
    reduced: bool  # one result per query
    retry_after_s: float = 0.0


class SearchThrottle:
    def __init__(
        self,
        settings: ThrottleSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or ThrottleSettings.from_env()
        self._clock = clock
        self._calls: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> ThrottleVerdict:
        now = self._clock()
        with self._lock:
            calls = self._calls.setdefault(key, collections.deque())
            while calls and now - calls[0] >= self.settings.window_s:
                calls.popleft()
            number = len(calls) + 1
            if number > self.settings.block_after:
                retry = self.settings.window_s - (now - calls[0])
                return ThrottleVerdict(number, blocked=True, reduced=True, retry_after_s=retry)
            calls.append(now)
            return ThrottleVerdict(number, blocked=False, reduced=number > self.settings.soft_after)
