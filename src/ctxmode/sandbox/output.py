"""A child's output: a spool file it writes to directly, read back in bounded pieces.

The child's stdout/stderr are unnamed temporary files (not pipes), so a 50 MB
output costs disk, not memory, a grandchild holding the stream open cannot
block us, and nothing is lost when the process group is killed. In memory we
keep only a head and a tail of each stream plus the diagnostic lines.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxmode.sandbox.diagnostics import DiagnosticCollector

if TYPE_CHECKING:
    from typing import IO

IN_MEMORY_BYTES = 64 * 1024  # at most this is held whole in memory
HEAD_BYTES = 16 * 1024
TAIL_BYTES = 16 * 1024
READ_CHUNK = 1024 * 1024


class Spool:
    """A file holding one stream's bytes: unnamed (gone once closed) unless `name` is given.

    A named spool is for a backgrounded process, which goes on writing after we return.
    """

    def __init__(self, directory: str, name: str | None = None) -> None:
        self._file: IO[bytes]
        if name is None:
            self._file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        else:
            self._file = open(os.path.join(directory, name), "w+b")  # noqa: SIM115

    @classmethod
    def existing(cls, path: str) -> Spool:
        """A spool over a file another program wrote: read only, left in place when closed."""
        spool = cls.__new__(cls)
        spool._file = open(path, "rb")  # noqa: SIM115
        return spool

    def fileno(self) -> int:
        return self._file.fileno()

    def size(self) -> int:
        return os.fstat(self._file.fileno()).st_size

    def read_bytes(self, offset: int, size: int) -> bytes:
        return os.pread(self._file.fileno(), size, offset)

    def iter_lines_bytes(self, chunk_bytes: int = READ_CHUNK) -> Iterator[bytes]:
        """The raw bytes in pieces ending at a newline (unless one line exceeds `chunk_bytes`)."""
        offset, pending = 0, b""
        while True:
            data = self.read_bytes(offset, chunk_bytes)
            if not data:
                break
            offset += len(data)
            data = pending + data
            cut = data.rfind(b"\n") + 1
            if cut == 0 and len(data) < chunk_bytes:
                pending = data
                continue
            cut = cut or len(data)
            pending = data[cut:]
            yield data[:cut]
        if pending:
            yield pending

    def iter_text(self, chunk_bytes: int = READ_CHUNK) -> Iterator[str]:
        """The text, decoded as UTF-8 in pieces ending at line ends (as `iter_lines_bytes`)."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for piece in self.iter_lines_bytes(chunk_bytes):
            text = decoder.decode(piece)
            if text:
                yield text
        rest = decoder.decode(b"", final=True)
        if rest:
            yield rest

    def truncate(self, size: int) -> None:
        os.ftruncate(self._file.fileno(), size)

    @property
    def closed(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        self._file.close()


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


@dataclass
class StreamOutput:
    """One stream after the run: sizes, a head and a tail in memory, the rest on disk."""

    byte_count: int
    head: str  # the whole text when `complete`
    tail: str = ""
    complete: bool = True
    spool: Spool | None = field(default=None, repr=False)

    def text(self, max_bytes: int = IN_MEMORY_BYTES) -> str:
        """The whole text; ValueError if it is larger than `max_bytes` (use `iter_text`)."""
        if self.complete:
            return self.head
        if self.byte_count > max_bytes:
            raise ValueError(f"output is {self.byte_count} bytes; read it with iter_text()")
        return "".join(self.iter_text())

    def iter_text(self, chunk_bytes: int = READ_CHUNK) -> Iterator[str]:
        """The whole text in bounded pieces (from the spool when it did not fit in memory)."""
        if self.complete or self.spool is None or self.spool.closed:
            if self.head:
                yield self.head
            return
        yield from self.spool.iter_text(chunk_bytes)

    def read(self, offset: int, size: int) -> str:
        """`size` bytes from byte `offset`, decoded (a split character becomes U+FFFD)."""
        if self.complete or self.spool is None:
            return _decode(self.head.encode("utf-8")[offset : offset + size])
        return _decode(self.spool.read_bytes(offset, size))

    def bounded_text(self, max_bytes: int) -> str:
        """The whole text if within `max_bytes`, else its first and last halves and a marker."""
        if self.byte_count <= max_bytes:
            return "".join(self.iter_text())
        half = max_bytes // 2
        first = self.read(0, half)
        first = first[: first.rfind("\n") + 1] or first
        last = self.read(self.byte_count - half, half)
        last = last[last.find("\n") + 1 :] or last
        skipped = self.byte_count - len(first.encode()) - len(last.encode())
        return f"{first}[… {skipped:,} bytes left out here …]\n{last}"

    @property
    def is_blank(self) -> bool:
        return not (self.head.strip() or self.tail.strip())


def empty_stream() -> StreamOutput:
    return StreamOutput(byte_count=0, head="")


def summarize_spool(spool: Spool, collector: DiagnosticCollector) -> StreamOutput:
    """Read the spool once: feed every line to `collector`, keep a head and a tail."""
    size = spool.size()
    if size <= IN_MEMORY_BYTES:
        data = spool.read_bytes(0, size)
        collector.feed(data)
        return StreamOutput(byte_count=size, head=_decode(data), spool=spool)
    for piece in spool.iter_lines_bytes():
        collector.feed(piece)
    head = _decode(spool.read_bytes(0, HEAD_BYTES))
    newline = head.rfind("\n")
    if newline > 0:
        head = head[: newline + 1]
    tail = _decode(spool.read_bytes(size - TAIL_BYTES, TAIL_BYTES))
    newline = tail.find("\n")
    if 0 <= newline < len(tail) - 1:
        tail = tail[newline + 1 :]
    return StreamOutput(byte_count=size, head=head, tail=tail, complete=False, spool=spool)
