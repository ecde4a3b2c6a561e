"""The JSON shape of a report, to check that every format gives the same contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.tracegen import kernel, op, runtime, write_trace


def kineto_report(tmp_path: Path) -> dict[str, Any]:
    """Report of a tiny synthetic Kineto trace with an operator, a launch and a kernel."""
    events = [
        op("ProfilerStep#1", 0, 100),
        op("aten::mm", 10, 50, ext=1),
        runtime("cudaLaunchKernel", 20, 5, corr=7, ext=1),
        kernel("gemm", 30, 40, corr=7),
    ]
    return build_report(read_kineto(write_trace(tmp_path / "k.pt.trace.json", events)))


def keys(report: dict[str, Any]) -> dict[str, Any]:
    """Top-level keys, nested dict keys and table-row keys of a report."""
    out: dict[str, Any] = {"top": sorted(report)}
    for k, v in report.items():
        if isinstance(v, dict):
            out[k] = sorted(v)
    for table in ("operators", "kernels"):
        if report[table]:
            out[f"{table}_row"] = sorted(report[table][0])
    return out
