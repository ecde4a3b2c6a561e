"""The `memory` section: allocated/reserved curves, peaks and per-operator allocations.

Producer: `analysis.memory.section.memory_section`, cut by the memory builder of
`analysis.sections` (the per-allocation columns of `pairs` are served on request, the report
keeps their counts).
Times are int nanoseconds of the trace's clock, sizes int bytes.

A device built only from Ascend's `operator_memory` table (no `memory_record` series) has
no curve: its `samples`, `curve` and peaks are absent, not null.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import Record


class MemoryCurve(Record, frozen=True, kw_only=True):
    """Totals over time, cut to `Memory.max_points` samples keeping every extreme."""

    ts_ns: list[int]
    allocated_bytes: list[int | None]  # None where the total is unknown
    reserved_bytes: list[int | None]


class AllocatedPeak(Record, frozen=True, kw_only=True):
    """The first time allocated memory reached its maximum (over every sample)."""

    bytes: int
    ts_ns: int
    # Innermost operator running then (memory events only; None when none ran).
    operator: str | msgspec.UnsetType | None = msgspec.UNSET


class ReservedPeak(Record, frozen=True, kw_only=True):
    """The first time reserved memory reached its maximum (over every sample)."""

    bytes: int
    ts_ns: int


class PairsSummary(Record, frozen=True, kw_only=True):
    """How many allocations were matched with their free, and how many were never freed."""

    count: int
    live: int


class MemoryOperator(Record, frozen=True, kw_only=True):
    """Allocations and frees charged to one operator (self), largest allocator first."""

    name: str  # "(no operator)" for allocations outside any operator
    allocations: int
    allocated_bytes: int
    frees: int
    freed_bytes: int
    increase_bytes: int  # allocated - freed


class MemoryDevice(Record, frozen=True, kw_only=True):
    """One device (or, on Ascend, one device and allocator component, e.g. "NPU:0 PTA")."""

    device: str
    source: Literal["memory_events", "memory_record", "operator_memory"]
    samples: int | msgspec.UnsetType = msgspec.UNSET  # absent: no curve (see module doc)
    curve: MemoryCurve | msgspec.UnsetType = msgspec.UNSET
    peak_allocated: AllocatedPeak | msgspec.UnsetType | None = msgspec.UNSET
    peak_reserved: ReservedPeak | msgspec.UnsetType | None = msgspec.UNSET
    pairs: PairsSummary | None  # None: allocations cannot be paired (Ascend series)
    operators: list[MemoryOperator]


class NpuModuleMemory(Record, frozen=True, kw_only=True):
    """Device memory one CANN component reserved (`npu_module_mem`, Ascend only)."""

    device: str  # "NPU:0"
    component: str  # APP, HCCL, RUNTIME, GE, ...
    peak_reserved_bytes: int
    peak_ts_ns: int
    last_reserved_bytes: int
    samples: int


class Memory(Record, frozen=True, kw_only=True):
    """The memory view of one worker, per device."""

    max_points: int  # most samples a curve keeps
    devices: list[MemoryDevice]
    # Ascend: reserved device memory per CANN component (analysis.memory.npu_modules); absent
    # for other inputs, [] when the export sampled components but none reserved memory
    npu_modules: list[NpuModuleMemory] | msgspec.UnsetType = msgspec.UNSET
