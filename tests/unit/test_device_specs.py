"""The device table (`analysis/perf/device_specs.toml`) and how a trace's device is found in it.

The table must validate, carry every accelerator the performance model promises, and hold
DENSE peaks: NVIDIA prints sparse tensor figures with an asterisk, and an unhalved one would
make every efficiency figure look twice as bad. Recognition is checked on the device names
real traces wrote (../shared/data): a V100 DGX Station, V100 SXM2 16/32 GB, Meta's
A100-PG509-200, an MI250 that ROCm 6.2 calls "AMD Radeon Graphics", and torch_npu's
"Ascend910B". A device the table does not know must match nothing, with a reason.
"""

from __future__ import annotations

import gzip
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mindinsight_profiler.analysis.perf.devices import (
    DeviceMatch,
    Observed,
    devices_of,
    match_device,
    observed_from_kineto,
    spec_by_name,
)
from mindinsight_profiler.analysis.perf.names import name_key
from mindinsight_profiler.analysis.perf.specs import (
    DTYPES,
    DeviceTable,
    SpecError,
    builtin_table,
    load_spec_file,
    parse_table,
)
from mindinsight_profiler.errors import InputError
from tests.conftest import shared

TABLE = builtin_table()


def spec(name: str) -> Any:
    return next(s for s in TABLE.devices if s.name == name)


def close(value: float | None, expected: float, tolerance: float = 0.01) -> bool:
    return value is not None and abs(value - expected) <= tolerance * expected


# ------------------------------------------------------------------------------- the table


def table_doc() -> dict[str, Any]:
    """The packaged table as decoded TOML, to plant mistakes in."""
    text = resources.files("mindinsight_profiler.analysis.perf").joinpath("device_specs.toml")
    return tomllib.loads(text.read_text("utf-8"))


def test_table_validates_and_every_figure_has_a_source() -> None:
    assert len(TABLE.devices) >= 24
    for s in TABLE.devices:
        present = set(s.dense_tflops) | {
            k
            for k in ("units", "memory_gb", "memory_bandwidth_tbs", "compute_capability")
            if getattr(s, k) is not None
        }
        assert present - {"logical_devices"} <= set(s.sources), s.name
        for src in s.sources.values():
            assert src.url and src.url.startswith("https://"), (s.name, src.key)
        if not s.dense_tflops or s.memory_bandwidth_tbs is None:
            assert s.note, f"{s.name} lacks figures and must say why"


def test_the_promised_devices_are_there() -> None:
    names = {s.name for s in TABLE.devices}
    promised = {
        "V100 SXM2 32GB", "A100 SXM4 80GB", "A100 PCIe 80GB", "H100 SXM 80GB", "H100 PCIe 80GB",
        "H200 SXM 141GB", "B200", "L4", "L40S", "MI210", "MI250X", "MI300X", "MI325X", "MI355X",
        "Ascend 910", "Ascend 910B", "Ascend 910C",
    }  # fmt: skip
    assert promised <= names, promised - names


def test_dense_not_sparse() -> None:
    """The figures everyone quotes for dense training math."""
    assert close(spec("H100 SXM 80GB").dense_tflops["bf16"], 989)
    assert close(spec("H100 PCIe 80GB").dense_tflops["bf16"], 756)
    assert spec("A100 SXM4 80GB").dense_tflops["bf16"] == 312
    assert spec("A100 SXM4 80GB").dense_tflops["tf32"] == 156
    assert spec("V100 SXM2 32GB").dense_tflops["fp16"] == 125
    assert "bf16" not in spec("V100 SXM2 32GB").dense_tflops  # Volta has no BF16
    assert spec("H200 SXM 141GB").dense_tflops == spec("H100 SXM 80GB").dense_tflops
    assert spec("B200").dense_tflops["bf16"] == 2250 and spec("B200").dense_tflops["fp4"] == 9000
    assert spec("L4").dense_tflops["bf16"] == 121 and spec("L40S").dense_tflops["bf16"] == 362.05
    assert (
        spec("MI300X").dense_tflops["bf16"] == 1307.4
        and spec("MI300X").dense_tflops["fp8"] == 2614.9
    )
    assert close(spec("MI355X").dense_tflops["bf16"], 2500)


def test_tensor_ratios_hold_on_every_nvidia_and_amd_entry() -> None:
    """Within one generation tf32 = bf16/2, fp16 = bf16 and fp8 = 2 x bf16 on the matrix units:
    a row that mixes a sparse figure with dense ones breaks one of them (by 100 %; 2 % is
    left for vendors' rounding: NVIDIA prints the L40S's 2 x 362.05 as 733, and the B200's
    TF32 as 2.2 PFLOPS sparse against 4.5 for BF16)."""
    for s in TABLE.devices:
        t = s.dense_tflops
        if "bf16" in t and "fp16" in t:
            assert t["fp16"] == t["bf16"], s.name
        if "bf16" in t and "tf32" in t:
            assert close(t["tf32"], t["bf16"] / 2, 0.025), s.name
        if "bf16" in t and "fp8" in t:
            assert close(t["fp8"], 2 * t["bf16"], 0.02), s.name
        if "fp32" in t and "bf16" in t and s.vendor == "nvidia":
            assert t["bf16"] > t["fp32"], s.name


def _sparse_mismatches(table: DeviceTable) -> list[str]:
    """Figures whose `derived` note quotes a sparse number they are not half of."""
    out = []
    for s in table.devices:
        for fig, how in s.derived.items():
            m = re.search(r"prints ([\d.,]+)\*? ?(PFLOPS|POPS)?.*with sparsity", how)
            if not m:
                continue
            printed = float(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1)
            if not close(s.dense_tflops[fig], printed / 2, 0.001):
                out.append(f"{s.name}.{fig}")
    return out


def test_every_halved_figure_is_half_the_sparse_one_it_quotes() -> None:
    assert _sparse_mismatches(TABLE) == []
    assert sum("with sparsity" in how for s in TABLE.devices for how in s.derived.values()) >= 20
    # Mutation: a sparse figure copied without halving is caught.
    doc = table_doc()
    h100 = next(d for d in doc["device"] if d["name"] == "H100 SXM 80GB")
    h100["dense_tflops"]["bf16"] = 1979
    assert _sparse_mismatches(parse_table(doc, "mutated")) == ["H100 SXM 80GB.bf16"]


def test_a_package_of_two_devices_gives_each_half() -> None:
    mi250 = spec("MI250")
    assert mi250.logical_devices == 2 and mi250.device_units == 104
    assert mi250.device_memory_gb == 64 and mi250.device_bandwidth_tbs == 1.6
    assert close(mi250.device_tflops("bf16"), 181)
    assert spec("Ascend 910C").device_tflops("fp16") == 376
    assert spec("H100 SXM 80GB").device_tflops("fp4") is None


# ------------------------------------------------------------- recognition on real traces


class _Props(msgspec.Struct):
    deviceProperties: list[dict[str, Any]] = []  # the trace's own key


def _props(relative: str) -> list[dict[str, Any]]:
    """The trace's deviceProperties, without decoding its events."""
    path = shared(relative)
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return msgspec.json.decode(raw, type=_Props).deviceProperties


def _first(pattern: str) -> str:
    return str(sorted(shared("").glob(pattern))[0].relative_to(shared("")))


@pytest.mark.parametrize(
    ("trace", "count", "device", "how"),
    [
        ("kineto/resnet50_num_workers_0/*.pt.trace.json.gz", 4, "V100 SXM2 32GB", "name"),
        ("hta/trace_diff/test/test.json.gz", 2, "V100 SXM2 16GB", "name"),
        ("hta/ns_resolution_trace/*.json.gz", 8, "V100 SXM2 32GB", "name"),
        ("hta/df_index_resolver/*.json.gz", 2, "V100 SXM2 32GB", "name"),
        ("hta/trace_diff/control/control.json.gz", 8, "A100 SXM4 40GB", "family"),
        ("hta/critical_path/cuda_event_sync/*.json.gz", 8, "A100 SXM4 40GB", "family"),
        ("hta/amd_trace/*.json.gz", 4, "MI210", "properties"),
    ],
)
def test_real_traces_devices_are_recognised(trace: str, count: int, device: str, how: str) -> None:
    matches = devices_of({"device_properties": _props(_first(trace))})
    assert sorted(matches) == list(range(count))
    for m in matches.values():
        assert m.spec is not None and m.spec.name == device and m.how == how, m.reason
        assert m.warnings == ()


def test_meta_a100_pg509_is_a_40gb_a100_whichever_form() -> None:
    """Meta's board name is no alias: the family and 108 SMs / 39.6 GiB decide; SXM4 and PCIe
    40GB have the same peaks, so the match stands and names both."""
    m = devices_of({"device_properties": _props("hta/trace_diff/control/control.json.gz")})[0]
    assert m.candidates == ("A100 SXM4 40GB", "A100 PCIe 40GB")
    assert m.label == "A100 SXM4 40GB or A100 PCIe 40GB"
    assert m.spec is not None and m.spec.device_tflops("bf16") == 312


def test_mi250_named_radeon_graphics_is_recognised_by_its_properties() -> None:
    props = _props(_first("hta/amd_trace/*.json.gz"))
    assert props[0]["name"] == "AMD Radeon Graphics"  # ROCm 6.2: no product name
    m = devices_of({"device_properties": props})[0]
    assert m.candidates == ("MI210", "MI250")  # one MI250 GCD is an MI210 in all but name
    per_gcd = spec("MI250").device_tflops("bf16")
    assert m.spec is not None and per_gcd and close(m.spec.device_tflops("bf16"), per_gcd)
    assert close(m.spec.device_bandwidth_tbs, 1.6)
    # Without the unit count the properties say too little.
    no_units = {k: v for k, v in props[0].items() if k != "numSms"}
    assert match_device(observed_from_kineto(no_units)).spec is None


def test_ascend_database_names_its_npu() -> None:
    from mindinsight_profiler.formats.ascend.reader import read_ascend_pt

    folder = shared("ascend_pytorch_db/level1/rank1_ascend_pt")
    meta = read_ascend_pt(folder).meta
    assert meta["device_name"] == "Ascend910B"
    m = devices_of(meta)
    assert list(m) == [1] and m[1].spec is not None and m[1].spec.name == "Ascend 910B"
    assert m[1].spec.dense_tflops == {} and "--device-spec" in m[1].spec.note


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []


def test_ascend_text_exports_name_no_chip() -> None:
    """profiler_info_*.json and profiler_metadata.json of the text exports hold no chip name,
    so such a trace has no device to match (the user names it): no value is a table name."""
    files = sorted(shared("ascend_pytorch").glob("*/*/profiler_*.json"))
    assert len(files) == 8
    for path in files:
        values = _strings(msgspec.json.decode(path.read_bytes()))
        assert values and not [v for v in values if name_key(v) in TABLE.by_key], path


# -------------------------------------------------------------- names, families, unknowns


@pytest.mark.parametrize(
    ("name", "device"),
    [
        ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"),
        ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"),
        ("NVIDIA H100 80GB HBM3", "H100 SXM 80GB"),
        ("NVIDIA H100 PCIe", "H100 PCIe 80GB"),
        ("NVIDIA H200", "H200 SXM 141GB"),
        ("NVIDIA B200", "B200"),
        ("NVIDIA L4", "L4"),
        ("NVIDIA L40S", "L40S"),
        ("Tesla V100S-PCIE-32GB", "V100S PCIe 32GB"),
        ("AMD Instinct MI300X", "MI300X"),
        ("AMD Instinct MI325X", "MI325X"),
        ("AMD Instinct MI355X", "MI355X"),
        ("Ascend910B3", "Ascend 910B"),
        ("Ascend910A", "Ascend 910"),
        ("Ascend910_9392", "Ascend 910C"),
        ("nvidia  a100_sxm4_80gb", "A100 SXM4 80GB"),  # case, spaces, underscores
    ],
)
def test_known_names_resolve(name: str, device: str) -> None:
    m = match_device(Observed(name))
    assert m.spec is not None and m.spec.name == device and m.how == "name"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("NVIDIA H800", "not in the device table"),  # H100-like properties, other part
        ("NVIDIA L40", "close names: L4, L40S"),  # not the L40S
        ("NVIDIA H20", "not in the device table"),  # not the H200
        ("NVIDIA GeForce RTX 4090", "not in the device table"),
    ],
)
def test_unknown_devices_match_nothing_with_a_reason(name: str, said: str) -> None:
    m = match_device(Observed(name, "nvidia", "9.0", 132, 79.1))
    assert m.spec is None and m.how == "none" and said in m.reason


def test_a_family_name_needs_properties_to_choose() -> None:
    m = match_device(Observed("NVIDIA H100"))
    assert m.spec is None and "H100 SXM 80GB, H100 PCIe 80GB" in m.reason
    pcie = match_device(Observed("NVIDIA H100", "nvidia", "9.0", 114, 79.2))
    assert pcie.spec is not None and pcie.spec.name == "H100 PCIe 80GB" and pcie.how == "family"
    nvl = match_device(Observed("NVIDIA H100 NVL", "nvidia", "9.0", 132, 87.5))
    assert nvl.spec is None and "form NVL, not SXM" in nvl.reason
    v100 = match_device(Observed("Tesla V100-SXM3-32GB", "nvidia", "7.0", 80, 31.7))
    assert v100.spec is None and "different figures" in v100.reason  # SXM2 or PCIe?


def test_mi250x_or_mi250_is_told_by_its_cus() -> None:
    both = "AMD Instinct MI250X / MI250"
    assert match_device(Observed(both, "amd", "9.0", 110, 64.0)).label == "MI250X"
    assert match_device(Observed(both, "amd", "9.0", 104, 64.0)).label == "MI250"


def test_unnamed_devices_need_units_and_memory() -> None:
    assert match_device(Observed(None, "nvidia", "8.0", None, 39.6)).spec is None
    gpu = match_device(Observed("", "nvidia", "8.0", 108, 39.6))
    assert gpu.how == "properties" and gpu.label == "A100 SXM4 40GB or A100 PCIe 40GB"
    big = match_device(Observed("", "nvidia", "8.0", 108, 79.2))  # 2.039 or 1.935 TB/s?
    assert big.spec is None and "A100 SXM4 80GB, A100 PCIe 80GB fit, with different" in big.reason
    odd = match_device(Observed("AMD Radeon Graphics", "amd", "11.0", 48, 24.0))
    assert odd.spec is None and "no entry fits" in odd.reason


def test_a_slice_of_a_known_device_matches_with_a_warning() -> None:
    m = match_device(Observed("NVIDIA A100-SXM4-40GB", "nvidia", "8.0", 14, 4.75))
    assert m.spec is not None and m.spec.name == "A100 SXM4 40GB"
    assert len(m.warnings) == 1 and "14 SMs, not 108" in m.warnings[0]


def test_traces_without_device_names_have_no_devices() -> None:
    assert devices_of({}) == {}
    assert devices_of({"device_type": "npu", "device_id": 0}) == {}
    assert isinstance(devices_of({"device_name": "Ascend910B"})[-1], DeviceMatch)


# ------------------------------------------------------------------ the user's own device


def test_spec_by_name_takes_any_alias_and_lists_close_names() -> None:
    assert spec_by_name("a100-sxm4-80gb").name == "A100 SXM4 80GB"
    assert spec_by_name("NVIDIA H100 80GB HBM3").name == "H100 SXM 80GB"
    with pytest.raises(InputError) as err:
        spec_by_name("A10")
    assert str(err.value).startswith("--device-spec: unknown device 'A10'; close names: A100")


GOOD = """
schema_version = 1
[sources.lab]
title = "Measured with our GEMM benchmark, 2025-01"
[[device]]
name = "Lab Accelerator"
aliases = ["LabCorp X1"]
vendor = "nvidia"
family = "x1"
memory_gb = 64
memory_bandwidth_tbs = 2.5
source = "lab"
[device.dense_tflops]
bf16 = 500
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "my_device.toml"
    path.write_text(text, "utf-8")
    return path


def test_a_user_file_loads_and_its_devices_are_found(tmp_path: Path) -> None:
    table = load_spec_file(_write(tmp_path, GOOD))
    lab = spec_by_name("labcorp x1", table)
    assert lab.origin.endswith("my_device.toml") and lab.device_tflops("bf16") == 500
    assert lab.sources["bf16"].url is None  # a measurement has no address
    m = match_device(Observed("LabCorp X1"), table)
    assert m.spec is lab
    # A user's table stands alone: an alias the built-in table also has is no clash there.
    own = load_spec_file(_write(tmp_path, GOOD.replace('"LabCorp X1"', '"NVIDIA B200"')))
    assert spec_by_name("NVIDIA B200", own).name == "Lab Accelerator"


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (("bf16 = 500", "bf16 = -500"), "dense_tflops.bf16 must be a positive number, not -500"),
        (("bf16 = 500", 'bf16 = "500"'), "dense_tflops.bf16 must be a positive number"),
        (("bf16 = 500", "bf16 = inf"), "dense_tflops.bf16 must be a positive number"),
        (("bf16 = 500", "bf17 = 500"), "dense_tflops.bf17: unknown"),
        (('source = "lab"\n', ""), "figure 'bf16' has no source"),
        (('source = "lab"', 'source = "nowhere"'), "no source 'nowhere' in [sources]"),
        (("memory_bandwidth_tbs", "memory_bandwith_tbs"), "unknown field(s) memory_bandwith_tbs"),
        (('vendor = "nvidia"', 'vendor = "intel"'), "vendor must be one of"),
        (("schema_version = 1", "schema_version = 2"), "schema_version must be 1"),
        (("[device.dense_tflops]", "[device.dense_tflops"), "invalid TOML"),
    ],
)
def test_a_bad_user_file_is_rejected_naming_the_file(
    tmp_path: Path, edit: tuple[str, str], said: str
) -> None:
    old, new = edit
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(InputError) as err:
        load_spec_file(path)
    assert err.value.path == str(path)
    assert said in err.value.problem, err.value.problem
    assert str(err.value).count("\n") == 0  # one line


def test_aliases_must_be_unique_within_a_table(tmp_path: Path) -> None:
    twice = GOOD + GOOD.split("[sources.lab]")[1].split("\n", 2)[2].replace(
        'name = "Lab Accelerator"', 'name = "Lab Accelerator 2"'
    )
    with pytest.raises(InputError) as err:
        load_spec_file(_write(tmp_path, twice))
    assert "'LabCorp X1' is also device 'Lab Accelerator'" in err.value.problem
    with pytest.raises(SpecError, match=r"no \[\[device\]\] entries"):
        parse_table({"schema_version": 1}, "empty")


def test_a_missing_user_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such device spec file") as err:
        load_spec_file(tmp_path / "absent.toml")
    assert err.value.path.endswith("absent.toml")


def test_the_doc_lists_every_device_and_dtype() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "perf-model.md").read_text("utf-8")
    for dtype in DTYPES:
        assert f"`{dtype}`" in doc, dtype
    for s in TABLE.devices:
        assert f"\n| {s.name} | {s.vendor} " in doc, s.name
    for key in TABLE.sources:
        assert f"\n[{key}]: {TABLE.sources[key].url}\n" in doc, key
