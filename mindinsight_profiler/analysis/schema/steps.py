"""Step sections of the report: `steps`, `breakdown_us`/`breakdown_per_step_us`, `step_trace`.

Producers: `analysis.report.build_report` (steps, breakdown; categories from
`analysis.steps.breakdown.CATEGORIES`) and `analysis.steps.step_trace.step_trace_section`.
Times named `*_ns` are absolute nanoseconds of the trace's clock; `*_us` are microseconds.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record


class StepsCovered(Record, frozen=True, kw_only=True):
    """Which steps an average covers (`analysis.steps.covered`): every average the dashboard
    shows on several pages carries one, and the pages print it beside the figure."""

    count: int  # steps averaged
    first: str | None  # first and last step averaged (None: no step)
    last: str | None
    left_out: list[str]  # profiled steps the average does not count, in order
    compile: list[str]  # those left out for graph compilation (the others: no figure for them)


class Steps(Record, frozen=True, kw_only=True):
    """The training steps found, their starts and durations, and the average step."""

    count: int
    names: list[str]  # the N of `ProfilerStep#N`, or "0" for one step over the whole trace
    from_profiler_steps: bool  # False: no step markers, one step spans the trace
    start_ns: list[int]
    durations_us: list[float]
    averaged_from: int  # index of the first step the average counts (warm-up left out)
    average_us: float
    covered: StepsCovered  # the steps `average_us` (and the breakdown's average) covers


class Breakdown(Record, frozen=True, kw_only=True):
    """Time of one step (or the average step) per category, in microseconds.

    The fields are `analysis.steps.breakdown.CATEGORIES`, in that order (a test checks it): the
    set is fixed by the code, so it is a struct rather than a dict keyed by data.
    """

    kernel: float
    memcpy: float
    memset: float
    communication: float
    runtime: float
    dataloader: float
    cpu_exec: float
    other: float


class StepPoint(Record, frozen=True, kw_only=True):
    """The forward-start or backward-end point a step is split at, and where it came from."""

    name: str | None  # operator name; None when no point was found
    source: Literal["argument", "env", "auto", "profiler"]
    steps_found: int  # steps in which the point was found


class StepCollective(Record, frozen=True, kw_only=True):
    """One collective inside one step (times relative to `StepTrace.origin_ns`, us)."""

    name: str
    start_us: float
    end_us: float
    duration_us: float


class StepTraceStep(Record, frozen=True, kw_only=True):
    """One step split into its stages (absolute times relative to `origin_ns`, all us)."""

    step: str
    start_us: float
    fp_us: float
    bp_us: float
    end_us: float
    total_us: float
    iteration_interval_us: float
    fp_and_bp_us: float
    tail_us: float
    fp_op: str  # "" when the step has no forward point
    bp_op: str
    collectives: list[StepCollective]


class AverageCollective(Record, frozen=True, kw_only=True):
    """A collective's mean duration over the averaged steps (us), by name and ordinal."""

    name: str
    index: int  # ordinal among same-named collectives of a step
    duration_us: float


class StepTraceAverage(Record, frozen=True, kw_only=True):
    """Mean stages over the steps after the first (all of them when there is one), in us."""

    steps: int
    excludes_first_step: bool
    covered: StepsCovered  # the same steps as the overview's `steps.covered`
    total_us: float
    iteration_interval_us: float
    fp_and_bp_us: float
    tail_us: float
    collectives: list[AverageCollective]


class StepTrace(Record, frozen=True, kw_only=True):
    """MindInsight's step-trace view: each step split at its forward and backward points."""

    source: Literal["step_trace_table", "operator_tree"]
    fp_point: StepPoint
    bp_point: StepPoint
    origin_ns: int  # start of the first step; the `*_us` times of steps count from it
    stages: list[Literal["total", "iteration_interval", "fp_and_bp", "tail"]]
    steps: list[StepTraceStep]
    average: StepTraceAverage
