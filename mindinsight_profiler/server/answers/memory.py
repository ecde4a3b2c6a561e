"""Answers of the zoomable memory page: a device's curve in a window, and the allocations
and per-operator statistics of that window (`routes/memory.py`).

Times are ns relative to the trace's origin (the timeline's zero) and may be negative:
allocator records can start before the first event. Sizes are bytes. These are not report
sections: they are computed per request from the cached trace's memory ledger.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.memory import NpuModuleMemory
from mindinsight_profiler.server.answers.base import PageFields, Where

#: How releases are known: paired by address, from the input's table, or not at all.
Pairing = Literal["address", "table", "none"]
#: Why a table is empty although the request was fine.
MemoryReason = Literal["no_memory_data", "no_allocation_events"]
#: A window in ns from the trace's origin, [start, end).
Window = tuple[int, int]


class MemoryDeviceRow(Record, frozen=True, kw_only=True):
    """One device of the worker's memory, and what its data come from."""

    device: str
    source: Literal["memory_events", "memory_record", "operator_memory"]
    pairing: Pairing
    samples: int
    allocations: int


class WindowPeak(Record, frozen=True, kw_only=True):
    """The first time a total reached its maximum in the window (exact, over every sample)."""

    bytes: int
    ts_ns: int
    operator: str | None  # innermost operator running then; null when none ran


class WindowCurve(Record, frozen=True, kw_only=True):
    """The window's totals, cut to `max_points` samples keeping every extreme."""

    samples: int  # samples in the window before cutting
    ts_ns: list[int]
    allocated_bytes: list[int | None]  # null where the total is unknown
    reserved_bytes: list[int | None]
    peak_allocated: WindowPeak | None
    peak_reserved: WindowPeak | None


class WindowSummary(Record, frozen=True, kw_only=True):
    """Allocations and frees in the window, and what is still held at its end."""

    allocations: int
    allocated_bytes: int
    frees: int
    freed_bytes: int
    start_allocated_bytes: int | None
    end_allocated_bytes: int | None
    held_at_end: int | None  # null: releases unknown
    held_at_end_bytes: int | None
    pairing: Pairing


class MemoryCurveAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/memory/curve`: a device's curve in a window, its peaks and a summary.

    Without memory data every device field is null and `reason` says why.
    """

    devices: list[MemoryDeviceRow]
    max_points: int
    device: str | None
    reason: MemoryReason | None
    range_ns: Window | None  # the device's whole range
    window_ns: Window | None
    curve: WindowCurve | None
    summary: WindowSummary | None
    npu_modules: list[NpuModuleMemory]  # Ascend: reserved memory per CANN component; else []


class MemoryEventRow(Record, frozen=True, kw_only=True):
    """One allocation: its operator, size, allocation and release time."""

    operator: str | None
    bytes: int
    alloc_ns: int
    release_ns: int | None  # null: never released in the trace, or unknown
    duration_ns: int | None
    state: Literal["freed", "live", "unknown"]
    addr: str | None  # hex; null when the input has no addresses


class MemoryOperatorRow(Record, frozen=True, kw_only=True):
    """Allocations and frees charged to one operator in the window."""

    name: str
    allocations: int
    allocated_bytes: int
    frees: int
    freed_bytes: int
    increase_bytes: int
    largest_bytes: int
    peak_held_bytes: int | None  # null: releases unknown on this device


class MemoryPageFields(PageFields, frozen=True, kw_only=True):
    """A page of a memory table, and why it is empty when it is (`reason`)."""

    mode: Literal["allocated", "live"]
    device: str | None
    reason: MemoryReason | None
    pairing: Pairing | None
    window_ns: Window | None
    total_bytes: int  # over every matching row


class MemoryEventsPage(MemoryPageFields, frozen=True, kw_only=True):
    """`/runs/<run>/memory/events`: allocations made (or alive) in the window."""

    rows: list[MemoryEventRow]


class MemoryOperatorsPage(MemoryPageFields, frozen=True, kw_only=True):
    """`/runs/<run>/memory/operators`: per-operator statistics of the window."""

    rows: list[MemoryOperatorRow]
