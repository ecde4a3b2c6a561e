"""Our numbers equal the PyTorch profiler plugin's own golden responses on its V100 samples."""

from __future__ import annotations

import json

import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared
from tests.integration import plugin_compare as pc

# result_check_file.txt holds 5 JSON lines per run:
# overview, operator pie, operator table, kernel table, kernel pie.
CASES = {
    "resnet50_num_workers_0": ("worker0.1623143089861.pt.trace.json.gz", 0),
    "resnet50_num_workers_4": ("worker0.1623212756351.pt.trace.json.gz", 5),
}


@pytest.fixture(scope="module")
def golden() -> list[dict]:
    path = shared("kineto/tb_plugin_expected/result_check_file.txt")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest, golden: list[dict]) -> tuple[dict, list[dict]]:
    name, base = CASES[request.param][0], CASES[request.param][1]
    report = build_report(read_kineto(shared(f"kineto/{request.param}/{name}")))
    return report, golden[base : base + 5]


def test_breakdown(case: tuple[dict, list[dict]]) -> None:
    report, g = case
    assert pc.compare_overview(g[0]["performance"], report) == []
    assert sum(report["breakdown_us"].values()) == pytest.approx(
        report["steps"]["average_us"], rel=1e-9
    )


def test_steps(case: tuple[dict, list[dict]]) -> None:
    report, g = case
    rows = g[0]["steps"]["rows"]
    assert report["steps"]["names"] == [r[0] for r in rows]
    for r, ours in zip(rows, report["breakdown_per_step_us"], strict=True):
        assert pc.close(r[1], ours["kernel"]) and pc.close(r[9], ours["dataloader"])


def test_gpu_metrics(case: tuple[dict, list[dict]]) -> None:
    report, g = case
    assert pc.compare_gpu(g[0]["gpu_metrics"]["data"], report) == []


def test_operator_table(case: tuple[dict, list[dict]]) -> None:
    report, g = case
    assert pc.compare_operators(g[2]["data"], report["operators"]) == []


def test_kernel_table(case: tuple[dict, list[dict]]) -> None:
    report, g = case
    assert pc.compare_kernels(g[3]["data"], report) == []
