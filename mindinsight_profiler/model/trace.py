"""The normalised trace of one worker: columnar events plus run metadata.

Every input format becomes a `Trace`; every analysis reads only a `Trace`. Columns are numpy
arrays of equal length (one row per event), times are int64 nanoseconds, strings are codes
into `strings`. Derived links (`parent`, `caller`) are filled by `model.links`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_profiler.model.strings import StringTable

#: Bump when the meaning or layout of any column changes: caches of other versions are rebuilt.
#: 4: communication message sizes (comm_msg); 5: Ascend comm_packets, PMU cycles, MindSpore
#: block_dim; 6: hccl_ops' per-call size (size_kb, MindSpore hccl_raw).
SCHEMA_VERSION = 6

#: Event columns: name -> (dtype, fill value for "absent").
EVENT_COLUMNS: dict[str, tuple[str, float | int]] = {
    "start_ns": ("int64", 0),
    "end_ns": ("int64", 0),
    "kind": ("uint8", 0),
    "name": ("int32", -1),
    "cat": ("int32", -1),
    "track": ("int32", -1),
    "ext_id": ("int64", -1),  # args "External id" / "external id": links operator <-> runtime
    "corr": ("int64", -1),  # args "correlation": links runtime <-> device work
    "device": ("int16", -1),
    "stream": ("int32", -1),
    "grid": ("int32", -1),  # string code of the launch grid, e.g. "[4, 106, 1]"
    "block": ("int32", -1),
    "regs": ("int32", -1),  # registers per thread
    "smem": ("int32", -1),  # shared memory bytes
    "blocks_per_sm": ("float64", np.nan),
    "occupancy": ("float64", np.nan),  # est. achieved occupancy, percent
    "input_dims": ("int32", -1),  # string code of the JSON text of "Input Dims"
    "input_types": ("int32", -1),  # string code of the JSON text of "Input type" (dtypes)
    # string code of the JSON text of "Concrete Inputs" (scalar arguments: stride, flags...)
    "concrete_inputs": ("int32", -1),
    "call_stack": ("int32", -1),
    # string code of `[nelems, dtype, group size]` (JSON): a collective's message, from NCCL
    # kernels' and record_param_comms' "In msg nelems", "dtype", "Group size" args
    "comm_msg": ("int32", -1),
    "parent": ("int32", -1),  # enclosing range in the operator tree (same thread)
    "caller": ("int32", -1),  # runtime -> its operator; device work -> its runtime
}

#: `[memory]` instant events (allocations and frees).
MEMORY_COLUMNS: dict[str, tuple[str, float | int]] = {
    "ts_ns": ("int64", 0),
    "track": ("int32", -1),
    "addr": ("int64", -1),
    "bytes": ("int64", 0),
    "total_allocated": ("int64", -1),
    "total_reserved": ("int64", -1),
    "device_type": ("int8", -1),
    "device_id": ("int16", -1),
}

#: Flow events (`s`/`f`/`t`): launch -> kernel (`ac2g`), forward -> backward (`fwdbwd`).
FLOW_COLUMNS: dict[str, tuple[str, float | int]] = {
    "ts_ns": ("int64", 0),
    "track": ("int32", -1),
    "flow_id": ("int64", -1),
    "phase": ("uint8", 0),  # ord('s'), ord('f') or ord('t')
    "cat": ("int32", -1),
}


def empty_columns(spec: dict[str, tuple[str, float | int]], n: int) -> dict[str, np.ndarray]:
    """Columns of length `n` filled with each column's absent value."""
    return {k: np.full(n, fill, dtype=dtype) for k, (dtype, fill) in spec.items()}


@dataclass(frozen=True)
class Track:
    """A timeline row: a host thread or a device stream."""

    pid: str
    tid: str
    process_name: str = ""
    thread_name: str = ""
    is_device: bool = False


@dataclass
class Trace:
    """One worker's events in columns, with the strings and metadata they refer to."""

    events: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    flows: dict[str, np.ndarray]
    strings: StringTable
    tracks: list[Track]
    meta: dict[str, Any] = field(default_factory=dict)
    #: Format-specific side tables (e.g. MindSpore step-trace points, data-queue samples),
    #: each a dict of equal-length numpy columns; strings as codes into `strings`.
    tables: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.events["start_ns"])

    @property
    def start_ns(self) -> np.ndarray:
        return self.events["start_ns"]

    @property
    def end_ns(self) -> np.ndarray:
        return self.events["end_ns"]

    @property
    def kind(self) -> np.ndarray:
        return self.events["kind"]

    @property
    def name(self) -> np.ndarray:
        return self.events["name"]

    def names_matching(self, predicate: object) -> np.ndarray:
        """Boolean mask of events whose name satisfies `predicate` (evaluated once per name)."""
        return self.strings.mask_where(self.events["name"], predicate)

    def check(self) -> None:
        """Assert structural invariants (equal column lengths, known columns); cheap."""
        for table, spec in (
            (self.events, EVENT_COLUMNS),
            (self.memory, MEMORY_COLUMNS),
            (self.flows, FLOW_COLUMNS),
        ):
            _check_lengths(table)
            missing = set(spec) - set(table)
            if missing:
                raise ValueError(f"missing columns: {sorted(missing)}")
        for table in self.tables.values():
            _check_lengths(table)


def _check_lengths(table: dict[str, np.ndarray]) -> None:
    lengths = {len(a) for a in table.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of unequal length: {sorted(lengths)}")
