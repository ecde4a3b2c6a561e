"""Fold Kineto column batches into one trace's columns as the chunks are decoded.

Each batch is remapped to the trace's string and track tables as soon as it arrives and
only its column pieces are kept, so a read never holds the decoded batches and the merged
columns at once; the final concatenation goes one column at a time and frees that column's
pieces as it goes. The peak of a read is therefore the model plus one column, whatever the
size of the JSON text. (The pieces are small allocations that glibc would keep on its heap
once freed, so the freed pages are handed back to the OS as the columns are built.)

Once the pieces pass `SPILL_AFTER_BYTES` (a trace of gigabytes), every column goes to a
spill file instead (`util.spill`) and the merged columns are mappings of those files: the
columns then cost page cache the kernel can reclaim, not heap, and a read holds one batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.formats.event_times import BadTimes
from mindinsight_profiler.formats.kineto.batch import Batch
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import EVENT_COLUMNS, FLOW_COLUMNS, MEMORY_COLUMNS
from mindinsight_profiler.util.heap import release_free_memory
from mindinsight_profiler.util.spill import SpillFile, spill_after_bytes

Columns = dict[str, np.ndarray]

#: Freeing more than this many bytes of pieces hands the pages back to the OS at once.
RELEASE_BYTES = 16 << 20

#: Pieces held past this many bytes go to spill files (`MINDINSIGHT_SPILL_MB` sets it in MB;
#: 0 spills every trace). 512 MB of columns is a trace of about 3 GB of JSON.
SPILL_AFTER_BYTES = spill_after_bytes(default_mb=512)

#: Columns holding codes into a batch's local string table.
STRING_COLUMNS = frozenset(
    {
        "name",
        "cat",
        "grid",
        "block",
        "input_dims",
        "input_types",
        "concrete_inputs",
        "call_stack",
        "comm_msg",
    }
)
_SPECS = {"events": EVENT_COLUMNS, "memory": MEMORY_COLUMNS, "flows": FLOW_COLUMNS}


class ColumnMerger:
    """Accumulates batches in chunk order; `columns()` gives the merged tables once."""

    def __init__(self) -> None:
        self.strings = StringTable()
        self.track_index: dict[tuple[str, str], int] = {}
        self.metadata: list[tuple[str, str, str, str]] = []
        self.begin_end: list[Any] = []  # B/E events, paired when all are read
        self.count = 0  # events decoded so far, of any phase
        self.invalid_utf8 = 0  # byte sequences read as U+FFFD
        self.bad_times = BadTimes()  # events left out for unusable times
        self.out_of_range: dict[str, int] = {}  # args read as absent, by name
        self.timed = 0  # events with times, left out or not
        self.unknown_phase = 0  # events of no known phase
        self._parts: dict[str, dict[str, list[np.ndarray]]] = {t: {} for t in _SPECS}
        self._held = 0  # bytes of pieces held
        self._spills: dict[str, dict[str, SpillFile]] | None = None  # once spilling

    @property
    def spilled(self) -> bool:
        """Whether the columns go to spill files (the trace is large)."""
        return self._spills is not None

    def add(self, batch: Batch) -> None:
        """Remap `batch`'s local codes to the trace's and keep its columns."""
        smap = np.append(self.strings.merge(batch.strings), np.int32(-1))  # -1 stays -1
        tracks = [self.track_index.setdefault(t, len(self.track_index)) for t in batch.tracks]
        tmap = np.array([*tracks, -1], np.int32)
        for table_name, table in (
            ("events", batch.events),
            ("memory", batch.memory),
            ("flows", batch.flows),
        ):
            parts = self._parts[table_name]
            for col, values in table.items():
                if col in STRING_COLUMNS:
                    values = smap[values]
                elif col == "track":
                    values = tmap[values]
                if self._spills is not None:
                    self._spill_file(table_name, col).append(values)
                else:
                    parts.setdefault(col, []).append(values)
                    self._held += values.nbytes
        self.metadata.extend(batch.metadata)
        self.begin_end.extend(batch.begin_end)
        self.bad_times.add(batch.bad_times, offset=self.count)
        for name, n in batch.out_of_range.items():
            self.out_of_range[name] = self.out_of_range.get(name, 0) + n
        self.timed += batch.timed
        self.unknown_phase += batch.unknown_phase
        self.count += batch.count
        self.invalid_utf8 += batch.invalid_utf8
        if self._spills is None and self._held > SPILL_AFTER_BYTES:
            self._start_spilling()

    def _spill_file(self, table_name: str, col: str) -> SpillFile:
        assert self._spills is not None
        files = self._spills[table_name]
        if col not in files:
            files[col] = SpillFile(_SPECS[table_name][col][0])
        return files[col]

    def _start_spilling(self) -> None:
        """Move the pieces held so far to spill files; later batches go straight there."""
        self._spills = {t: {} for t in _SPECS}
        for table_name, parts in self._parts.items():
            for col, pieces in parts.items():
                out = self._spill_file(table_name, col)
                for piece in pieces:
                    out.append(piece)
                pieces.clear()
        self._held = 0
        release_free_memory(force=True)

    def columns(self) -> tuple[Columns, Columns, Columns]:
        """(events, memory, flows), each column concatenated; the pieces are released."""
        if self._spills is not None:
            return self._mapped_columns(self._spills)
        merged = []
        for table_name, spec in _SPECS.items():
            parts = self._parts[table_name]
            n = sum(len(a) for a in parts.get(next(iter(spec)), []))
            cols: Columns = {}
            for col, (dtype, fill) in spec.items():
                pieces = parts.pop(col, None)
                if pieces:
                    cols[col] = np.concatenate(pieces).astype(dtype, copy=False)
                    freed = sum(a.nbytes for a in pieces)
                    pieces.clear()
                    if freed > RELEASE_BYTES:
                        release_free_memory()
                else:
                    cols[col] = np.full(n, fill, dtype=dtype)
            merged.append(cols)
        release_free_memory()
        return merged[0], merged[1], merged[2]

    @staticmethod
    def _mapped_columns(
        spills: dict[str, dict[str, SpillFile]],
    ) -> tuple[Columns, Columns, Columns]:
        """The spilled tables as mapped columns; columns no batch had are spilled as fills."""
        merged = []
        for table_name, spec in _SPECS.items():
            files = spills[table_name]
            n = max((f.length for f in files.values()), default=0)
            cols: Columns = {}
            for col, (dtype, fill) in spec.items():
                out = files.pop(col, None)
                if out is None:
                    out = SpillFile(dtype)
                    out.fill(fill, n)
                cols[col] = out.array()
            merged.append(cols)
        return merged[0], merged[1], merged[2]

    @property
    def tracks(self) -> list[tuple[str, str]]:
        return list(self.track_index)
