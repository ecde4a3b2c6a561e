"""Stream a (possibly gzipped) Chrome-trace JSON document as chunks of whole events.

Why not `json.load`: a 500 MB trace becomes 3 GB of dicts, and a small gzip can expand to
gigabytes. Instead the decompressed bytes are read in blocks and cut at top-level event
boundaries (`}` `,` `{` with only whitespace between), so each chunk `[chunk]` is a JSON
array of events that a typed decoder reads on its own, and memory stays bounded by the chunk
size plus the columns already built.

A cut can never silently change the meaning: a boundary found inside a string or a nested
object leaves an unterminated string or an unbalanced bracket in the left chunk, so its
decode fails at its very end; the caller then joins that chunk with the next ones (each
piece carries the separator text that follows it, so the join is the exact original text)
until they decode, in memory bounded by the largest event (see `chunked`).
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from mindinsight_profiler.errors import InputError

BLOCK_BYTES = 8 << 20
CHUNK_BYTES = 16 << 20
#: The document head (everything before the events array) must fit in this.
MAX_HEAD_BYTES = 64 << 20
#: No single event is this large; more bytes without a boundary means the file is not a trace.
MAX_EVENT_BYTES = 256 << 20

_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
# After an event's closing brace: a comma, the next event's brace and its first key's quote.
_AFTER_BRACE = re.compile(rb"\s*,\s*\{\s*\"")
#: The first two bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")

ProgressFn = Callable[[int, int], None]


@dataclass
class Piece:
    """One item of the stream: the document head, a chunk of events, or the tail."""

    #: "head", "events", "end" (the last events, the closing `]` and the tail, to be cut
    #: with `split_end`), or "whole" (a document without an events array)
    kind: str
    #: The piece's text; for "events", the events framed as one JSON array, `[` + events +
    #: `]`, ready to decode (framed as it is copied out of the stream: no second copy)
    data: bytes
    offset: int  # offset of the (unframed) text in the decompressed document (for errors)
    #: The separator text between this chunk of events and the next (`events + gap + next
    #: events` is the original text), used to join chunks when a cut fell inside an event.
    gap: bytes = b""
    bare: bool = False  # "end" of a bare JSON array (no tail)


class _CountingReader(io.RawIOBase):
    """Counts compressed bytes consumed so that progress can be reported for gzip input."""

    def __init__(self, raw: io.BufferedReader) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.raw.readinto(b)
        self.count += n or 0
        return n or 0


def _decompress_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean "corrupt compressed data" for whichever gzip reader is used."""
    errors: list[type[BaseException]] = [OSError, EOFError, ValueError, zlib.error]
    try:
        from isal import isal_zlib

        errors.append(cast(type[BaseException], isal_zlib.error))
    except ImportError:  # pragma: no cover - depends on the platform
        pass
    return tuple(errors)


_DECOMPRESS_ERRORS = _decompress_errors()


def _gzip_reader(fileobj: io.RawIOBase) -> io.BufferedIOBase:
    """A streaming gzip reader; ISA-L's is ~3x faster than zlib when installed."""
    try:
        from isal import igzip

        return cast(io.BufferedIOBase, igzip.IGzipFile(fileobj=fileobj, mode="rb"))
    except ImportError:  # pragma: no cover - depends on the platform
        return gzip.GzipFile(fileobj=fileobj, mode="rb")


def iter_blocks(path: Path, progress: ProgressFn | None = None) -> Iterator[bytes]:
    """Decompressed blocks of `path`; whitespace-only blocks shrink to one space."""
    try:
        total = path.stat().st_size
        raw_file = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    with raw_file as raw:
        magic = raw.read(2)
        raw.seek(0)
        counter = _CountingReader(raw)
        reader = _gzip_reader(counter) if magic == GZIP_MAGIC else counter
        while True:
            try:
                block = reader.read(BLOCK_BYTES)
            except _DECOMPRESS_ERRORS as exc:
                raise InputError(path, f"cannot decompress: {exc}") from None
            if not block:
                return
            if progress is not None:
                progress(counter.count, total)
            yield b" " if block.isspace() else block


def _last_boundary(buf: bytes | bytearray) -> tuple[int, int] | None:
    """(end of left part, start of right part) of the last `}` `,` `{` in `buf`, if any."""
    pos = len(buf)
    while True:
        i = buf.rfind(b"}", 0, pos)
        if i < 0:
            return None
        m = _AFTER_BRACE.match(buf, i + 1)
        if m:
            return i + 1, buf.rindex(b"{", i, m.end())
        pos = i


def split_end(path: Path, rest: bytes, bare_array: bool) -> tuple[bytes, bytes]:
    """Split the document's last text into (last events, tail) at the last `]` a tail may
    follow. A tail with brackets of its own (`], "deviceProperties": [{...}]}`) can make
    this guess too late; decoding the events then stops at the true `]` ("trailing
    characters"), and `resplit_end` cuts there instead. The events keep their leading
    whitespace, so their offset stays that of `rest`."""
    pos = len(rest)
    for _ in range(64):
        k = rest.rfind(b"]", 0, pos)
        if k < 0:
            break
        tail = rest[k + 1 :]
        if bare_array and not tail.strip():
            return rest[:k].rstrip(), b""
        stripped = tail.lstrip()
        if not bare_array and (stripped.startswith((b"}", b","))):
            return rest[:k].rstrip(), tail
        pos = k
    raise InputError(path, "truncated JSON: the traceEvents array is not closed")


def resplit_end(rest: bytes, error: Exception) -> tuple[bytes, bytes] | None:
    """(events, tail) at the `]` where decoding `"[" + events + "]"` found the array closed
    early, or None when `error` is not that (or the text after it is no tail)."""
    m = _TRAILING.search(str(error))
    if m is None:
        return None
    # The position is just past the first trailing character ("[" + events: index N - 2).
    close = rest.rfind(b"]", 0, int(m.group(1)) - 1)
    tail = rest[close + 1 :]
    if close < 0 or tail.lstrip()[:1] not in (b"}", b","):
        return None
    return rest[:close].rstrip(), tail


def iter_pieces(path: Path, progress: ProgressFn | None = None) -> Iterator[Piece]:
    """Yield the head, then chunks of whole events, then the end of a trace document.

    The head is the document text before the events array (empty for a bare JSON array);
    the end holds the last events and the text after the array, to be cut by `split_end`
    once earlier cuts are known to be right. Raises InputError for empty files and documents
    with no events array; chunk contents are validated by the decoder, not here.
    """
    blocks = iter_blocks(path, progress)
    head = b""
    offset = 0
    bare_array = False
    head_end = start = 0  # the head is head[:head_end]; events begin at head[start:]
    for block in blocks:
        head += block
        stripped = head.lstrip()
        if stripped[:1] == b"[":
            bare_array = True
            start = len(head) - len(stripped) + 1
            break
        if stripped[:1] not in (b"{", b""):
            raise InputError(path, "not JSON: the file does not start with '{' or '['")
        m = _EVENTS_KEY.search(head)
        if m:
            head_end, start = m.start(), m.end()
            break
        if len(head) > MAX_HEAD_BYTES:
            raise InputError(path, "no traceEvents array in the first 64 MB: not a trace")
    else:
        if not head.strip():
            raise InputError(path, "the file is empty")
        yield Piece("whole", head, 0)
        return

    yield Piece("head", head[:head_end], 0)
    # One growing buffer: blocks are appended in place and cut chunks deleted from its
    # front (both amortised O(size) in CPython), each chunk copied out once, framed.
    pending = bytearray(head[start:])
    offset = start
    for block in blocks:
        pending += block
        if len(pending) < CHUNK_BYTES:
            continue
        cut = _last_boundary(pending)
        if cut is None:
            if len(pending) > MAX_EVENT_BYTES:
                raise InputError(path, f"no event boundary in {MAX_EVENT_BYTES >> 20} MB")
            continue
        left, right = cut
        with memoryview(pending) as view:
            framed = b"".join((b"[", view[:left], b"]"))
        yield Piece("events", framed, offset, bytes(pending[left:right]))
        offset += right
        del pending[:right]
    yield Piece("end", bytes(pending), offset, bare=bare_array)
