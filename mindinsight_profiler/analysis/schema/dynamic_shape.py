"""The `dynamic_shape` section: MindInsight's dynamic-shape view of a MindSpore run.

Producer: `analysis.operators.dynamic_shape.dynamic_shape_section` (from
`dynamic_shape_info_<rank>.json`). Times are microseconds; every per-step list is aligned
with `DynamicShape.steps`.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record


class DynamicShapeType(Record, frozen=True, kw_only=True):
    """One op type over the steps."""

    type: str
    sides: list[str]  # where its ops ran: "gpu", "cpu" (host), "ascend"
    calls: int
    total_us: float
    mean_us: float  # per call, over all steps
    percent: float  # of all the file's op time, 0-100
    op_count: int  # distinct ops of the type
    step_us: list[float]  # summed time in each step (0: it did not run)
    step_calls: list[int]
    step_mean_us: list[float | None]  # per call in each step (MindInsight's curve); null: none


class DynamicShapeVariant(Record, frozen=True, kw_only=True):
    """One distinct input shape of an op ("[32, 1]; [32, 1]": one shape per input)."""

    shape: str  # "" when MindSpore recorded none
    calls: int
    total_us: float
    mean_us: float


class DynamicShapeOp(Record, frozen=True, kw_only=True):
    """One op over the steps, with its distinct input shapes."""

    name: str
    type: str
    side: str
    calls: int
    total_us: float
    mean_us: float
    step_us: list[float]  # summed time in each step (0: it did not run)
    shape_count: int  # distinct shapes (the list is cut to the 20 with most calls)
    shapes: list[DynamicShapeVariant]


class DynamicShape(Record, frozen=True, kw_only=True):
    """Per op type (all) and per op (the 50 of most total time), time per step."""

    layout: Literal["gpu", "ascend"]  # which MindSpore writer's file it was
    steps: list[int]  # the file's step numbers, ascending
    call_count: int
    total_us: float
    op_count: int  # distinct ops (ops is cut to 50)
    types: list[DynamicShapeType]  # most total time first
    ops: list[DynamicShapeOp]  # most total time first
