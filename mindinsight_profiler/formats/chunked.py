"""Decode a trace's event chunks on several cores.

Decoding and column building are CPU-bound Python/C work and dominate reading a large trace.
Each helper process streams the same file itself (decompressing is cheap next to decoding,
and nothing large has to cross a pipe) and decodes every n-th chunk; the small column
batches come back over a pipe and are merged in chunk order, so the result is identical to
a single-process read. Any trouble in a helper (error, crash) makes the caller redo that
work in-process, so parallelism can only change the speed, never the answer.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from mindinsight_profiler.formats import jsonstream

#: Below this many (decompressed) bytes a helper process costs more than it saves.
PARALLEL_MIN_BYTES = 48 << 20
#: Gzip-compressed traces expand roughly this much (used only to decide on parallelism).
GZIP_EXPANSION_GUESS = 10

DecodeFn = Callable[[bytes], Any]


def process_count(path: Path) -> int:
    """How many processes to decode with (env MINDINSIGHT_READ_PROCESSES overrides)."""
    forced = os.environ.get("MINDINSIGHT_READ_PROCESSES")
    if forced:
        return max(1, int(forced))
    size = path.stat().st_size
    with open(path, "rb") as f:
        if f.read(2) == b"\x1f\x8b":
            size *= GZIP_EXPANSION_GUESS
    if size < PARALLEL_MIN_BYTES:
        return 1
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    return max(1, min(cores, 4))


def _events(
    path: Path, progress: jsonstream.ProgressFn | None = None
) -> Iterator[jsonstream.Piece]:
    yield from jsonstream.iter_pieces(path, progress)


def _helper(path: str, rank: int, size: int, decode: DecodeFn, conn: Connection) -> None:
    """Decode chunks rank, rank+size, ...; send the (index, batch) pairs at the end.

    Sending as we go would block on the pipe while the parent is busy with its own share.
    A chunk that fails is simply not sent: the parent redoes it and reports the error.
    """
    done: list[tuple[int, Any]] = []
    try:
        index = 0
        for piece in _events(Path(path)):
            if piece.kind != "events":
                continue
            if index % size == rank:
                done.append((index, decode(b"[" + piece.data + b"]")))
            index += 1
    except Exception:
        pass
    finally:
        try:
            conn.send(done)
        finally:
            conn.close()


def _context() -> Any:
    # fork is instant but unsafe once the parent runs threads (a server); spawn then.
    return mp.get_context("fork" if threading.active_count() == 1 else "spawn")


def decode_chunks(
    path: Path,
    decode: DecodeFn,
    on_piece: Callable[[jsonstream.Piece], None],
    progress: jsonstream.ProgressFn | None = None,
    processes: int | None = None,
) -> list[Any]:
    """Decoded batches of all event chunks, in order; head and tail pieces go to `on_piece`.

    Errors from `decode` propagate as raised in this process (helpers never decide them).
    """
    size = processes or process_count(path)
    helpers: list[tuple[Any, Connection]] = []
    if size > 1:
        ctx = _context()
        for rank in range(1, size):
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_helper, args=(str(path), rank, size, decode, send), daemon=True
            )
            proc.start()
            send.close()
            helpers.append((proc, recv))
    results: dict[int, Any] = {}
    index = 0
    try:
        for piece in _events(path, progress):
            if piece.kind != "events":
                on_piece(piece)
                continue
            if index % size == 0:
                results[index] = decode(b"[" + piece.data + b"]")
            index += 1
        total = index
        for _proc, conn in helpers:
            with contextlib.suppress(EOFError, OSError):  # a crashed helper: redone below
                results.update(conn.recv())
    finally:
        for proc, conn in helpers:
            conn.close()
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
    missing = [i for i in range(total) if i not in results]
    if missing:
        _redo(path, decode, set(missing), results)
    return [results[i] for i in range(total)]


def _redo(path: Path, decode: DecodeFn, wanted: set[int], results: dict[int, Any]) -> None:
    """Decode chunks a helper did not deliver, here (raising their errors, if any)."""
    index = 0
    for piece in _events(path):
        if piece.kind != "events":
            continue
        if index in wanted:
            results[index] = decode(b"[" + piece.data + b"]")
        index += 1
