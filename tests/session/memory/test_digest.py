"""The output digest: counts, error lines and the last line, whatever the chunking."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.session.memory.digest import MAX_ERROR_LINES, StreamDigest, render_digest


def digest_of(data: bytes, cuts: list[int] | None = None) -> StreamDigest:
    digest = StreamDigest()
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts or [])})
    for start, end in itertools.pairwise(points):
        digest.feed(data[start:end])
    digest.close()
    return digest


def test_counts_error_lines_and_the_last_line() -> None:
    data = b"starting\nERROR: disk full on /var\nok\nTraceback (most recent call last):\ndone\n"
    digest = digest_of(data)
    assert digest.lines == 5
    assert digest.bytes == len(data)
    assert digest.error_lines == ["ERROR: disk full on /var", "Traceback (most recent call last):"]
    assert digest.last_line == "done"


def test_an_unterminated_last_line_counts() -> None:
    digest = digest_of(b"a\nb")
    assert (digest.lines, digest.last_line) == (2, "b")


def test_only_a_few_error_lines_are_kept_and_the_rest_counted() -> None:
    out = digest_of(b"".join(b"error %d\n" % i for i in range(50)))
    text = render_digest("make", 2, out, StreamDigest())
    assert len(out.error_lines) == MAX_ERROR_LINES
    assert f"error lines (+{50 - MAX_ERROR_LINES} more):" in text
    assert text.startswith("$ make\nexit 2; stdout 50 lines")


def test_a_giant_line_keeps_memory_bounded() -> None:
    digest = StreamDigest()
    for _ in range(200):
        digest.feed(b"z" * 65536)
    digest.feed(b" the end\n")
    digest.close()
    assert digest.lines == 1
    assert digest.last_line.endswith("...") or digest.last_line.endswith("the end")
    assert len(digest.last_line) <= 200


@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=20))
def test_chunking_does_not_change_the_digest(data: bytes, cuts: list[int]) -> None:
    whole, pieces = digest_of(data), digest_of(data, cuts)
    assert (whole.lines, whole.bytes, whole.error_lines, whole.last_line) == (
        pieces.lines,
        pieces.bytes,
        pieces.error_lines,
        pieces.last_line,
    )
