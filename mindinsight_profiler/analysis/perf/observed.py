"""What a trace says about its device, and how that contradicts an entry of the device table.

Every piece is said in English and in Simplified Chinese at once (`Said`), built from the
same parts, so that the match's reasons and warnings (`analysis.perf.devices`) carry the same
names and figures in both languages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.analysis.perf.names import name_parts
from mindinsight_profiler.analysis.perf.specs import DeviceSpec

__all__ = ["MEMORY_FIT", "Observed", "Said", "described", "join", "misfits", "observed_from_kineto"]

#: A trace's memory (GiB, as the runtime reports it, less reserved) fits a table size (GB as
#: marketed) within these ratios: V100 16GB reports 15.8 GiB, L40S 48GB about 44.5 with ECC.
MEMORY_FIT = (0.85, 1.05)


@dataclass(frozen=True)
class Said:
    """One explanation in English and Simplified Chinese, built from the same parts."""

    en: str
    zh: str


def join(items: list[Said], en: str, zh: str) -> Said:
    """The pieces joined by each language's own separator ("; " and "；")."""
    return Said(en.join(i.en for i in items), zh.join(i.zh for i in items))


@dataclass(frozen=True)
class Observed:
    """What a trace says about one device."""

    name: str | None
    vendor: str | None = None
    compute_capability: str | None = None
    units: int | None = None
    memory_gib: float | None = None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def observed_from_kineto(props: Mapping[str, Any]) -> Observed:
    """One Kineto `deviceProperties` entry (CUDA or ROCm) as an observation."""
    name = props.get("name") if isinstance(props.get("name"), str) else None
    vendor = name_parts(name).vendor if name else None
    if vendor is None:  # ROCm wavefronts are 64 wide, CUDA warps 32
        vendor = {64: "amd", 32: "nvidia"}.get(_int(props.get("warpSize")) or 0)
    major, minor = props.get("computeMajor"), props.get("computeMinor", 0)
    cc = f"{major}.{minor}" if isinstance(major, int) and isinstance(minor, int) else None
    mem = _int(props.get("totalGlobalMem"))
    return Observed(name, vendor, cc, _int(props.get("numSms")), mem / 2**30 if mem else None)


def misfits(spec: DeviceSpec, obs: Observed) -> list[Said]:
    """How the trace's properties contradict an entry (empty: they fit, or are unknown)."""
    out = []
    cc = spec.compute_capability
    if obs.compute_capability and cc and obs.compute_capability != cc:
        got = obs.compute_capability
        out.append(Said(f"compute capability {got}, not {cc}", f"计算能力 {got}，而非 {cc}"))
    units = spec.device_units
    if obs.units and units and obs.units != units:
        unit = spec.unit_name
        out.append(
            Said(f"{obs.units} {unit}s, not {units}", f"{obs.units} 个 {unit}，而非 {units} 个")
        )
    mem = spec.device_memory_gb
    if obs.memory_gib and mem and not MEMORY_FIT[0] <= obs.memory_gib / mem <= MEMORY_FIT[1]:
        out.append(Said(
            f"{obs.memory_gib:.1f} GiB of memory, not about {mem:g} GB",
            f"显存 {obs.memory_gib:.1f} GiB，而非约 {mem:g} GB",
        ))  # fmt: skip
    return out


def described(obs: Observed) -> Said:
    """The trace's properties of a device in words, for a reason that names no model."""
    cc = obs.compute_capability
    parts = [Said(f"compute capability {cc}", f"计算能力 {cc}")] if cc else []
    unit, unit_zh = {"nvidia": ("SMs", "SM"), "amd": ("CUs", "CU")}.get(
        obs.vendor or "", ("units", "计算单元")
    )
    parts += [Said(f"{obs.units} {unit}", f"{obs.units} 个 {unit_zh}")] if obs.units else []
    parts += (
        [Said(f"{obs.memory_gib:.1f} GiB", f"{obs.memory_gib:.1f} GiB")] if obs.memory_gib else []
    )
    joined = join(parts, ", ", "，")
    return Said(joined.en or "no properties", joined.zh or "没有属性")
