"""The `gpu` section: utilization, SM efficiency and occupancy per device that ran kernels.

Producer: `analysis.gpu.gpu_summary` over `analysis.gpu.device_metrics`. Utilization and
SM efficiency are percentages (0-100, rounded to 4 places), occupancy is the weighted mean
achieved occupancy in percent; the device's name, memory and compute capability are copied
from the trace's `deviceProperties` (None when the trace has none).
"""

from __future__ import annotations

from mindinsight_profiler.analysis.schema.base import Record


class GpuDevice(Record, frozen=True, kw_only=True):
    """Metrics and properties of one device over the profiled steps."""

    device: int  # device index as the trace numbers it
    name: str | None
    memory_bytes: int | None  # `totalGlobalMem`
    compute_capability: str | None  # "major.minor"
    utilization: float  # percent of the steps' time a kernel was running
    sm_efficiency: float | None  # percent; None without blocks-per-SM figures
    occupancy: float | None  # percent; None without occupancy figures
    kernel_us: float  # kernel time in the steps


class GpuSummary(Record, frozen=True, kw_only=True):
    """Means over the devices (percent) and each device's figures."""

    utilization: float
    sm_efficiency: float | None
    occupancy: float | None
    devices: list[GpuDevice]
