"""The column batch of one chunk of Kineto events, and the ranges of its numeric args.

Both readers of a chunk build it: the native scanner (`kineto.native`) and the Python path
(`kineto.decode`), which stays the reference; they share what is here so that they cannot
disagree on a range or a column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mindinsight_profiler.formats.event_times import BadTimes
from mindinsight_profiler.formats.kineto.events import ARG_NAMES, Event

#: Ranges of the numeric `args` read into columns: a value outside is read as absent (and
#: counted), never wrapped into a column's dtype or carried into an average.
RANGES: dict[str, tuple[float, float]] = {
    "device": (-1, 2**15 - 1),
    "stream": (-1, 2**31 - 1),
    "regs": (-1, 2**31 - 1),
    "smem": (-1, 2**31 - 1),
    "blocks_per_sm": (0, 2**31),
    "occupancy": (0, 100),
    "nbytes": (-(2**62), 2**62),  # a free is negative
    "total_allocated": (-1, 2**62),
    "total_reserved": (-1, 2**62),
    "device_type": (-1, 2**7 - 1),
    "device_id": (-1, 2**15 - 1),
}

#: Launch args of device events: (column, `Args` field, dtype, value when absent).
DEVICE_ARGS: tuple[tuple[str, str, str, float], ...] = (
    ("device", "device", "int16", -1),
    ("stream", "stream", "int32", -1),
    ("regs", "regs", "int32", -1),
    ("smem", "smem", "int32", -1),
    ("blocks_per_sm", "blocks_per_sm", "float64", np.nan),
    ("occupancy", "occupancy", "float64", np.nan),
)

#: Args of memory records: (column, `Args` field, dtype).
MEMORY_ARGS: tuple[tuple[str, str, str], ...] = (
    ("bytes", "nbytes", "int64"),
    ("total_allocated", "total_allocated", "int64"),
    ("total_reserved", "total_reserved", "int64"),
    ("device_type", "device_type", "int8"),
    ("device_id", "device_id", "int16"),
)


@dataclass
class Batch:
    """Columns of one chunk, with chunk-local string and track tables."""

    events: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    flows: dict[str, np.ndarray]
    strings: list[str]  # local string table (names, categories, launch shapes, stacks)
    tracks: list[tuple[str, str]]  # local (pid, tid) table
    metadata: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: `B`/`E` events, kept whole: they are paired once every chunk is read (`phases`)
    begin_end: list[Event] = field(default_factory=list)
    count: int = 0  # events decoded, of any phase
    #: events left out for unusable times (positions among the decoded events)
    bad_times: BadTimes = field(default_factory=BadTimes)
    unknown_phase: int = 0  # events whose `ph` is none of the format's
    #: numeric args out of their range, read as absent: args name -> count
    out_of_range: dict[str, int] = field(default_factory=dict)
    timed: int = 0  # events with times (complete, instant, memory, flow), before any is left out
    invalid_utf8: int = 0  # byte sequences that were not UTF-8, read as U+FFFD


def in_range(arr: np.ndarray, attr: str, dtype: str, out_of_range: dict[str, int]) -> np.ndarray:
    """`arr` (int64 or float64 values of one arg) as `dtype`, values outside the arg's
    `RANGES` range replaced by the absent value (-1, NaN) and counted in `out_of_range`
    under the arg's name (NaN is an absent float, not out of range)."""
    lo, hi = RANGES[attr]
    floating = np.dtype(dtype).kind == "f"
    bad = ~((arr >= lo) & (arr <= hi))
    if floating:
        bad &= ~np.isnan(arr)
    if bad.any():
        name = ARG_NAMES[attr]
        out_of_range[name] = out_of_range.get(name, 0) + int(bad.sum())
        arr = arr.copy()
        arr[bad] = np.nan if floating else -1
    return arr.astype(dtype)
