"""Assembling a `Trace` from the pieces MindSpore readers find in a profiler folder.

MindSpore spreads one run over many files (a timeline, operator CSVs, step points, data
queue logs). Each file reader hands its rows here as arrays; `TraceBuilder` interns names,
assigns tracks and side tables, and records which optional files were skipped and why, so
a run with one bad file still yields what its good files hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.links import build_links
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    FLOW_COLUMNS,
    MEMORY_COLUMNS,
    Trace,
    Track,
    empty_columns,
)

T = TypeVar("T")
#: Side table mapping operator names to operator types (`Default/Conv2D-op3` -> `Conv2D`).
OP_TYPE_TABLE = "op_type_of_name"


class TraceBuilder:
    """Collects events, memory rows and side tables, then builds one linked `Trace`."""

    def __init__(self, source: Path, fmt: str) -> None:
        self.source = source
        self.strings = StringTable()
        self.tracks: list[Track] = []
        self._track_index: dict[tuple[str, str], int] = {}
        self._events: list[dict[str, np.ndarray]] = []
        self.memory: dict[str, np.ndarray] = empty_columns(MEMORY_COLUMNS, 0)
        self.tables: dict[str, dict[str, np.ndarray]] = {}
        self.meta: dict[str, Any] = {"format": fmt, "framework": "mindspore", "source": source.name}
        self.files_read: list[str] = []
        self.skipped: list[str] = []
        #: What was read but not used, and why (`meta["warnings"]`, shown to the user).
        self.warnings: list[str] = []
        self.errors: list[InputError] = []
        #: Operator type of each operator name seen (timeline args, framework files).
        self.op_types: dict[str, str] = {}

    def codes(self, values: Sequence[str]) -> np.ndarray:
        """String-table codes of `values` (one dict lookup per distinct value)."""
        distinct = {v: self.strings.intern(v) for v in dict.fromkeys(values)}
        return np.fromiter((distinct[v] for v in values), dtype=np.int32, count=len(values))

    def track(
        self, pid: str, tid: str, process: str = "", thread: str = "", device: bool = False
    ) -> int:
        """Code of the timeline row (pid, tid), created on first use."""
        key = (pid, tid)
        code = self._track_index.get(key)
        if code is None:
            code = len(self.tracks)
            self._track_index[key] = code
            self.tracks.append(Track(pid, tid, process, thread, device))
        return code

    def add_events(
        self,
        start_ns: np.ndarray,
        end_ns: np.ndarray,
        kind: np.ndarray | Kind,
        name: np.ndarray,
        track: np.ndarray | int,
        **columns: np.ndarray | int,
    ) -> None:
        """Append events; `name` holds string codes, other columns default to absent."""
        n = len(start_ns)
        cols = empty_columns(EVENT_COLUMNS, n)
        cols["start_ns"][:] = start_ns
        cols["end_ns"][:] = end_ns
        cols["kind"][:] = kind
        cols["name"][:] = name
        cols["track"][:] = track
        for col, values in columns.items():
            cols[col][:] = values
        self._events.append(cols)

    def add_table(self, name: str, columns: dict[str, np.ndarray]) -> None:
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"side table {name}: columns of unequal length {sorted(lengths)}")
        self.tables[name] = columns

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def optional(self, path: Path, read: Callable[[Path], T]) -> T | None:
        """`read(path)`, or None (with the reason in `skipped_files` and `warnings`) if the
        file is bad."""
        try:
            value = read(path)
        except InputError as exc:
            self.errors.append(exc)
            self.skipped.append(str(exc))
            self.warnings.append(f"{exc.path}: skipped: {exc.problem}")
            return None
        self.files_read.append(path.name)
        return value

    def build(self) -> Trace:
        """The linked trace; if nothing was read, the first file error (or 'no data')."""
        if not self.files_read:
            if self.errors:
                raise self.errors[0]
            raise InputError(self.source, "no MindSpore profiler data found")
        if self._events:
            events = {
                col: np.concatenate([e[col] for e in self._events]).astype(spec[0], copy=False)
                for col, spec in EVENT_COLUMNS.items()
            }
            order = np.lexsort((-events["end_ns"], events["start_ns"]))
            events = {col: values[order] for col, values in events.items()}
        else:
            events = empty_columns(EVENT_COLUMNS, 0)
        if self.op_types:
            self.add_table(
                OP_TYPE_TABLE,
                {
                    "name": self.codes(list(self.op_types)),
                    "op_type": self.codes(list(self.op_types.values())),
                },
            )
        self.meta["files_read"] = sorted(self.files_read)
        self.meta["skipped_files"] = self.skipped
        # the same, structured: what the advisor needs to name the file a rule depends on
        self.meta["damaged_files"] = [
            {"file": Path(e.path).name, "problem": e.problem} for e in self.errors
        ]
        self.meta["warnings"] = self.warnings
        self.meta["event_count"] = len(events["start_ns"])
        trace = Trace(
            events,
            self.memory,
            empty_columns(FLOW_COLUMNS, 0),
            self.strings,
            self.tracks,
            self.meta,
            self.tables,
        )
        build_links(trace)
        trace.check()
        return trace
