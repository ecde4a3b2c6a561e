"""The device table: peak dense throughput and memory per accelerator, each figure sourced.

The figures live as data in `device_specs.toml` (schema in docs/perf-model.md, "Devices") so
that a new accelerator or a corrected figure is a reviewed edit of data with its citation,
not code. A user's file for `--device-spec` has the same schema and goes through the same
checks; every problem is one `InputError` naming the file, the device and the field, because
a silently wrong peak would make every efficiency figure derived from it wrong.

Figures are per package as the vendor publishes them; `DeviceSpec.per_device` divides by
`logical_devices` for a package that software sees as several devices (MI250: 2 GCDs).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.perf.names import name_key
from mindinsight_profiler.errors import InputError

SCHEMA_VERSION = 1
BUILTIN = "device_specs.toml"
#: Dense peak keys, TFLOPS (TOPS for int8). fp32/fp64: vector units; the rest matrix units.
DTYPES = (
    "fp64", "fp64_matrix", "fp32", "fp32_matrix", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4",
    "int8",
)  # fmt: skip
#: Every figure a device can carry, each of which needs a source when present.
FIGURES = (
    "units", "logical_devices", "memory_gb", "memory_bandwidth_tbs", "compute_capability",
    *DTYPES,
)  # fmt: skip
VENDORS = {"nvidia": "SM", "amd": "CU", "huawei": "AI core"}
VARIANTS = ("SXM", "PCIe", "OAM", "NVL", "module")
_DEVICE_KEYS = {
    "name", "aliases", "vendor", "family", "variant", "compute_capability", "units",
    "logical_devices", "memory_gb", "memory_bandwidth_tbs", "source", "figure_sources",
    "dense_tflops", "derived", "note",
}  # fmt: skip
_CAPABILITY = re.compile(r"\d+\.\d+")
_FAMILY = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Source:
    """Where figures come from: a document's title and address."""

    key: str
    title: str
    url: str | None


@dataclass(frozen=True, eq=False)
class DeviceSpec:
    """One accelerator as its vendor publishes it (figures per package, dense peaks)."""

    name: str
    aliases: tuple[str, ...]
    vendor: str
    family: str
    variant: str | None
    compute_capability: str | None
    units: int | None
    logical_devices: int
    memory_gb: float | None
    memory_bandwidth_tbs: float | None
    dense_tflops: Mapping[str, float]
    sources: Mapping[str, Source]  # figure -> its source
    derived: Mapping[str, str]  # figure -> how it was derived from its source
    note: str
    origin: str  # "built-in" or the user's file

    @property
    def unit_name(self) -> str:
        return VENDORS[self.vendor]

    def per_device(self, value: float | None) -> float | None:
        """A package figure as one trace device sees it (None stays None)."""
        return None if value is None else value / self.logical_devices

    def device_tflops(self, dtype: str) -> float | None:
        """Dense peak of one trace device for `dtype` (a `DTYPES` key), None when unknown."""
        return self.per_device(self.dense_tflops.get(dtype))

    @property
    def device_bandwidth_tbs(self) -> float | None:
        return self.per_device(self.memory_bandwidth_tbs)

    @property
    def device_memory_gb(self) -> float | None:
        return self.per_device(self.memory_gb)

    @property
    def device_units(self) -> int | None:
        return None if self.units is None else self.units // self.logical_devices


@dataclass(frozen=True)
class DeviceTable:
    """A validated table: its sources and devices, and every name's lookup key."""

    sources: Mapping[str, Source]
    devices: tuple[DeviceSpec, ...]
    by_key: Mapping[str, DeviceSpec] = field(repr=False)


class SpecError(Exception):
    """A problem in a table, located (device and field); the loader adds the file."""


def _positive(where: str, value: object, integer: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok and integer and not isinstance(value, int):
        ok = False
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:  # type: ignore[arg-type]
        kind = "a positive integer" if integer else "a positive number"
        raise SpecError(f"{where} must be {kind}, not {value!r}")
    return value  # type: ignore[return-value]


def _text(where: str, value: object, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{where} must be a non-empty string, not {value!r}")
    return value


def _sources(doc: Mapping[str, Any]) -> dict[str, Source]:
    raw = doc.get("sources", {})
    if not isinstance(raw, dict):
        raise SpecError("[sources] must be a table of tables")
    out: dict[str, Source] = {}
    for key, s in raw.items():
        if not isinstance(s, dict) or set(s) - {"title", "url"}:
            raise SpecError(f"sources.{key} must be a table with `title` and optional `url`")
        title = _text(f"sources.{key}.title", s.get("title"))
        url = _text(f"sources.{key}.url", s.get("url"), required=False)
        if url is not None and not url.startswith(("https://", "http://")):
            raise SpecError(f"sources.{key}.url must be an http(s) address, not {url!r}")
        out[key] = Source(key, str(title), url)
    return out


def _figure_sources(
    where: str, d: Mapping[str, Any], present: set[str], sources: Mapping[str, Source]
) -> dict[str, Source]:
    """Every present figure's source: its own in `figure_sources`, else the device's."""
    own = d.get("figure_sources", {})
    if not isinstance(own, dict):
        raise SpecError(f"{where}.figure_sources must be a table")
    for fig, key in own.items():
        if fig not in present:
            raise SpecError(f"{where}.figure_sources.{fig}: the device has no such figure")
        if key not in sources:
            raise SpecError(f"{where}.figure_sources.{fig}: no source {key!r} in [sources]")
    default = d.get("source")
    if default is not None and default not in sources:
        raise SpecError(f"{where}.source: no source {default!r} in [sources]")
    out: dict[str, Source] = {}
    for fig in sorted(present):
        key = own.get(fig, default)
        if key is None:
            raise SpecError(f"{where}: figure {fig!r} has no source (set `source`)")
        out[fig] = sources[key]
    return out


def _device(i: int, d: object, sources: Mapping[str, Source], origin: str) -> DeviceSpec:
    if not isinstance(d, dict):
        raise SpecError(f"device[{i}] must be a table")
    name = str(_text(f"device[{i}].name", d.get("name")))
    where = f"device {name!r}"
    unknown = sorted(set(d) - _DEVICE_KEYS)
    if unknown:
        raise SpecError(f"{where}: unknown field(s) {', '.join(unknown)}")
    aliases = d.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
        raise SpecError(f"{where}.aliases must be a list of non-empty strings")
    vendor = d.get("vendor")
    if vendor not in VENDORS:
        raise SpecError(f"{where}.vendor must be one of {', '.join(VENDORS)}, not {vendor!r}")
    family = d.get("family")
    if not isinstance(family, str) or not _FAMILY.fullmatch(family):
        raise SpecError(f"{where}.family must be lower-case letters and digits, not {family!r}")
    variant = d.get("variant")
    if variant is not None and variant not in VARIANTS:
        raise SpecError(f"{where}.variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    cc = d.get("compute_capability")
    if cc is not None and not (isinstance(cc, str) and _CAPABILITY.fullmatch(cc)):
        raise SpecError(f"{where}.compute_capability must be 'major.minor', not {cc!r}")
    peaks = d.get("dense_tflops", {})
    if not isinstance(peaks, dict):
        raise SpecError(f"{where}.dense_tflops must be a table")
    for dtype in peaks:
        if dtype not in DTYPES:
            raise SpecError(f"{where}.dense_tflops.{dtype}: unknown; known: {', '.join(DTYPES)}")
    tflops = {k: float(_positive(f"{where}.dense_tflops.{k}", v)) for k, v in peaks.items()}
    numbers: dict[str, float | None] = {
        k: None if d.get(k) is None else _positive(f"{where}.{k}", d[k], k in ("units",))
        for k in ("units", "memory_gb", "memory_bandwidth_tbs")
    }
    logical = d.get("logical_devices")
    if logical is not None:
        _positive(f"{where}.logical_devices", logical, integer=True)
    present = {k for k, v in numbers.items() if v is not None} | set(tflops)
    present |= {k for k in ("compute_capability", "logical_devices") if d.get(k) is not None}
    derived = d.get("derived", {})
    if not isinstance(derived, dict):
        raise SpecError(f"{where}.derived must be a table")
    for fig, how in derived.items():
        if fig not in present:
            raise SpecError(f"{where}.derived.{fig}: the device has no such figure")
        _text(f"{where}.derived.{fig}", how)
    note = d.get("note", "")
    if not isinstance(note, str):
        raise SpecError(f"{where}.note must be a string")
    if (not tflops or numbers["memory_bandwidth_tbs"] is None) and not note.strip():
        raise SpecError(f"{where}: no bandwidth or no peak; `note` must say why")
    units = numbers["units"]
    return DeviceSpec(
        name=name,
        aliases=tuple(aliases),
        vendor=str(vendor),
        family=family,
        variant=variant,
        compute_capability=cc,
        units=None if units is None else int(units),
        logical_devices=int(logical or 1),
        memory_gb=numbers["memory_gb"],
        memory_bandwidth_tbs=numbers["memory_bandwidth_tbs"],
        dense_tflops=tflops,
        sources=_figure_sources(where, d, present, sources),
        derived={str(k): str(v) for k, v in derived.items()},
        note=note.strip(),
        origin=origin,
    )


def parse_table(doc: Mapping[str, Any], origin: str) -> DeviceTable:
    """Validate a decoded table (raises `SpecError` naming the device and field)."""
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise SpecError(
            f"schema_version must be {SCHEMA_VERSION}, not {doc.get('schema_version')!r}"
        )
    unknown = sorted(set(doc) - {"schema_version", "sources", "device"})
    if unknown:
        raise SpecError(f"unknown top-level key(s) {', '.join(unknown)}")
    sources = _sources(doc)
    raw = doc.get("device")
    if not isinstance(raw, list) or not raw:
        raise SpecError("no [[device]] entries")
    devices = tuple(_device(i, d, sources, origin) for i, d in enumerate(raw))
    by_key: dict[str, DeviceSpec] = {}
    for spec in devices:
        for label in (spec.name, *spec.aliases):
            key = name_key(label)
            if not key:
                raise SpecError(f"device {spec.name!r}: {label!r} has no letters or digits")
            other = by_key.setdefault(key, spec)
            if other is not spec:
                raise SpecError(
                    f"device {spec.name!r}: name or alias {label!r} is also device "
                    f"{other.name!r}'s (names compare without case, spaces or vendor words)"
                )
    return DeviceTable(sources, devices, by_key)


def _load(path: Path, text: str, origin: str) -> DeviceTable:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"invalid TOML: {exc}") from None
    try:
        return parse_table(doc, origin)
    except SpecError as exc:
        raise InputError(path, f"bad device table: {exc}") from None


@cache
def builtin_table() -> DeviceTable:
    """The packaged table, read and validated once per process."""
    res = resources.files(__package__).joinpath(BUILTIN)
    return _load(Path(str(res)), res.read_text("utf-8"), "built-in")


def load_spec_file(path: str | Path) -> DeviceTable:
    """A user's table (same schema as the built-in one); `InputError` names the file."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such device spec file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the device spec file: {exc}") from None
    return _load(path, text, str(path))
