"""Which accelerator a trace ran on, and its entry in the device table.

A trace says what it ran on in different ways: Kineto writes `deviceProperties` (name,
memory, SM or CU count, compute capability; CUDA and ROCm alike, but ROCm 6.2 may call an
MI250 GCD just "AMD Radeon Graphics"); torch_npu's database names the NPU (`NPU_INFO`, kept
by the reader as `meta["device_name"]`, e.g. "Ascend910B"). The match, in order:

1. the name is a known name or alias (`names.name_key`): that entry;
2. the name names a family ("NVIDIA H100"): its entries that fit the name's form and memory
   and the trace's properties (compute capability, SM/CU count, memory);
3. the name names no model ("AMD Radeon Graphics"): the vendor's entries that fit the
   properties, which must include the unit count and the memory.

Several entries may fit (an MI210 and one GCD of an MI250 are alike): when their per-device
figures agree within 1 % the first is taken and all are listed, otherwise there is no match
and the reason names the candidates. A name the table does not know matches nothing, even
when its properties fit a neighbour ("NVIDIA H800" is not an H100): a wrong peak is worse
than none. A user names the device instead with `spec_by_name` or a file (`load_spec_file`).

Every reason and warning is written in English and in Simplified Chinese at once, from the
same parts (`Said`), so both carry the same names and figures.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.analysis.perf.names import name_key, name_parts
from mindinsight_profiler.analysis.perf.observed import (
    Observed,
    Said,
    described,
    join,
    misfits,
    observed_from_kineto,
)
from mindinsight_profiler.analysis.perf.specs import (
    DTYPES,
    DeviceSpec,
    DeviceTable,
    builtin_table,
    load_spec_file,
)
from mindinsight_profiler.errors import InputError

__all__ = [
    "DeviceMatch",
    "Observed",
    "Said",
    "close_names",
    "devices_of",
    "load_spec_file",
    "match_device",
    "observed_from_kineto",
    "spec_by_name",
]

#: Figures of two entries "agree" within this relative difference.
AGREE = 0.01


@dataclass(frozen=True)
class DeviceMatch:
    """The table entry of one device (None when unsure), how it was found and why."""

    spec: DeviceSpec | None
    how: str  # "name", "family", "properties" or "none"
    said: Said
    candidates: tuple[str, ...] = ()
    warnings_said: tuple[Said, ...] = ()

    @property
    def reason(self) -> str:
        return self.said.en

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w.en for w in self.warnings_said)

    @property
    def label(self) -> str | None:
        """The device's name for people: every candidate when several fit alike."""
        if self.spec is None:
            return None
        return " or ".join(self.candidates) if len(self.candidates) > 1 else self.spec.name


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= AGREE * max(a, b)


def _agree(specs: list[DeviceSpec]) -> bool:
    """Whether every entry gives one trace device the same figures (within `AGREE`)."""
    first = specs[0]
    for other in specs[1:]:
        if set(other.dense_tflops) != set(first.dense_tflops):
            return False
        pairs = [(first.device_tflops(d), other.device_tflops(d)) for d in DTYPES]
        pairs.append((first.device_bandwidth_tbs, other.device_bandwidth_tbs))
        if not all(_close(a, b) for a, b in pairs):
            return False
    return True


def _name_misfits(spec: DeviceSpec, form: str | None, memory_gb: int | None) -> list[Said]:
    """How a name's form ("PCIe") and memory ("80GB") contradict an entry of its family."""
    out = []
    if form is not None and spec.variant != form:
        out.append(Said(f"form {form}, not {spec.variant}", f"形态 {form}，而非 {spec.variant}"))
    if memory_gb is not None and not _close(spec.device_memory_gb, float(memory_gb)):
        table_gb = f"{spec.device_memory_gb or 0:g}"
        out.append(Said(f"{memory_gb} GB, not {table_gb}", f"{memory_gb} GB，而非 {table_gb} GB"))
    return out


def _decide(
    found: list[DeviceSpec], how: str, what: Said, why: Mapping[str, list[Said]]
) -> DeviceMatch:
    """One match from the entries that fit; `why`: each rejected entry's misfits."""
    names = tuple(s.name for s in found)
    if not found:
        each = {n: join(m, ", ", "，") for n, m in why.items()}
        rejected = join([Said(f"{n}: {m.en}", f"{n}：{m.zh}") for n, m in each.items()], "; ", "；")
        return DeviceMatch(None, "none", Said(
            f"{what.en}: no entry fits" + (f" ({rejected.en})" if why else ""),
            f"{what.zh}：设备表中没有相符的条目" + (f"（{rejected.zh}）" if why else ""),
        ))  # fmt: skip
    if len(found) == 1:
        one = found[0].name
        return DeviceMatch(found[0], how, Said(f"{what.en}: {one}", f"{what.zh}：{one}"), names)
    listed = ", ".join(names)
    if _agree(found):
        return DeviceMatch(found[0], how, Said(
            f"{what.en}: {listed} fit, with the same per-device figures (within "
            f"{AGREE:.0%}); using {found[0].name}'s",
            f"{what.zh}：{listed} 都相符，且每个设备的指标相同（相差不超过 {AGREE:.0%}）；"
            f"采用 {found[0].name} 的指标",
        ), names)  # fmt: skip
    return DeviceMatch(None, "none", Said(
        f"{what.en}: {listed} fit, with different figures; name the device",
        f"{what.zh}：{listed} 都相符，但指标各不相同；请指定设备",
    ), names)  # fmt: skip


def match_device(obs: Observed, table: DeviceTable | None = None) -> DeviceMatch:
    """The table entry of an observed device (see the module's doc for the order)."""
    table = table or builtin_table()
    name = obs.name or ""
    spec = table.by_key.get(name_key(name)) if name_key(name) else None
    if spec is not None:
        wrong = join(misfits(spec, obs), "; ", "；")
        warnings = (
            (Said(
                f"{spec.name}: the trace reports {wrong.en} (a MIG slice or a partition?); "
                "the table's figures are the whole device's",
                f"{spec.name}：trace 报告的是{wrong.zh}（MIG 切片或分区？）；"
                "设备表的指标是整个设备的",
            ),)
            if wrong.en else ()
        )  # fmt: skip
        said = Said(f"{name!r} is {spec.name}", f"{name!r} 即 {spec.name}")
        return DeviceMatch(spec, "name", said, (spec.name,), warnings)
    parts = name_parts(name)
    seen = described(obs)
    if parts.models:
        family = [s for s in table.devices if s.family in parts.models]
        if not family:
            close = ", ".join(close_names(name, table))
            return DeviceMatch(None, "none", Said(
                f"{name!r} is not in the device table"
                + (f"; close names: {close}" if close else ""),
                f"设备表中没有 {name!r}" + (f"；相近的名称：{close}" if close else ""),
            ))  # fmt: skip
        why = {
            s.name: _name_misfits(s, parts.form, parts.memory_gb) + misfits(s, obs) for s in family
        }
        found = [s for s in family if not why[s.name]]
        what = Said(f"{name!r} ({seen.en})", f"{name!r}（{seen.zh}）")
        return _decide(found, "family", what, why)
    vendor = obs.vendor or parts.vendor
    what = Said(
        f"{name or 'an unnamed device'} ({seen.en})",
        f"{name or '未命名的设备'}（{seen.zh}）",
    )
    if vendor is None or obs.units is None or obs.memory_gib is None:
        return DeviceMatch(None, "none", Said(
            f"{what.en}: too little to tell the device by",
            f"{what.zh}：信息太少，无法判断是哪种设备",
        ))  # fmt: skip
    found = [
        s for s in table.devices
        if s.vendor == vendor and s.device_units and s.device_memory_gb and not misfits(s, obs)
    ]  # fmt: skip
    return _decide(found, "properties", what, {})


def devices_of(meta: Mapping[str, Any], table: DeviceTable | None = None) -> dict[int, DeviceMatch]:
    """Each device of a trace's metadata -> its match (-1: an NPU of unknown id).

    Kineto's `device_properties`, else an Ascend reader's `device_name`; empty when the
    trace names no device (a CPU trace, or a torch_npu text export, which has no chip name).
    """
    props = meta.get("device_properties")
    if isinstance(props, list) and props:
        out: dict[int, DeviceMatch] = {}
        seen: dict[Observed, DeviceMatch] = {}
        for i, p in enumerate(props):
            if isinstance(p, dict):
                obs = observed_from_kineto(p)
                if obs not in seen:
                    seen[obs] = match_device(obs, table)
                out[p["id"] if isinstance(p.get("id"), int) else i] = seen[obs]
        return out
    name = meta.get("device_name")
    if isinstance(name, str) and name:
        device = meta.get("device_id")
        return {device if isinstance(device, int) else -1: match_device(Observed(name), table)}
    return {}


def close_names(name: str, table: DeviceTable | None = None, limit: int = 6) -> list[str]:
    """Entries whose name or alias resembles `name` (part of it, or a near spelling)."""
    table = table or builtin_table()
    key = name_key(name)
    if not key:
        return []
    keys = list(table.by_key)
    hits = [k for k in keys if len(key) >= 2 and (key in k or k in key)]
    hits += difflib.get_close_matches(key, keys, n=limit, cutoff=0.6)
    out: list[str] = []
    for k in hits:
        spec_name = table.by_key[k].name
        if spec_name not in out:
            out.append(spec_name)
    return out[:limit]


def spec_by_name(
    name: str, table: DeviceTable | None = None, origin: str = "--device-spec"
) -> DeviceSpec:
    """The entry a user names (any alias, any case); `InputError` lists close names."""
    table = table or builtin_table()
    spec = table.by_key.get(name_key(name))
    if spec is not None:
        return spec
    close = close_names(name, table)
    hint = (
        f"close names: {', '.join(close)}"
        if close
        else "known devices: " + ", ".join(s.name for s in table.devices)
    )
    raise InputError(
        origin, f"unknown device {name!r}; {hint}; or give a TOML file of the same schema"
    )
