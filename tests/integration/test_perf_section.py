"""The `perf_model` section on hand-written GPU traces whose answers are computed here by
hand: achieved TFLOPS, roofline bound and share, MFU per step, recomputation, the device
recognised or named, and the figures that need a peak null (with the reason) when the
device is unknown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.options import Options, device_key, resolve_device
from mindinsight_profiler.analysis.perf.devices import spec_by_name
from mindinsight_profiler.analysis.perf.section import perf_model_section
from mindinsight_profiler.analysis.steps.boundaries import find_steps
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.detect import read_trace
from tests.tracegen import kernel, op, runtime, write_trace

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85031714816,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132, "warpSize": 32}  # fmt: skip
M, K, N = 4096, 4096, 4096  # a compute-bound GEMM
ADD = 1 << 24  # elements of a memory-bound add


def _mm(ts: float, dur_us: float, corr: int, parent: str | None = None) -> list[dict[str, Any]]:
    """An fp16 mm of [M,K] x [K,N] whose kernel runs `dur_us`; under `parent` if given."""
    events = []
    if parent:
        events.append(op(parent, ts - 1, 30))
    events += [
        op("aten::mm", ts, 20, **{"Input Dims": [[M, K], [K, N]],
                                 "Input type": ["c10::Half", "c10::Half"]}),
        runtime("cudaLaunchKernel", ts + 1, 5, corr),
        kernel("sm90_xmma_gemm_f16f16", ts + 50, dur_us, corr),
    ]  # fmt: skip
    return events


def _add(ts: float, dur_us: float, corr: int) -> list[dict[str, Any]]:
    dims = {"Input Dims": [[ADD], [ADD], []], "Input type": ["float", "float", "Scalar"]}
    return [
        op("aten::add", ts, 10, **dims),
        runtime("cudaLaunchKernel", ts + 1, 5, corr),
        kernel("vectorized_elementwise_kernel", ts + 200, dur_us, corr),
    ]


def _trace(tmp_path: Path, props: list[dict[str, Any]] | None, recompute: bool = False):  # type: ignore[no-untyped-def]
    events: list[dict[str, Any]] = []
    for s in range(2):  # two steps of 1000 us: one GEMM (200 us) and one add (400 us) each
        t0 = 1000.0 + s * 1000
        events.append(op(f"ProfilerStep#{s}", t0, 1000, cat="user_annotation"))
        events += _mm(t0 + 10, 200, 10 * s + 1)
        events += _add(t0 + 100, 400, 10 * s + 2)
        if recompute and s == 1:
            events += _mm(t0 + 500, 200, 10 * s + 3, parent="CheckpointFunctionBackward")
    top = {"deviceProperties": props} if props is not None else {}
    return read_trace(write_trace(tmp_path / "w.pt.trace.json", events, **top))


def _section(trace, device=None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    steps = find_steps(trace)
    section = perf_model_section(trace, steps, 0, device)
    assert section is not None
    return section


def test_gemm_and_add_against_h100_by_hand(tmp_path: Path) -> None:
    section = _section(_trace(tmp_path, [H100]))
    assert section["device"]["name"] == "H100 SXM 80GB" and section["device"]["how"] == "name"
    assert section["unavailable"] is None
    rows = {r["name"]: r for r in section["shapes"]}
    mm, add = rows["aten::mm"], rows["aten::add"]
    flops = 2 * M * N * K
    assert mm["gflops_per_call"] == pytest.approx(flops / 1e9, rel=1e-5)  # 6 significant digits
    assert mm["gbytes_per_call"] == pytest.approx(
        2 * (M * K + K * N + M * N) / 1e9, rel=1e-5
    )  # 6 significant digits
    achieved = flops / 200e-6 / 1e12  # 687 TFLOPS
    assert mm["achieved_tflops"] == pytest.approx(achieved, rel=1e-5)
    assert mm["bound"] == "compute" and mm["roof_tflops"] == pytest.approx(989.5)
    assert mm["pct_of_roof"] == pytest.approx(achieved / 989.5, rel=1e-5)
    # the add: 1 FLOP and 12 bytes per element, memory-bound on 3.35 TB/s
    assert add["arithmetic_intensity"] == pytest.approx(1 / 12, rel=1e-5)
    assert add["bound"] == "memory"
    assert add["roof_tflops"] == pytest.approx(3.35 / 12, rel=1e-5)
    achieved_tbps = 12 * ADD / 400e-6 / 1e12
    assert add["achieved_tbps"] == pytest.approx(achieved_tbps, rel=1e-5)
    assert add["pct_of_roof"] == pytest.approx(achieved_tbps / 3.35, rel=1e-4)  # 0.15: low
    totals = section["totals"]
    # the add is below 20 % of its roof: 800 of the 1200 us of device time
    assert totals["low_roof_share"] == pytest.approx(800 / 1200)
    assert totals["memory_bound_share"] == pytest.approx(800 / 1200)
    assert totals["covered_share"] == pytest.approx(1.0)
    for step in section["steps"]:  # MFU: the GEMM at 989.5 TFLOPS over the 1000 us step
        assert step["model_gflops"] == pytest.approx(flops / 1e9)
        assert step["mfu"] == pytest.approx(
            flops / 989.5e12 / 1000e-6, rel=1e-5
        )  # 6 significant digits
        assert step["hfu"] == step["mfu"]
    assert totals["mfu"] == pytest.approx(
        flops / 989.5e12 / 1000e-6, rel=1e-5
    )  # 6 significant digits
    categories = {c["category"]: c for c in section["categories"]}
    assert categories["gemm"]["time_us"] == 400 and categories["elementwise"]["time_us"] == 800


def test_recomputation_counts_in_hfu_not_mfu(tmp_path: Path) -> None:
    section = _section(_trace(tmp_path, [H100], recompute=True))
    first, second = section["steps"]
    assert second["hardware_gflops"] == pytest.approx(2 * first["hardware_gflops"])
    assert second["model_gflops"] == pytest.approx(first["model_gflops"])
    assert second["hfu"] == pytest.approx(2 * second["mfu"])


def test_unknown_device_nulls_every_peak_figure_with_the_reason(tmp_path: Path) -> None:
    section = _section(_trace(tmp_path, None))
    assert section["device"]["how"] == "none" and section["device"]["name"] is None
    assert "--device-spec" in section["unavailable"]
    for row in section["shapes"] + section["operators"]:
        assert row["achieved_tflops"] is not None  # work over time needs no peak
        assert row["roof_tflops"] is None and row["pct_of_roof"] is None and row["bound"] is None
    assert all(s["mfu"] is None and s["hfu"] is None for s in section["steps"])
    totals = section["totals"]
    assert totals["mfu"] is None and totals["low_roof_share"] is None
    # the same trace with the device named: the figures are those of the recognised H100
    named = _section(_trace(tmp_path, None), spec_by_name("h100 sxm 80gb"))
    recognised = _section(_trace(tmp_path, [H100]))
    assert named["device"]["how"] == "user"
    assert named["totals"]["mfu"] == pytest.approx(recognised["totals"]["mfu"])
    assert named["shapes"] == recognised["shapes"]


def test_device_spec_option_on_the_command_line(tmp_path: Path) -> None:
    _trace(tmp_path, None)
    path = tmp_path / "w.pt.trace.json"

    def analyse(*extra: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "mindinsight_profiler", "analyse", str(path), "--format",
               "json", "--workspace", str(tmp_path / "ws"), *extra]  # fmt: skip
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    plain = analyse()
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["perf_model"]["totals"]["mfu"] is None
    named = analyse("--device-spec", "H100 SXM 80GB")
    assert named.returncode == 0, named.stderr
    model = json.loads(named.stdout)["perf_model"]
    assert model["device"]["how"] == "user" and model["totals"]["mfu"] > 0
    # a cached report of the plain run is not reused for the named device, nor the reverse
    assert json.loads(analyse().stdout)["perf_model"]["totals"]["mfu"] is None
    # a file of the table's schema: its own figures are used
    spec = tmp_path / "lab.toml"
    spec.write_text(
        'schema_version = 1\n[sources.lab]\ntitle = "our measurement"\n\n'
        '[[device]]\nname = "Lab X1"\n'
        'vendor = "nvidia"\nfamily = "x1"\nmemory_bandwidth_tbs = 1.0\nsource = "lab"\n'
        "dense_tflops = { fp16 = 100.0, fp32 = 10.0 }\n"
    )
    lab = analyse("--device-spec", str(spec))
    assert lab.returncode == 0, lab.stderr
    lab_model = json.loads(lab.stdout)["perf_model"]
    assert lab_model["device"]["name"] == "Lab X1"
    assert lab_model["totals"]["mfu"] == pytest.approx(2 * M * N * K / 100e12 / 1000e-6)
    wrong = analyse("--device-spec", "H100 SXM 8OGB")
    assert wrong.returncode == 2 and "H100 SXM 80GB" in wrong.stderr  # close names offered
    assert len(wrong.stderr.strip().splitlines()) == 1


def test_options_key_names_the_device_and_its_figures(tmp_path: Path) -> None:
    assert Options().key() == ""
    h100 = resolve_device("H100 SXM 80GB")
    assert h100 is not None and device_key(h100) in Options(device=h100).key()
    assert Options(device=h100).key() != Options(device=resolve_device("H200 SXM 141GB")).key()
    two = tmp_path / "two.toml"
    two.write_text(
        'schema_version = 1\n[sources.s]\ntitle = "t"\n\n'
        '[[device]]\nname = "A"\nvendor = "nvidia"\nfamily = "a"\n'
        'source = "s"\nnote = "n"\n\n[[device]]\nname = "B"\nvendor = "nvidia"\nfamily = "b"\n'
        'source = "s"\nnote = "n"\n'
    )
    with pytest.raises(InputError, match="holds 2 devices"):
        resolve_device(str(two))


def test_no_modelled_work_is_no_mfu_not_zero(tmp_path: Path) -> None:
    """Shapes not recorded: the device is known but nothing can be measured, so MFU is
    null with the reason, never 0 %."""
    events = [op("ProfilerStep#0", 1000, 1000, cat="user_annotation")]
    events += [
        op("aten::mm", 1010, 20),  # no Input Dims: record_shapes was off
        runtime("cudaLaunchKernel", 1011, 5, 1),
        kernel("gemm", 1050, 300, 1),
    ]
    trace = read_trace(write_trace(tmp_path / "n.pt.trace.json", events, deviceProperties=[H100]))
    section = _section(trace)
    assert section["device"]["name"] == "H100 SXM 80GB"
    assert "record_shapes" in section["unavailable"]
    assert section["steps"][0]["mfu"] is None and section["totals"]["mfu"] is None
    assert section["totals"]["covered_share"] == 0.0


def test_host_only_trace_is_not_measured_against_a_listed_gpu(tmp_path: Path) -> None:
    """A trace that lists a GPU but recorded no device work ran its operators on the host."""
    events = [op("ProfilerStep#0", 1000, 1000, cat="user_annotation")]
    dims = {"Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"]}
    events.append(op("aten::mm", 1010, 200, **dims))
    trace = read_trace(write_trace(tmp_path / "h.pt.trace.json", events, deviceProperties=[H100]))
    section = _section(trace)
    assert section["totals"]["time_base"] == "host"
    assert section["device"]["how"] == "none" and "host" in section["unavailable"]
    assert section["totals"]["mfu"] is None


def test_kernel_rows_take_the_work_of_a_call_they_are_alone_in(tmp_path: Path) -> None:
    section = _section(_trace(tmp_path, [H100]))
    kernels = {k["name"]: k for k in section["kernels"]}
    shapes = {r["name"]: r for r in section["shapes"]}
    gemm = kernels["sm90_xmma_gemm_f16f16"]
    for key in ("calls", "gflops_per_call", "achieved_tflops", "pct_of_roof", "bound"):
        assert gemm[key] == shapes["aten::mm"][key], key
    # a call with two kernels does not say how its work splits: they get no row
    events = [op("ProfilerStep#0", 1000, 1000, cat="user_annotation")]
    events += [
        op("aten::mm", 1010, 20, **{"Input Dims": [[64, 64], [64, 64]],
                                   "Input type": ["float", "float"]}),
        runtime("cudaLaunchKernel", 1011, 2, 1), kernel("splitk_gemm", 1050, 30, 1),
        runtime("cudaLaunchKernel", 1014, 2, 2), kernel("splitk_reduce", 1090, 5, 2),
    ]  # fmt: skip
    two = read_trace(write_trace(tmp_path / "k.pt.trace.json", events, deviceProperties=[H100]))
    assert _section(two)["kernels"] == []
    assert _section(two)["shapes"][0]["time_us"] == 35  # the call's time counts both


@pytest.mark.parametrize(
    "relative",
    [
        "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "hta/trace_diff/control",
        "hta/amd_trace",
    ],
)
def test_real_traces_add_up(relative: str) -> None:
    """On real traces: the parts add up to no more than the whole, and every row is sane."""
    from mindinsight_profiler.formats.discovery import discover
    from tests.conftest import shared

    run = discover(shared(relative))[0]
    file = run.files[0]
    section = _section(read_trace(file.path, file.format, file.worker))
    totals = section["totals"]
    categories = section["categories"]
    device_us = totals["device_us"]
    assert sum(c["time_us"] for c in categories) == pytest.approx(device_us, rel=1e-6)
    assert sum(c["time_share"] for c in categories) == pytest.approx(1.0, rel=1e-6)
    counted = sum(
        c["time_us"] for c in categories if c["category"] not in ("communication", "other")
    )
    assert sum(r["time_us"] for r in section["shapes"]) <= counted * (1 + 1e-9)
    assert sum(k["time_us"] for k in section["kernels"]) <= counted * (1 + 1e-9)
    for row in section["shapes"] + section["operators"] + section["kernels"]:
        assert row["gflops_per_call"] >= 0 and row["time_us"] >= 0, row
        assert row["pct_of_roof"] is None or row["pct_of_roof"] >= 0
        start, end = row["longest_call_ns"]
        assert end >= start
    for step in section["steps"]:
        assert step["model_gflops"] <= step["hardware_gflops"] <= step["total_gflops"]
        assert step["mfu"] is None or 0 <= step["mfu"] <= 1
    assert 0 <= totals["low_roof_share"] <= 1
