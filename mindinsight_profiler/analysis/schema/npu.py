"""The Ascend section of the report (`npu`): the step view and operator types Ascend users
know from their own tools.

Producer: `analysis.steps.npu_section.npu_section`. The step figures are torch_npu's
`step_trace_time.csv` columns and the types `op_statistic.csv`'s rows, computed from the
events (so a DB-only export gets them too) and equal to those files within 0.1 %
(`tests/integration/test_ascend_pt.py`). Microseconds.
"""

from __future__ import annotations

from mindinsight_profiler.analysis.schema.base import Record


class NpuStepTimes(Record, frozen=True, kw_only=True):
    """One step (or the average) split as Ascend's step_trace_time.csv splits it."""

    computing_us: float  # a compute kernel runs (union; communication left out)
    comm_not_overlapped_us: float  # communication with no compute kernel running
    overlapped_us: float  # communication hidden behind compute
    communication_us: float  # a communication op runs (union)
    free_us: float  # stage - computing - communication not overlapped: the device idles
    stage_us: float  # first to last device task of the step, minus bubble
    bubble_us: float  # receive ops (pipeline parallelism)
    comm_not_overlapped_excl_receive_us: float
    preparing_us: float  # the step's host start to its first device task


class NpuStep(NpuStepTimes, frozen=True, kw_only=True):
    """One step's figures, then its name (the fields of a subclass come last)."""

    step: str


class NpuOpType(Record, frozen=True, kw_only=True):
    """One op type on one core, as op_statistic.csv lists it (communication left out)."""

    op_type: str  # e.g. MatMulV2, TransData
    core_type: str  # AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC, ...
    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    percent: float  # share of all compute kernels' time, 0-100


class Npu(Record, frozen=True, kw_only=True):
    """The step view per step and on average (over `average_steps`, the report's step set),
    and the operator types by core."""

    steps: list[NpuStep]
    average: NpuStepTimes
    average_steps: list[str]
    op_types: list[NpuOpType] | None  # None without kernel op types (kernel_details)
