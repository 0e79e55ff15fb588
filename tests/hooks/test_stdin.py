"""Reading and parsing hook payloads: idle timeout, partial input, BOM, malformed JSON."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.hooks.stdin import (
    PayloadError,
    _read_with_alarm,
    _read_with_poll,
    idle_timeout_ms,
    loads,
    parse_payload,
    read_stdin,
)


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        try:
            os.close(fd)
        except OSError:
            pass


def _alarm_read(fd: int, idle_ms: int) -> bytes:
    chunks: list[bytes] = []
    assert _read_with_alarm(fd, idle_ms, chunks), "SIGALRM was not free to use"
    return b"".join(chunks)


# Both ways of reading: the hook process's (SIGALRM interrupts a blocking read; the test
# runner's own timeout, which uses the same alarm, is off for it) and select()'s, used
# where the alarm is taken.
READERS = [
    pytest.param(_alarm_read, marks=pytest.mark.timeout(0), id="alarm"),
    pytest.param(_read_with_poll, id="poll"),
]


@pytest.mark.parametrize("read", READERS)
def test_reads_everything_up_to_eof(pipe, read):
    read_fd, write_fd = pipe
    payload = b'{"a": "' + b"x" * 3_000_000 + b'"}'
    writer = threading.Thread(target=lambda: (os.write(write_fd, payload), os.close(write_fd)))
    writer.start()
    data = read(read_fd, 5000)
    writer.join()
    assert data == payload


@pytest.mark.parametrize("read", READERS)
def test_a_silent_open_pipe_gives_empty_input(pipe, read):
    read_fd, _write_fd = pipe
    assert read(read_fd, 50) == b""


@pytest.mark.parametrize("read", READERS)
def test_partial_input_at_the_idle_timeout_is_an_error_not_a_payload(pipe, read):
    read_fd, write_fd = pipe
    os.write(write_fd, b'{"tool_name": "Ba')
    with pytest.raises(PayloadError, match="17 bytes buffered"):
        read(read_fd, 50)


@pytest.mark.parametrize("read", READERS)
def test_a_closed_stdin_reads_as_empty(pipe, read):
    read_fd, write_fd = pipe
    os.close(write_fd)
    assert read(read_fd, 50) == b""


@pytest.mark.timeout(0)
def test_the_alarm_is_left_alone_when_it_is_taken(pipe):
    read_fd, write_fd = pipe
    os.write(write_fd, b"{}")
    os.close(write_fd)
    previous = signal.signal(signal.SIGALRM, lambda *_: None)  # someone else's alarm
    try:
        assert not _read_with_alarm(read_fd, 50, [])
        assert read_stdin(read_fd, idle_ms=50) == b"{}"  # select() read it instead
        assert signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL  # still theirs
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_idle_timeout_from_environment(monkeypatch):
    monkeypatch.delenv("CTXMODE_HOOK_STDIN_IDLE_MS", raising=False)
    monkeypatch.setenv("CONTEXT_MODE_HOOK_STDIN_IDLE_MS", "250")
    assert idle_timeout_ms() == 250
    monkeypatch.setenv("CTXMODE_HOOK_STDIN_IDLE_MS", "40")
    assert idle_timeout_ms() == 40
    for bad in ("abc", "-5", "0", "99999999"):
        monkeypatch.setenv("CTXMODE_HOOK_STDIN_IDLE_MS", bad)
        assert idle_timeout_ms() == 1500


def test_bom_whitespace_and_empty_input():
    assert parse_payload(b'\xef\xbb\xbf {"a": 1}\n') == {"a": 1}
    assert parse_payload(b"") == {}
    assert parse_payload(b" \n\t") == {}
    assert parse_payload(b"\xef\xbb\xbf") == {}


@pytest.mark.parametrize("data", [b"{", b"[1, 2]", b'"text"', b"{} {}", b"nul", b"{'a': 1}"])
def test_malformed_or_non_object_payloads_raise(data):
    with pytest.raises(PayloadError):
        parse_payload(data)


def test_control_characters_and_constants_are_tolerated():
    assert parse_payload(b'{"a": "line\tone\x01", "n": NaN}')["a"] == "line\tone\x01"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), json_values, max_size=6))
def test_parses_what_json_writes(payload):
    assert parse_payload(json.dumps(payload).encode()) == payload
    assert loads(json.dumps(payload, ensure_ascii=False, indent=1)) == payload


@given(st.binary(max_size=400))
def test_random_bytes_give_a_dict_or_payload_error(data):
    try:
        assert isinstance(parse_payload(data), dict)
    except PayloadError:
        pass


def test_deep_nesting_is_a_payload_error_not_a_crash():
    with pytest.raises(PayloadError):
        parse_payload(b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
