"""Run diff between the two ResNet-50 runs (DataLoader with 0 and with 4 workers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.diff import diff_reports
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared
from tests.integration.cli import run_cli

A = "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
B = "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"


def test_data_loading_is_what_got_faster() -> None:
    a, b = build_report(read_kineto(shared(A))), build_report(read_kineto(shared(B)))
    d = diff_reports(a, b, top=5)
    assert d["step"]["delta_us"] == pytest.approx(141068 - 177592, abs=2)
    top = d["breakdown"][0]
    assert top["name"] == "dataloader" and top["delta_us"] == pytest.approx(1186 - 59262, abs=2)
    assert sum(c["delta_us"] for c in d["breakdown"]) == pytest.approx(d["step"]["delta_us"])
    deltas = [abs(r["delta_us"]) for r in d["kernels"]["total_us"]]
    assert deltas == sorted(deltas, reverse=True) and len(deltas) == 5
    same = diff_reports(a, a)
    assert all(r["delta_us"] == 0 for r in same["operators"]["host_self_us"])


def test_cli(tmp_path: Path) -> None:
    r = run_cli("diff", shared(A), shared(B), "--format", "json", "--workspace", tmp_path / "ws")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["breakdown"][0]["name"] == "dataloader"
    r = run_cli("diff", shared(A), tmp_path / "missing", "--workspace", tmp_path / "ws")
    assert r.returncode == 2 and "missing" in r.stderr
