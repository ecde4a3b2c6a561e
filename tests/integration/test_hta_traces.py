"""Every PyTorch 2.x trace from HTA's test data loads and gives sensible figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import SHARED_DATA, shared

HTA_TRACES = sorted(
    str(p.relative_to(SHARED_DATA / "hta"))
    for p in (SHARED_DATA / "hta").rglob("*.json*")
    if "memory_timeline" not in p.name  # a raw memory snapshot, not a trace
)


@pytest.mark.parametrize("trace", HTA_TRACES or ["(missing)"])
def test_loads(trace: str) -> None:
    report = build_report(read_kineto(shared(f"hta/{trace}")))
    assert report["steps"]["count"] >= 1
    total = sum(report["breakdown_us"].values())
    assert total == pytest.approx(report["steps"]["average_us"], rel=1e-9)
    assert report["operators"]


def test_nccl_shows_communication() -> None:
    report = build_report(read_kineto(shared("hta/nccl_parser_config/nccl_data.json.gz")))
    assert report["breakdown_us"]["communication"] > 0.05 * report["steps"]["average_us"]


def test_df_index_resolver_has_device_time_per_operator() -> None:
    # Runtimes there carry their correlation id as External id; the plugin showed zero.
    t = read_kineto(shared("hta/df_index_resolver/df_index_resolver.json.gz"))
    ops = build_report(t)["operators"]
    with_device = [o for o in ops if o["device_self_us"] > 0]
    assert len(with_device) >= 10
    kernel_us = sum(k["total_us"] for k in build_report(t)["kernels"])
    assert sum(o["device_self_us"] for o in ops) > 0.5 * kernel_us


def test_nanosecond_timestamps_are_kept() -> None:
    t = read_kineto(shared("hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"))
    assert (t.events["start_ns"] % 1000 != 0).mean() > 0.5


def test_missing_rank_and_distributed_info() -> None:
    for rel in (
        "rank_unavailable/rank_not_found.json.gz",
        "distributed_info_unavailable/distributed_info_not_found.json.gz",
    ):
        report = build_report(read_kineto(shared(f"hta/{rel}")))
        assert report["steps"]["count"] >= 1
        assert "rank" not in (report["distributed"] or {})


def test_amd_trace_reads_hex_streams(tmp_path: Path) -> None:
    report = build_report(
        read_kineto(shared("hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))
    )
    assert report["kernels"] and report["gpu"] is not None
