"""Spools: bytes written by a child, read back whole, in pieces, or as a head and a tail."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.output import IN_MEMORY_BYTES, Spool, summarize_spool


def _spool_with(directory: Path, data: bytes) -> Spool:
    spool = Spool(str(directory))
    os.write(spool.fileno(), data)
    return spool


@settings(max_examples=50, deadline=None)
@given(text=st.text(max_size=3_000), chunk=st.integers(min_value=1, max_value=64))
def test_text_read_in_small_pieces_equals_the_original(
    tmp_path_factory: object, text: str, chunk: int
) -> None:
    directory = tmp_path_factory.mktemp("spool")  # type: ignore[attr-defined]
    spool = _spool_with(directory, text.encode("utf-8"))
    try:
        pieces = list(spool.iter_text(chunk))
        assert "".join(pieces) == text
        # pieces end at line ends unless one line is longer than a chunk (a character
        # split by that cut, up to 3 bytes, moves to the next piece)
        for piece in pieces[:-1]:
            assert piece.endswith("\n") or len(piece.encode()) >= chunk - 3
    finally:
        spool.close()


def test_a_large_spool_keeps_head_and_tail_and_reads_in_bounded_pieces(tmp_path: Path) -> None:
    lines = [f"line {i:06d}\n" for i in range(20_000)]
    spool = _spool_with(tmp_path, "".join(lines).encode())
    try:
        stream = summarize_spool(spool, DiagnosticCollector())
        assert stream.byte_count > IN_MEMORY_BYTES and not stream.complete
        assert stream.head.startswith("line 000000\n") and stream.head.endswith("\n")
        assert stream.tail.endswith("line 019999\n") and stream.tail.startswith("line ")
        assert stream.read(0, 12) == "line 000000\n"
        assert "".join(stream.iter_text(4096)) == "".join(lines)
        assert os.listdir(tmp_path) == []  # the spool has no name on disk
    finally:
        spool.close()
