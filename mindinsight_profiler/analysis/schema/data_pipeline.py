"""The `data_pipeline` section: is the input pipeline keeping the accelerator fed?

Producer: `analysis.data_pipeline.section.data_pipeline_section` (PyTorch: DataLoader waits from the
trace and the optional DataLoader probe file; MindSpore: MindData's queue, pipeline and CPU
profiling, judged by `analysis.minddata_rules`). One shape for both frameworks: parts a
framework or an input lacks are None or empty lists, never missing keys.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import LocalText, Record
from mindinsight_profiler.analysis.schema.steps import StepsCovered


class DataWait(Record, frozen=True, kw_only=True):
    """Time each step waited for its batch (us), and the share of step time it took."""

    steps: list[str]
    per_step_us: list[float]  # PyTorch: `DataLoader.__next__`; MindSpore: GetNext waits
    exposed_per_step_us: list[float] | None  # not hidden by device work; None for MindSpore
    average_us: float
    covered: StepsCovered  # every step of `steps` (the first batch is data wait too)
    share: float | None  # exposed wait / step time (0-1); None when unknown
    loader_share: float | None  # raw wait / step time (0-1), an upper bound
    probe_average_us: float | msgspec.UnsetType = msgspec.UNSET  # only with a probe file


class Queue(Record, frozen=True, kw_only=True):
    """Depth samples of one data queue: how often it was empty or full."""

    name: Literal["host_queue", "chip_queue", "loader_queue"]
    capacity: int | None  # batches; None when unknown
    samples: int
    empty: int
    full: int | None  # None without a capacity
    empty_rate: float | None  # 0-1; None without samples
    full_rate: float | None
    average_size: float | None  # batches
    steady_samples: int  # samples after the first (taken as the pipeline starts)
    steady_empty: int  # empty among those: what the verdicts judge


class Workers(Record, frozen=True, kw_only=True):
    """Worker settings: the PyTorch DataLoader's (`config`) or MindData's per op (`by_op`)."""

    num_workers: int | None
    prefetch: int | None  # batches per worker (PyTorch `prefetch_factor`)
    queue_capacity: int | None  # num_workers * prefetch (PyTorch)
    by_op: dict[str, int] | None  # MindData: workers per pipeline op id
    config: dict[str, Any] | None  # PyTorch: the loader settings the probe recorded, as is


class PipelineOp(Record, frozen=True, kw_only=True):
    """One MindData pipeline op, its output-queue usage and whether it holds things up."""

    op_id: int
    op_type: str
    num_workers: int
    parent_id: int | None  # None for the root op
    queue_capacity: int | None
    queue_usage: float | None  # mean queue size / capacity (0-1); None when unknown
    flagged: bool
    reason: Literal["children_fill_faster", "source_slow", "consumer_bound"] | None


class Suggestion(LocalText, frozen=True, kw_only=True):
    """MindInsight's proposer's advice for one flagged op (`en`, `zh`: the advice alone)."""

    op: str  # '<OpType>_<id>'


class PipelineVerdict(Record, frozen=True, kw_only=True):
    """Which part of the MindData pipeline is the bottleneck, and what to change."""

    bottleneck: Literal["consumer", "ops", "none"]
    ops: list[int]  # ids of the flagged ops
    suggestions: list[Suggestion]


class CpuPerStep(Record, frozen=True, kw_only=True):
    """Mean user + system CPU % per step, over the samples MindInsight places in each."""

    steps: list[str]  # "0": samples before the first queue step
    device_pct: list[float | None] | None
    process_pct: list[float | None] | None


class CpuCurves(Record, frozen=True, kw_only=True):
    """The sampled CPU use (analysis.data_pipeline.cpu_steps): percent per sample."""

    sampling_interval_ms: float | None
    samples: int
    series: dict[str, list[float]]  # device_user/sys/io/idle, process_user/sys
    sample_steps: list[str] | None  # step of each value (None: no host queue log to map)
    per_step: CpuPerStep | None


class CpuUse(Record, frozen=True, kw_only=True):
    """Mean user + system CPU use (percent) of the machine, the process and each op."""

    device_pct: float | None
    process_pct: float | None
    per_op_pct: dict[str, float | None]  # by op id
    curves: CpuCurves | None


class DataVerdict(Record, frozen=True, kw_only=True):
    """Whether the data side is the bottleneck, and the rule that decided it."""

    bottleneck: Literal["data_processing", "data_transmission", "none"]
    rule: LocalText


class DataPipeline(Record, frozen=True, kw_only=True):
    """Data wait, queues, workers, pipeline ops, CPU use and the verdicts."""

    framework: Literal["pytorch", "mindspore"]
    data_wait: DataWait | None
    queues: list[Queue]
    workers: Workers | None
    ops: list[PipelineOp] | None  # MindSpore only
    pipeline_verdict: PipelineVerdict | None  # MindSpore only
    cpu: CpuUse | None  # MindSpore only
    verdict: DataVerdict | None
