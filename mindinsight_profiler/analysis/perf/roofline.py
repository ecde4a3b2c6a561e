"""The device a trace is measured against, and the roofline it draws.

A roofline bounds what a call can achieve at its arithmetic intensity I (FLOPs per byte
moved): min(peak FLOPS, bandwidth x I). Below the ridge point (peak / bandwidth) a call is
memory-bound, above it compute-bound; `pct_of_roof` is achieved over that bound.

Which peak: matrix work (GEMM, convolution, attention) runs on the matrix units at the rate
of its dtype (`fp32` GEMMs on the matrix units where the table has an `fp32_matrix` figure,
as on AMD's MFMA, else on the vector units; TF32 is not assumed, since PyTorch leaves it
off for matrix products by default); every other category runs on the vector units, at the
FP32 vector rate (FP64 for FP64 work): the table has no separate half-precision vector
figures, and those ops are memory-bound on every device here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.analysis.perf.calls import MATRIX_CATEGORIES
from mindinsight_profiler.analysis.perf.devices import Said, devices_of
from mindinsight_profiler.analysis.perf.dtypes import peak_key
from mindinsight_profiler.analysis.perf.specs import DTYPES, DeviceSpec


@dataclass(frozen=True)
class Device:
    """The spec used (None: none known), how it was found, why, and any caveat."""

    spec: DeviceSpec | None
    how: str
    said: Said  # the reason, in English and Chinese
    label: str | None = None
    warnings_said: tuple[Said, ...] = ()

    @property
    def reason(self) -> str:
        return self.said.en

    def peak_tflops(self, dtype: str, category: str) -> float | None:
        """Dense peak of one trace device for work of `dtype` in `category` (see module)."""
        if self.spec is None:
            return None
        if category in MATRIX_CATEGORIES:
            key = peak_key(dtype)
            if key in ("fp32", "fp64"):
                return self.spec.device_tflops(f"{key}_matrix") or self.spec.device_tflops(key)
            return self.spec.device_tflops(key)
        return self.spec.device_tflops("fp64" if dtype == "fp64" else "fp32")

    @property
    def bandwidth_tbps(self) -> float | None:
        return self.spec.device_bandwidth_tbs if self.spec is not None else None

    def roof(self, peak: float | None, intensity: float | None) -> tuple[float | None, str | None]:
        """(roof TFLOPS at `intensity`, "compute" or "memory"); the compute roof alone, with
        no bound named, when the bytes or the bandwidth are unknown."""
        if peak is None:
            return None, None
        bandwidth = self.bandwidth_tbps
        if intensity is None or bandwidth is None:
            return peak, None
        memory_roof = bandwidth * intensity
        return (memory_roof, "memory") if memory_roof < peak else (peak, "compute")


def find_device(meta: Mapping[str, Any], user: DeviceSpec | None, on_host: bool) -> Device:
    """The user's device, else the one the trace names (all its devices must agree)."""
    if user is not None:
        origin_zh = "内置设备表" if user.origin == "built-in" else user.origin  # or a file
        said = Said(
            f"named by --device-spec ({user.origin})", f"由 --device-spec 指定（{origin_zh}）"
        )
        return Device(user, "user", said, user.name)
    if on_host:  # the operators ran on the host: a GPU the trace lists did not run them
        return Device(None, "none", Said(
            "no device work in the trace (the operators ran on the host); "
            "name a device with --device-spec to measure against it",
            "trace 中没有设备上的工作（算子在主机上运行）；"
            "请用 --device-spec 指定一个设备，以它为基准衡量",
        ))  # fmt: skip
    matches = devices_of(meta)
    if not matches:
        return Device(None, "none", Said(
            "the trace does not name its device; name one with --device-spec",
            "trace 没有写明它的设备；请用 --device-spec 指定一个",
        ))  # fmt: skip
    labels = {m.label for m in matches.values()}
    first = next(iter(matches.values()))
    if len(labels) > 1 or first.spec is None:
        listed = ", ".join(sorted(str(x) for x in labels))
        why = (
            first.said
            if len(labels) == 1
            else Said(f"its devices differ: {listed}", f"它的设备各不相同：{listed}")
        )
        return Device(None, "none", Said(
            f"{why.en}; name the device with --device-spec",
            f"{why.zh}；请用 --device-spec 指定设备",
        ))  # fmt: skip
    return Device(first.spec, first.how, first.said, first.label, first.warnings_said)


def device_answer(device: Device) -> dict[str, Any]:
    """The section's `device` object: name, how, reason, per-device peaks and sources."""
    spec = device.spec
    peaks = {}
    sources: list[dict[str, Any]] = []
    if spec is not None:
        for key in DTYPES:
            value = spec.device_tflops(key)
            if value is not None:
                peaks[key] = round(value, 3)
        seen = set()
        for source in spec.sources.values():
            if source.key not in seen:
                seen.add(source.key)
                sources.append({"key": source.key, "title": source.title, "url": source.url})
    return {
        "name": device.label,
        "how": device.how,
        "reason": device.said.en,
        "reason_zh": device.said.zh,
        "peak_tflops": peaks,
        "bandwidth_tbps": device.bandwidth_tbps,
        "sources": sources,
        "warnings": [w.en for w in device.warnings_said],
        "warnings_zh": [w.zh for w in device.warnings_said],
    }
