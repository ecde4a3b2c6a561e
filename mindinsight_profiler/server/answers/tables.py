"""Answers of the table views: operators (by name, shapes, stack, type or per call),
kernels, and the diff of two runs.

A page's rows depend on the grouping asked for, and a JSON Schema (so the generated
TypeScript) has no generics: each grouping is its own page struct with its own row type.
The rows grouped by name are the report's (`analysis.schema.operators`), reused as is.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.operators import KernelRow, OperatorRow, OpTypeRow
from mindinsight_profiler.analysis.schema.steps import StepsCovered
from mindinsight_profiler.server.answers.base import PageFields, Where


class TablePageFields(PageFields, frozen=True, kw_only=True):
    """A table page: the grouping, and the sums of the additive columns (times, calls) over
    every matching row, so a client can draw "top N and the rest" from one page.

    The per-call table has no sums (its rows are not summed server-side) unless the input
    records instances only as a table (legacy MindSpore).
    """

    group_by: str
    sums: dict[str, float] | msgspec.UnsetType = msgspec.UNSET
    # asked to `focus` a row: its index in `rows` (the page that holds it), null if none has
    # that key (then the page at `offset`)
    focus_index: int | msgspec.UnsetType | None = msgspec.UNSET


class OperatorPage(TablePageFields, frozen=True, kw_only=True):
    """`/runs/<run>/operators` grouped by name, name + input shapes or name + call stack."""

    rows: list[OperatorRow]


class OperatorTypePage(TablePageFields, frozen=True, kw_only=True):
    """`/runs/<run>/operators?group_by=type`: every operator type, and the time ranked by."""

    by: Literal["device_self_ns", "host_self_ns", "total_ns"]
    rows: list[OpTypeRow]


class InstanceRow(Record, frozen=True, kw_only=True):
    """One operator call (`group_by=instance`), times in us.

    An input that records operator instances only as a table (legacy MindSpore AI Core)
    gives one row per operator with its `calls` and no start or host time (null).
    """

    name: str
    type: str
    start_us: float | None
    host_self_us: float | None
    host_total_us: float | None
    device_self_us: float
    device_total_us: float
    offset_us: float | None  # start on the timeline: us from the trace's origin
    calls: int | msgspec.UnsetType = msgspec.UNSET  # table-only inputs


class InstancePage(TablePageFields, frozen=True, kw_only=True):
    """`/runs/<run>/operators?group_by=instance`: one row per call."""

    rows: list[InstanceRow]


class KernelPage(TablePageFields, frozen=True, kw_only=True):
    """`/runs/<run>/kernels`, by name or by name + operator + launch configuration."""

    rows: list[KernelRow]


class Change(Record, frozen=True, kw_only=True):
    """One compared figure: this run (before) against the other (after), in us."""

    name: str
    before_us: float
    after_us: float
    delta_us: float
    ratio: float | None  # after / before; null when before is 0


class DiffAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/diff`: step, breakdown, and the top operators and kernels that changed.

    `operators` and `kernels` are keyed by the measure compared (`device_self_us`, ...).
    """

    other: Where
    step: Change
    breakdown: list[Change]
    operators: dict[str, list[Change]]
    kernels: dict[str, list[Change]]
    before_covered: StepsCovered  # the steps this run's step average covers
    after_covered: StepsCovered  # and the other's
