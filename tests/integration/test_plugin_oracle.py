"""All four V100 traces against the real plugin (torch-tb-profiler 0.4.3) run live.

The golden file covers the first span of each run only; for the other spans the plugin itself
is the oracle. It lives in its own venv (bench/.venvs/tb, made by scripts/test.sh or the bench).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.report import build_report, grouped_tables
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import ROOT, shared
from tests.integration import plugin_compare as pc

PLUGIN_PYTHON = Path(os.environ.get("MI_TB_PLUGIN_PYTHON", ROOT / "bench/.venvs/tb/bin/python"))
TRACES = [
    "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
]


@pytest.mark.slow
@pytest.mark.parametrize("trace", TRACES)
def test_matches_live_plugin(trace: str) -> None:
    path = shared(f"kineto/{trace}")
    if not PLUGIN_PYTHON.exists():
        pytest.skip(f"plugin oracle not installed at {PLUGIN_PYTHON} (scripts/test.sh installs it)")
    out = subprocess.run(
        [str(PLUGIN_PYTHON), str(ROOT / "tests/oracles/tb_plugin_dump.py"), str(path)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    ref = json.loads(out.stdout)
    trace = read_kineto(path)
    report = build_report(trace)
    by_input, _ = grouped_tables(trace, "name_input")
    errors = (
        pc.compare_overview(ref["overview"]["performance"], report)
        + pc.compare_gpu(ref["gpu_summary"], report)
        + pc.compare_operators(ref["operator_table"]["data"], report["operators"])
        + pc.compare_operators(ref["operator_table_by_input"]["data"], by_input, by_input=True)
        + pc.compare_kernels(ref["kernel_table"]["data"], report)
    )
    assert errors == []
