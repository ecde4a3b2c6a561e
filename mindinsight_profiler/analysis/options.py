"""What a user configures that changes an analysis: the step trace's FP/BP points and the
device whose peaks the performance model measures against.

Read once where settings enter (the CLI's options and environment, the server's settings,
the Profiler) and passed down as one value: an analysis never reads the environment or a
file of its own, so the same trace and options always give the same report, and the cache
key (`key`) names everything that shaped a cached report.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from mindinsight_profiler.analysis.perf.devices import spec_by_name
from mindinsight_profiler.analysis.perf.specs import DeviceSpec, load_spec_file
from mindinsight_profiler.analysis.steps.step_trace import AUTO_POINTS, StepPoints
from mindinsight_profiler.errors import InputError


@dataclass(frozen=True)
class Options:
    """`points`: configured FP/BP points (else found per trace); `device`: the device the
    user named (`--device-spec`), which replaces the one recognised from the trace."""

    points: StepPoints = AUTO_POINTS
    device: DeviceSpec | None = None

    def key(self) -> str:
        """The part of a cache key these options add ("" for the defaults)."""
        parts = []
        if self.points.fp or self.points.bp:
            parts.append(f"fp={self.points.fp or ''}|bp={self.points.bp or ''}")
        if self.device is not None:
            parts.append(f"device={device_key(self.device)}")
        return "|".join(parts)


DEFAULT_OPTIONS = Options()


def device_key(spec: DeviceSpec) -> str:
    """The device's name and a digest of its figures: a user's file edited under the same
    name is another key, so reports measured against the old figures are not reused."""
    figures = (
        spec.memory_bandwidth_tbs, spec.logical_devices, sorted(spec.dense_tflops.items()),
    )  # fmt: skip
    return f"{spec.name}#{hashlib.sha256(repr(figures).encode()).hexdigest()[:10]}"


def resolve_device(value: str | None) -> DeviceSpec | None:
    """`--device-spec`'s value: a TOML file of the device table's schema holding one device,
    or a name or alias of the built-in table (any case). `InputError` names what is wrong."""
    if not value:
        return None
    path = Path(value)
    if path.suffix.lower() == ".toml" or path.is_file():
        table = load_spec_file(path)
        if len(table.devices) != 1:
            names = ", ".join(d.name for d in table.devices)
            raise InputError(path, f"holds {len(table.devices)} devices ({names}); keep the one")
        return table.devices[0]
    return spec_by_name(value)
