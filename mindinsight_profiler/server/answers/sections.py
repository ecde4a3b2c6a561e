"""Answers that carry a report section: overview, step trace, data pipeline, memory,
communication and modules.

Each reuses the report's own struct for its section (`analysis.schema`), so the section is
declared once for the cache, the CLI's JSON and the API. A section the input cannot give is
null (`data: null`), as in the report.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import LocalText, Record
from mindinsight_profiler.analysis.schema.communication import (
    Communication,
    Distributed,
    Parallel,
)
from mindinsight_profiler.analysis.schema.data_pipeline import DataPipeline, DataVerdict
from mindinsight_profiler.analysis.schema.device import GpuSummary
from mindinsight_profiler.analysis.schema.dynamic_shape import DynamicShape
from mindinsight_profiler.analysis.schema.memory import AllocatedPeak, Memory, ReservedPeak
from mindinsight_profiler.analysis.schema.npu import Npu
from mindinsight_profiler.analysis.schema.operators import Aicpu, Modules, OpTypes
from mindinsight_profiler.analysis.schema.perf import PerfModel
from mindinsight_profiler.analysis.schema.perf_mindspore import MindSporeFlops
from mindinsight_profiler.analysis.schema.report import InputWarning
from mindinsight_profiler.analysis.schema.steps import (
    Breakdown,
    Steps,
    StepsCovered,
    StepTrace,
    StepTraceAverage,
)
from mindinsight_profiler.analysis.schema.window import WindowEvent, WindowLimit
from mindinsight_profiler.server.answers.base import Where


class OverviewDataWait(Record, frozen=True, kw_only=True):
    """The three data-wait figures the overview shows (all null without a data wait)."""

    average_us: float | None
    covered: StepsCovered | None  # the steps `average_us` covers
    share: float | None
    loader_share: float | None


class OverviewDataPipeline(Record, frozen=True, kw_only=True):
    """The data pipeline cut to what the overview card shows."""

    framework: Literal["pytorch", "mindspore"]
    data_wait: OverviewDataWait
    verdict: DataVerdict | None


class OverviewMemoryDevice(Record, frozen=True, kw_only=True):
    """One device's peaks (null where the report has none: a table-only Ascend device)."""

    device: str
    peak_allocated: AllocatedPeak | None
    peak_reserved: ReservedPeak | None


class OverviewMemory(Record, frozen=True, kw_only=True):
    """The memory section cut to each device's peaks."""

    devices: list[OverviewMemoryDevice]


class OverviewStepStages(Record, frozen=True, kw_only=True):
    """MindSpore's own step split (its step-trace file), as MindInsight's overview shows it."""

    fp_point: str | None
    bp_point: str | None
    average: StepTraceAverage


class OverviewPerf(Record, frozen=True, kw_only=True):
    """The performance model cut to the overview's MFU card (fractions, 0-1)."""

    device: str | None
    unavailable: str | None  # why MFU is null
    unavailable_zh: str | None  # the same in Simplified Chinese
    mfu: float | None
    hfu: float | None
    covered_share: float | None
    low_roof_share: float | None
    step_mfu: list[float | None]


class OverviewWindow(Record, frozen=True, kw_only=True):
    """The report's `window` cut to the overview's marker: how much of the profiled steps is
    one-off work (compile, initialisation, capture, warm-up; shares 0-1), where the longest
    of each kind is (`start_ns`/`end_ns` from the timeline's origin, as every API time), and
    why steady-state rules cannot judge the window (`limit`, null when they can)."""

    total_us: dict[str, float]
    share: dict[str, float]
    window_share: float
    longest: dict[str, WindowEvent]
    limit: WindowLimit | None


class PageAvailability(Record, frozen=True, kw_only=True):
    """Whether a page has anything for this input (analysis.pages), and if not, why."""

    available: bool
    reason: LocalText | None  # what is missing and how to record it; null when available


class Overview(Where, frozen=True, kw_only=True):
    """`/runs/<run>/overview`: the report's summary sections, cut for the overview page."""

    format: str
    framework: Literal["pytorch", "mindspore", "unknown"]
    device_type: Literal["gpu", "npu", "cpu"]
    steps: Steps
    breakdown_us: Breakdown
    gpu: GpuSummary | None
    npu: Npu | None
    op_types: OpTypes | None
    step_stages: OverviewStepStages | None  # MindSpore step-trace files only
    breakdown_per_step_us: list[Breakdown]
    data_pipeline: OverviewDataPipeline | None
    memory: OverviewMemory | None
    distributed: Distributed | None
    parallel: Parallel | None
    perf: OverviewPerf | None  # MFU (analysis.perf); null without operator calls
    window: OverviewWindow | None  # one-off work in the window; null without steps
    warnings: list[InputWarning]  # files skipped or partly read: shown on every page
    pages: dict[str, PageAvailability]  # every page of the run: the menu greys out the empty


class AicpuAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/aicpu`: MindSpore's AI CPU tables (null for inputs without them)."""

    data: Aicpu | None


class DynamicShapeAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/dynamic-shape`: MindSpore's dynamic-shape view (null without the file)."""

    data: DynamicShape | None


class PerfModelAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/perf-model`: FLOPs, roofline and MFU (null without operator calls).

    The report's section, but each row's `longest_call_ns` is relative to the timeline's
    origin (as every time the API serves), so it opens as a timeline window."""

    data: PerfModel | None


class MindSporeFlopsAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/mindspore-flops`: MindSpore's own FLOPs files (null without them)."""

    data: MindSporeFlops | None


class StepTraceAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/step-trace`: the report's step trace, or one split at the asked points."""

    data: StepTrace | None


class HostQueueSteps(Record, frozen=True, kw_only=True):
    """One MindData host queue's size per step (the first source decides the verdict)."""

    source: str
    used_for_verdict: bool
    capacity: int | None
    steps: list[str]
    size: list[int]


class ChipQueueSteps(Record, frozen=True, kw_only=True):
    """The device queue's size at each GetNext, and how long each GetNext waited (us)."""

    steps: list[str]
    size: list[int]
    wait_us: list[float]


class QueueTimes(Record, frozen=True, kw_only=True):
    """Host get/push/total time per step of one source (null: not recorded that step)."""

    source: str
    steps: list[str]
    get_us: list[float | None]
    push_us: list[float | None]
    total_us: list[float | None]


class QueueSteps(Record, frozen=True, kw_only=True):
    """MindData queue sizes and transfer times per step (not in the report: from the trace)."""

    host: list[HostQueueSteps]
    chip: ChipQueueSteps | None
    times: list[QueueTimes]


class DataPipelineAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/data-pipeline`: the section, and per-step queues for MindSpore inputs."""

    data: DataPipeline | None
    queue_steps: QueueSteps | None


class MemoryAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/memory`: the memory section (only the asked device, when one is asked)."""

    data: Memory | None


class CommunicationAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/communication`: this rank's communication section."""

    data: Communication | None


class ModulesAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/modules`: time per nn.Module (PyTorch inputs recorded `with_stack`)."""

    data: Modules | None
