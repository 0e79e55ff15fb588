"""The hooks page: latency percentiles from the tally, and which hosts `doctor` finds set up."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass

HOST_CHECK_TTL_S = 60.0  # doctor reads every host's config files: not on every page load


@dataclass(frozen=True)
class Latency:
    host: str
    event: str
    calls: int
    p50: float
    p95: float
    p99: float
    worst: float


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def latencies(samples: dict[tuple[str, str, str], list[float]]) -> list[Latency]:
    """Per host and event, with an "all" row first, from (dir, host, event) -> milliseconds."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (_, host, event), values in samples.items():
        groups[(host, event)].extend(values)
    if groups:
        groups[("all", "all")] = [ms for values in groups.values() for ms in values]
    rows = []
    for (host, event), values in groups.items():
        values.sort()
        rows.append(
            Latency(
                host, event, len(values), percentile(values, 0.5), percentile(values, 0.95),
                percentile(values, 0.99), values[-1],
            )
        )  # fmt: skip
    return sorted(rows, key=lambda r: (r.host != "all", r.host, r.event))


class HostChecks:
    """`doctor`'s host-setup checks for one project root, recomputed at most once a minute."""

    def __init__(self, project_root: str) -> None:
        self.project_root = project_root
        self._lock = threading.Lock()
        self._at = 0.0
        self._checks: list = []

    def get(self) -> list:
        from ctxmode import doctor

        with self._lock:
            if time.monotonic() - self._at > HOST_CHECK_TTL_S:
                try:
                    self._checks = doctor.host_checks(self.project_root)
                except Exception as error:
                    failed = doctor.Check(
                        doctor.WARN,
                        f"host setup check failed: {doctor.explained(error, 'host setup')}",
                    )
                    self._checks = [failed]
                self._at = time.monotonic()
            return self._checks
