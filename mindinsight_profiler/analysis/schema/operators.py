"""Operator sections of the report: `op_types`, `operators`, `kernels` and `modules`.

Producers: `analysis.operators.query.op_types_section`,
`analysis.operators.tables.operator_table` and `kernel_table` (rows of
`analysis.operators.tables.rows`), `analysis.operators.modules.module_section`.
All times are microseconds. The grouped tables (`mindinsight analyse --group-by ...`,
`analysis.report.grouped_tables`) add the columns of their grouping at the end of each row;
those fields are UNSET (absent from the JSON) in the report's own name-grouped tables.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import Record


class OpTypeRow(Record, frozen=True, kw_only=True):
    """Calls and time of one operator type (or of all types past the top ten: "others")."""

    type: str
    calls: int
    total_us: float
    mean_us: float
    percent: float  # share of the grand total, 0-100


class OpTypes(Record, frozen=True, kw_only=True):
    """Operator types ranked by time: the top ten, the rest summed into "others"."""

    # the time ranked by; kernel_ns: an Ascend input's kernel op types (op_statistic.csv's)
    by: Literal["device_self_ns", "host_self_ns", "total_ns", "kernel_ns"]
    types: list[OpTypeRow]


class OperatorRow(Record, frozen=True, kw_only=True):
    """One operator (by name, or name + input shapes / call stack) over all its calls."""

    name: str
    calls: int
    host_self_us: float
    host_total_us: float
    device_self_us: float
    device_total_us: float
    tc_eligible: bool  # an operator that could use Tensor Cores
    tc_self_ratio: float  # share (0-1) of its own device time on Tensor Cores
    tc_total_ratio: float
    has_call_stack: bool
    # group_by="name_input": one entry per input (a shape, [] for a scalar or None, a list
    # of shapes for a tensor list), parsed from the trace's `Input Dims` (operators.shapes)
    input_shape: list[Any] | msgspec.UnsetType = msgspec.UNSET
    call_stack: str | msgspec.UnsetType = msgspec.UNSET  # group_by="name_stack" ("" = none)


class KernelRow(Record, frozen=True, kw_only=True):
    """One kernel (by name, or by name + launching operator + launch settings)."""

    name: str
    tc_used: bool  # a Tensor Core kernel, by its name
    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    blocks_per_sm: float | None  # duration-weighted; None when no kernel has the figure
    occupancy: float | None  # duration-weighted percent; None as above
    # group_by="name_op_launch" only:
    operator: str | msgspec.UnsetType = msgspec.UNSET  # "N/A" when launched by no operator
    grid: str | msgspec.UnsetType = msgspec.UNSET
    block: str | msgspec.UnsetType = msgspec.UNSET
    registers_per_thread: int | msgspec.UnsetType = msgspec.UNSET
    shared_memory: int | msgspec.UnsetType = msgspec.UNSET  # bytes
    # Ascend kernels with kernel_details (analysis.operators.npu_kernels); the group's most
    # frequent value, PMU pipe ratios (0-1) and cube use (%) duration-weighted:
    accelerator_core: str | msgspec.UnsetType | None = msgspec.UNSET  # AI_CORE, MIX_AIV, ...
    op_type: str | msgspec.UnsetType | None = msgspec.UNSET
    input_shapes: str | msgspec.UnsetType | None = msgspec.UNSET
    input_dtypes: str | msgspec.UnsetType | None = msgspec.UNSET
    input_formats: str | msgspec.UnsetType | None = msgspec.UNSET
    block_dim: int | msgspec.UnsetType | None = msgspec.UNSET
    pmu: dict[str, float] | msgspec.UnsetType = msgspec.UNSET  # e.g. aic_mac_ratio
    cube_utilization: float | msgspec.UnsetType | None = msgspec.UNSET


class ModuleRow(Record, frozen=True, kw_only=True):
    """One `nn.Module` (by name) over all its calls."""

    name: str
    parent: str | None  # innermost enclosing module; None at the top
    occurrences: int
    host_total_us: float
    host_self_us: float
    device_self_us: float
    device_total_us: float


class Modules(Record, frozen=True, kw_only=True):
    """Modules of a trace recorded `with_stack`, by host total time, largest first."""

    modules: list[ModuleRow]


class AicpuType(Record, frozen=True, kw_only=True):
    """One AI CPU op type (name up to "-") over its calls (`aicpu_intermediate_*.csv`)."""

    type: str
    calls: int
    total_us: float
    dispatch_us: float | None  # None: the file has no dispatch column
    execution_us: float | None
    percent: float  # of all AI CPU time


class AicpuOp(Record, frozen=True, kw_only=True):
    """One AI CPU op (the file's `kernel_type`) over its calls, with per-call means."""

    name: str
    type: str
    calls: int
    total_us: float
    dispatch_us: float | None
    execution_us: float | None
    mean_us: float
    mean_dispatch_us: float | None


class Aicpu(Record, frozen=True, kw_only=True):
    """MindInsight's AI CPU tables: per op type and per op, most total time first."""

    call_count: int
    types: list[AicpuType]
    ops: list[AicpuOp]
