"""The overview report of one worker, as one declaration for the cache, the API and the UI.

`Report` is what `analysis.report.build_report` returns, the cache stores as `report.json`
and the server serves; `AnalyseOutput` is what `mindinsight analyse --format json` prints:
the report followed by the worker and span it describes. Fields are in the key order of the
JSON (`REPORT_VERSION` of `analysis.report` changes with them).
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.communication import (
    Communication,
    Distributed,
    Parallel,
)
from mindinsight_profiler.analysis.schema.data_pipeline import DataPipeline
from mindinsight_profiler.analysis.schema.device import GpuSummary
from mindinsight_profiler.analysis.schema.dynamic_shape import DynamicShape
from mindinsight_profiler.analysis.schema.ledger import Ledger
from mindinsight_profiler.analysis.schema.memory import Memory
from mindinsight_profiler.analysis.schema.npu import Npu
from mindinsight_profiler.analysis.schema.operators import (
    Aicpu,
    KernelRow,
    Modules,
    OperatorRow,
    OpTypes,
)
from mindinsight_profiler.analysis.schema.perf import PerfModel
from mindinsight_profiler.analysis.schema.perf_mindspore import MindSporeFlops
from mindinsight_profiler.analysis.schema.steps import Breakdown, Steps, StepTrace
from mindinsight_profiler.analysis.schema.window import Window
from mindinsight_profiler.formats.spec import FormatTag


class InputWarning(Record, frozen=True, kw_only=True):
    """A file the readers skipped or partly read, or another problem with the input."""

    file: str | None  # a name relative to the input; None: the input as a whole
    message: str


class Report(Record, frozen=True, kw_only=True):
    """The overview report of one worker; a section the input cannot give is null."""

    report_version: int
    source: str  # file or folder name of the input
    format: FormatTag  # the reader (formats.registry)
    framework: Literal["pytorch", "mindspore", "unknown"]
    device_type: Literal["gpu", "npu", "cpu"]
    steps: Steps
    breakdown_us: Breakdown  # the average step
    breakdown_per_step_us: list[Breakdown]
    ledger: Ledger | None  # each step's time, attributed once (analysis.steps.ledger)
    window: Window | None  # one-off work in the window (analysis.steps.window)
    gpu: GpuSummary | None
    npu: Npu | None  # Ascend's own step view and op types (NPU inputs)
    op_types: OpTypes | None
    step_trace: StepTrace | None
    data_pipeline: DataPipeline | None
    memory: Memory | None
    communication: Communication | None
    modules: Modules | None
    operators: list[OperatorRow]
    kernels: list[KernelRow]
    aicpu: Aicpu | None  # MindSpore's AI CPU table (aicpu_intermediate_*.csv)
    dynamic_shape: DynamicShape | None  # MindSpore's dynamic_shape_info_*.json
    perf_model: PerfModel | None  # FLOPs, roofline and MFU (analysis.perf)
    mindspore_flops: MindSporeFlops | None  # MindSpore's own flops_* files
    distributed: Distributed | None
    parallel: Parallel | None
    warnings: list[InputWarning]  # what could not be read or used (analysis.input_warnings)


class AnalyseOutput(Report, frozen=True, kw_only=True):
    """`mindinsight analyse --format json`: the report, then which worker and span it is."""

    worker: str
    span: str  # "" when the worker has one unnamed span
