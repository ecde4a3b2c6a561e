"""Decode a trace's event chunks on several cores, in order, in bounded memory.

Decoding and column building are CPU-bound Python/C work and dominate reading a large trace.
Each helper process streams the same file itself (decompressing is cheap next to decoding,
and nothing large has to cross a pipe) and decodes every n-th chunk, sending each column
batch as soon as it is built; the parent takes the batches in chunk order and hands them on
one at a time, so neither side ever holds more than a few chunks and the caller can fold
them into its columns as they come: memory follows the decoded model, not the JSON text.
The result is identical to a single-process read. Any trouble in a helper (error, crash)
makes the parent decode that chunk itself, so parallelism can only change the speed.

A chunk boundary that fell inside an event (see `jsonstream`) makes that chunk fail at its
very end; it is then joined with the following chunks, through the exact separator text,
until the join decodes. An error anywhere else is the document's own: it is raised as a
`ChunkError` that says where the chunk starts, so the caller can give its exact position.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import re
import threading
from collections.abc import Callable, Generator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.formats import jsonstream
from mindinsight_profiler.util.forked import tie_to_parent

#: Below this many (decompressed) bytes a helper process costs more than it saves.
PARALLEL_MIN_BYTES = 48 << 20
#: Gzip-compressed traces expand roughly this much (used only to decide on parallelism).
GZIP_EXPANSION_GUESS = 10
#: Chunks joined to repair a cut never exceed this (no event, and no tail, is larger).
MAX_JOIN_BYTES = jsonstream.MAX_EVENT_BYTES

DecodeFn = Callable[[bytes], Any]

_BYTE_POSITION = re.compile(r"\(byte (\d+)\)\s*$")


class ChunkError(Exception):
    """`decode` failed on the chunk of events that starts at `offset` (decompressed bytes).

    Positions in `error` count from the chunk's text, `"[" + events + "]"`.
    """

    def __init__(self, error: Exception, offset: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.offset = offset


def process_count(path: Path) -> int:
    """How many processes to decode with (env MINDINSIGHT_READ_PROCESSES overrides)."""
    forced = os.environ.get("MINDINSIGHT_READ_PROCESSES")
    if forced:
        return max(1, int(forced))
    size = path.stat().st_size
    with open(path, "rb") as f:
        if f.read(2) == jsonstream.GZIP_MAGIC:
            size *= GZIP_EXPANSION_GUESS
    if size < PARALLEL_MIN_BYTES:
        return 1
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    return max(1, min(cores, 4))


def owner(index: int, size: int) -> int:
    """Which process decodes chunk `index` of `size` (0: the parent): in turn.

    (Giving the parent fewer chunks, as it also streams and merges, was measured slower on
    x15 with one helper: 2.4 s against 1.85 s; its waits on the helper cost more.)
    """
    return index % size


def _chunk_text(data: bytes) -> bytes:
    return b"[" + data + b"]"


def innocent_failure(error: Exception, text_length: int) -> str | None:
    """How a chunk's decode failure can be the chunker's doing rather than the document's.

    "cut": the chunk ends inside an event. Such a chunk is a prefix of valid JSON, so msgspec
    reads it to its end and fails there ("truncated", or at the closing bracket we added).
    "closed": the events array closed inside the chunk ("trailing characters"): the chunker
    cut inside the document's tail (`"deviceProperties": [{...}, {...}]` after the events).
    None: anything else (a type error, a bad character earlier) is in the document itself.
    """
    if type(error) is not msgspec.DecodeError:
        return None
    message = str(error)
    if "truncated" in message:
        return "cut"
    if "trailing characters" in message:
        return "closed"
    m = _BYTE_POSITION.search(message)
    return "cut" if m is not None and int(m.group(1)) >= text_length - 1 else None


def _helper(
    path: str, rank: int, size: int, decode: DecodeFn, conn: Connection, parent: tuple[int, Any]
) -> None:
    """Decode chunks rank, rank+size, ...; send each (index, ok, batch) as soon as it is done.

    A chunk that fails is sent as not ok: the parent redoes it and reports or repairs it.
    The parent closing its end (it finished or failed) ends the helper, and so does its
    death (`util.forked.tie_to_parent`: `parent` is its pid and its end of the pipe).
    """
    tie_to_parent(*parent)
    try:
        index = 0
        for piece in jsonstream.iter_pieces(Path(path)):
            if piece.kind != "events":
                continue
            if owner(index, size) == rank:
                try:
                    message = (index, True, decode(piece.data))
                except Exception:
                    message = (index, False, None)
                conn.send(message)
            index += 1
    except Exception:  # a stream error: the parent meets it in its own stream
        pass
    finally:
        conn.close()


class _Helper:
    """The parent's end of one helper process."""

    def __init__(self, ctx: Any, path: Path, rank: int, size: int, decode: DecodeFn) -> None:
        self.conn, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_helper,
            args=(str(path), rank, size, decode, send, (os.getpid(), self.conn)),
            daemon=True,
        )
        self.proc.start()
        send.close()
        self.alive = True

    def result(self, index: int) -> tuple[bool, Any]:
        """(True, batch) of chunk `index`, or (False, None) when the parent must decode it."""
        while self.alive:
            try:
                got, ok, batch = self.conn.recv()
            except (EOFError, OSError):  # crashed or stopped early: the parent takes over
                self.alive = False
                break
            if got == index:
                return ok, batch
            # Lower indices were joined into a repair and are no longer wanted.
        return False, None

    def stop(self) -> None:
        self.conn.close()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


def _context() -> Any:
    # fork is instant but unsafe once the parent runs threads (a server); spawn then.
    return mp.get_context("fork" if threading.active_count() == 1 else "spawn")


class _Join:
    """Chunks joined after a decode failure that the chunker may have caused.

    After a cut inside an event, every join is tried until it decodes. After the events
    closed inside a chunk, only the document's end can say where (see `_end`).
    """

    def __init__(self, piece: jsonstream.Piece, error: Exception, closed: bool) -> None:
        self.offset = piece.offset
        self.parts = [piece.data[1:-1]]
        self.size = len(self.parts[0])
        self.gap = piece.gap
        self.error = error
        self.closed = closed

    def add(self, piece: jsonstream.Piece) -> None:
        """Join the next chunk of events (framed, as the stream gives them)."""
        self.add_text(piece.data[1:-1], piece.gap)

    def add_text(self, events: bytes, gap: bytes = b"") -> None:
        self.parts += [self.gap, events]
        self.size += len(self.gap) + len(events)
        self.gap = gap
        if self.size > MAX_JOIN_BYTES:  # no event (and no tail) is that large
            raise ChunkError(self.error, self.offset)

    def text(self) -> bytes:
        return b"".join(self.parts)

    def attempt(self, decode: DecodeFn) -> tuple[bool, Any]:
        """(True, batch) once the joined text decodes; raises when it cannot be a cut."""
        if self.closed:
            return False, None
        text = _chunk_text(self.text())
        try:
            return True, decode(text)
        except Exception as exc:
            how = innocent_failure(exc, len(text))
            if how is None:
                raise ChunkError(exc, self.offset) from None
            self.error, self.closed = exc, how == "closed"
            return False, None


def _decode_here(piece: jsonstream.Piece, decode: DecodeFn) -> tuple[Any, _Join | None]:
    """(batch, None), or (None, a join to extend) when the chunker may have caused a failure."""
    text = piece.data
    try:
        return decode(text), None
    except Exception as exc:
        how = innocent_failure(exc, len(text))
        if how is None:
            raise ChunkError(exc, piece.offset) from None
        return None, _Join(piece, exc, how == "closed")


def _end(
    path: Path, piece: jsonstream.Piece, join: _Join | None, decode: DecodeFn
) -> tuple[Any, jsonstream.Piece]:
    """(batch of the last events or None, the tail piece) of the document's end."""
    offset, text = piece.offset, piece.data
    if join is not None:
        join.add_text(piece.data)
        offset, text = join.offset, join.text()
    events, tail = jsonstream.split_end(path, text, piece.bare)
    batch = None
    if events.strip():
        try:
            batch = decode(_chunk_text(events))
        except Exception as exc:
            exact = None if piece.bare else jsonstream.resplit_end(text, exc)
            if exact is None:
                raise ChunkError(exc, offset) from None
            events, tail = exact
            try:
                batch = decode(_chunk_text(events)) if events.strip() else None
            except Exception as again:
                raise ChunkError(again, offset) from None
    elif join is not None:
        raise ChunkError(join.error, join.offset)
    return batch, jsonstream.Piece("tail", tail, offset + len(text) - len(tail))


def iter_decoded(
    path: Path,
    decode: DecodeFn,
    on_piece: Callable[[jsonstream.Piece], None],
    progress: jsonstream.ProgressFn | None = None,
    processes: int | None = None,
) -> Generator[Any, None, None]:
    """Decoded batches of the event chunks, in order; head and tail pieces go to `on_piece`.

    Raises ChunkError for a chunk that cannot be decoded (wrapping the error of `decode`, as
    raised in this process: helpers never decide errors), or errors of the stream itself.
    """
    size = processes or process_count(path)
    ctx = _context() if size > 1 else None
    helpers = [_Helper(ctx, path, rank, size, decode) for rank in range(1, size)]
    join: _Join | None = None
    try:
        chunk = -1
        for piece in jsonstream.iter_pieces(path, progress):
            if piece.kind == "end":
                batch, tail = _end(path, piece, join, decode)
                if batch is not None:
                    yield batch
                on_piece(tail)
                continue
            if piece.kind != "events":
                on_piece(piece)
                continue
            chunk += 1
            if join is not None:
                join.add(piece)
                ok, batch = join.attempt(decode)
            else:
                by = owner(chunk, size)
                ok, batch = helpers[by - 1].result(chunk) if by else (False, None)
                if not ok:
                    batch, join = _decode_here(piece, decode)
                    ok = join is None
            if ok:
                join = None
                yield batch
    finally:
        for helper in helpers:
            helper.stop()


def decode_chunks(
    path: Path,
    decode: DecodeFn,
    on_piece: Callable[[jsonstream.Piece], None],
    progress: jsonstream.ProgressFn | None = None,
    processes: int | None = None,
) -> list[Any]:
    """All decoded batches as a list (for formats whose batches are small); errors of
    `decode` propagate as raised."""
    with contextlib.closing(iter_decoded(path, decode, on_piece, progress, processes)) as it:
        try:
            return list(it)
        except ChunkError as exc:
            raise exc.error from None
