"""The `perf_model` section: how far each operator and each step is from the hardware.

Producer: `analysis.perf.section.perf_model_section`. FLOPs and bytes come from the
operators' recorded shapes (`analysis.perf.op_work`); peaks from the device table
(`analysis.perf.device_specs.toml`) or the user's `--device-spec`. Every figure that needs a
peak is null when the device or the dtype's peak is unknown, and `PerfModel.unavailable`
says why. Units are in the names: `gflops` (1e9 FLOPs), `gbytes` (1e9 bytes), `tflops`
(1e12 FLOP/s), `tbps` (1e12 bytes/s), `us`; shares and `pct_of_roof`, `mfu` and `hfu` are
fractions (0-1), not percentages.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.steps import StepsCovered


class PerfSource(Record, frozen=True, kw_only=True):
    key: str
    title: str
    url: str | None


class PerfDevice(Record, frozen=True, kw_only=True):
    """The device the figures are measured against, how it was found, and its peaks as one
    trace device sees them (a package of two dies counts half)."""

    name: str | None  # null: no device known; "A or B" when several entries fit alike
    how: Literal["user", "name", "family", "properties", "none"]
    reason: str
    reason_zh: str  # the same in Simplified Chinese, with the same names and figures
    peak_tflops: dict[str, float]  # dense peak per device-table key ("bf16", "fp32", ...)
    bandwidth_tbps: float | None
    sources: list[PerfSource]
    warnings: list[str]
    warnings_zh: list[str]  # `warnings` in Simplified Chinese, one for one


class PerfRow(Record, frozen=True, kw_only=True):
    """One operator (`input_shapes` ""), one operator at one input-shape signature, or one
    kernel name (`analysis.perf.kernel_rows`)."""

    name: str
    input_shapes: str  # Kineto's `Input Dims` text ("" on rows by name)
    dtype: str  # canonical compute dtype ("bf16", "fp32"...)
    category: str  # gemm, conv, attention, norm, softmax, elementwise, ...
    calls: int
    gflops_per_call: float
    gbytes_per_call: float | None  # null: the trace gives no element types
    time_us: float  # device time of the calls (host time on a CPU-only trace), summed
    arithmetic_intensity: float | None  # FLOPs per byte
    achieved_tflops: float | None  # null: no time measured
    achieved_tbps: float | None
    roof_tflops: float | None  # the roofline at this intensity: min(peak, bandwidth x AI)
    pct_of_roof: float | None  # achieved / roof, 0-1
    bound: Literal["compute", "memory"] | None
    longest_call_ns: list[int]  # [start, end] of the longest call: where to look on the timeline


class PerfCategory(Record, frozen=True, kw_only=True):
    """Counted work of one category over the whole trace (`communication`: time only)."""

    category: str
    calls: int
    gflops: float
    gbytes: float | None
    time_us: float
    time_share: float  # of the trace's device time (host time on a CPU-only trace)
    achieved_tflops: float | None
    pct_of_roof: float | None  # time-weighted over its rows


class PerfStep(Record, frozen=True, kw_only=True):
    """One step: its FLOPs and how much of the hardware they used."""

    name: str
    duration_us: float
    model_gflops: float  # matrix work (GEMM, convolution, attention), less recomputation
    hardware_gflops: float  # matrix work as executed, recomputation included
    total_gflops: float  # every counted call, vector work included
    gbytes: float
    mfu: float | None  # model FLOPs over the step at the peaks of the dtypes used
    hfu: float | None  # the same for the hardware FLOPs


class PerfUnknown(Record, frozen=True, kw_only=True):
    """An operator the model could not count: never guessed, listed with the reason."""

    name: str
    calls: int
    reason: str
    reason_zh: str  # the same in Simplified Chinese, with the same names and shapes
    device_us: float  # device time it launched that no counted call covers


class PerfTotals(Record, frozen=True, kw_only=True):
    gflops: float
    model_gflops: float
    gbytes: float
    counted_calls: int
    unknown_calls: int
    time_base: Literal["device", "host"]  # what `time_us` figures measure
    device_us: float
    covered_share: float | None  # of device time (host self time on CPU traces), 0-1
    compute_share: float | None  # of device time less communication
    mfu: float | None  # over the averaged steps
    hfu: float | None
    low_roof_share: float | None  # of compute time, in calls below 20 % of their roof
    memory_bound_share: float | None  # of covered time, in memory-bound calls


class PerfModel(Record, frozen=True, kw_only=True):
    """FLOPs, bytes, roofline and utilisation of one worker (see the module doc)."""

    device: PerfDevice
    unavailable: str | None  # why peak-based figures are null (null: they are not)
    unavailable_zh: str | None  # the same in Simplified Chinese
    totals: PerfTotals
    categories: list[PerfCategory]
    steps: list[PerfStep]
    averaged_from: int  # first step of the averages (as `steps.averaged_from`)
    covered: StepsCovered  # the same steps, described (as `steps.covered`)
    operators: list[PerfRow]  # by name: every call with known work, its own time
    shapes: list[PerfRow]  # by name + shapes: counted calls only (the roofline's points)
    shape_count: int  # rows before `shapes` was cut
    kernels: list[PerfRow]  # by kernel name: kernels that are the only one of a counted call
    unknown: list[PerfUnknown]
