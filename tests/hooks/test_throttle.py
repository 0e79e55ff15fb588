"""Once-per-session and periodic nudges, shared by concurrent processes, and stale cleanup."""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.hooks import throttle


def test_first_time_is_true_once_per_session_and_kind(data_root):
    assert throttle.first_time("s1", "bash")
    assert not throttle.first_time("s1", "bash")
    assert throttle.first_time("s1", "read")
    assert throttle.first_time("s2", "bash")
    assert os.path.isdir(data_root / "throttle" / "s-s1")


def test_every_nth_fires_on_1_n_plus_1_and_so_on(data_root):
    fired = [throttle.every_nth("s", "external-mcp", 3) for _ in range(7)]
    assert fired == [True, False, False, True, False, False, True]


def _count(session: str) -> int:
    return throttle.count_call(session, "external-mcp")


def test_concurrent_counting_loses_no_increment(data_root):
    with ProcessPoolExecutor(max_workers=4) as pool:
        counts = list(pool.map(_count, ["shared"] * 40))
    assert sorted(counts) == list(range(1, 41))


@given(st.text(max_size=200))
def test_session_keys_are_single_safe_file_names(session_id):
    key = throttle.session_key(session_id)
    assert key and "/" not in key and "\\" not in key and "\0" not in key
    assert key not in (".", "..") and len(key) <= 130


def test_distinct_unsafe_ids_get_distinct_keys():
    assert throttle.session_key("a/b") != throttle.session_key("a_b")
    assert throttle.session_key("../x") != throttle.session_key("..-x")


def test_stale_sessions_are_removed_when_a_new_session_starts(data_root):
    throttle.first_time("old", "bash")
    throttle.first_time("recent", "bash")
    old_dir = data_root / "throttle" / "s-old"
    long_ago = time.time() - 8 * 24 * 3600
    for path in (old_dir / "bash", old_dir):
        os.utime(path, (long_ago, long_ago))
    throttle.first_time("new", "bash")  # creating a session dir sweeps stale ones
    assert not old_dir.exists()
    assert (data_root / "throttle" / "s-recent").exists()
