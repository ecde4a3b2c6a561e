"""Operator calls and CPU times against torch's own `prof.key_averages()` (torch 2.13, CPU).

Expected differences, each asserted below and explained in docs/definitions.md:
1. key_averages lists Python frames (`file.py(N): fn`, `<built-in ...>`, `nn.Module: X_0`) and the
   ProfilerStep / DataLoader / Optimizer annotations; our operator table does not (they are
   steps, data loading, optimizer time and Python stacks, reported in their own views).
2. Self CPU time of a user annotation (`forward`, `backward`, ...) is its time outside
   *operators*; key_averages subtracts Python frames too (with_stack), so ours is larger.
"""

from __future__ import annotations

import json
import re

import pytest

from mindinsight_profiler.analysis.categories import is_operator_row_name
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared

# The .json traces come from the same profiling session as the key_averages files.
SAME_SESSION = {
    "cnn_nw0": "cnn_nw0_active5.1795320550475422677.pt.trace.json",
    "cnn_nw2": "cnn_nw2_active5.1795320558072984922.pt.trace.json",
    "transformer_nw0": "transformer_nw0_active5.1795320562872505905.pt.trace.json",
    "transformer_nw2": "transformer_nw2_active5.1795320569240002887.pt.trace.json",
}
PYTHON_FRAME = re.compile(r"(\.py\(\d+\): |^<built-in |^nn\.Module: |^<frozen |^<string>)")
ANNOTATIONS = {"forward", "backward", "optimizer_step"}


def _load(model: str, trace: str) -> tuple[dict, dict]:
    ka = json.loads(shared(f"torch_cpu/small/{model}_key_averages.json").read_text())
    report = build_report(read_kineto(shared(f"torch_cpu/small/{trace}")))
    return {r["key"]: r for r in ka}, {o["name"]: o for o in report["operators"]}


@pytest.mark.parametrize("model", sorted(SAME_SESSION))
def test_calls_and_cpu_times(model: str) -> None:
    ka, ours = _load(model, SAME_SESSION[model])
    for name, o in ours.items():
        ref = ka[name]  # every operator we report is one torch reports
        assert o["calls"] == ref["count"], name
        assert o["host_total_us"] == pytest.approx(ref["cpu_time_total_us"], rel=1e-3, abs=1), name
        if name in ANNOTATIONS:
            assert o["host_self_us"] >= ref["self_cpu_time_total_us"] - 1, name
        else:
            assert o["host_self_us"] == pytest.approx(
                ref["self_cpu_time_total_us"], rel=1e-3, abs=1
            ), name


@pytest.mark.parametrize("model", sorted(SAME_SESSION))
def test_only_python_frames_and_step_annotations_are_left_out(model: str) -> None:
    ka, ours = _load(model, SAME_SESSION[model])
    left_out = set(ka) - set(ours)
    unexplained = {k for k in left_out if not PYTHON_FRAME.search(k) and is_operator_row_name(k)}
    assert unexplained <= {"ProfilerStep*"}


def test_gzip_session_call_counts() -> None:
    # The .gz CNN trace is a separate session with the same model and schedule: same calls.
    ka, ours = _load("cnn_nw2", "cnn_nw2_active5.1795321093063971171.pt.trace.json.gz")
    assert all(o["calls"] == ka[n]["count"] for n, o in ours.items())
