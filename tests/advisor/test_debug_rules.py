"""Debugging APIs left on: autograd anomaly detection, on real torch CPU runs (planted.py)."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_anomaly_mode_is_found(planted: Path, advisor_ws: Path) -> None:
    # set_detect_anomaly(True): 98 isnan -> any -> item checks per step inside the
    # engine's evaluate_function ranges, 64 format_stack captures in the forward; about
    # half of each step in three generations (10.7-24.1 + 2.9-7.7 ms of 22-57 ms steps).
    f = fires(advise_path(planted / "anomaly", advisor_ws), "anomaly_detection")
    assert f.facts["config.anomaly_checks"] == 98
    assert f.facts["config.anomaly_us"] > 0.2 * f.facts["step.average_us"]
    assert f.severity == "high"
    assert f.evidence and all(e.kind == "time_range" for e in f.evidence)
    assert any("format_stack" in e.label for e in f.evidence)


def test_clean_run_has_no_anomaly_mode(planted: Path, advisor_ws: Path) -> None:
    advice = advise_path(planted / "none", advisor_ws)
    does_not_fire(advice, "anomaly_detection")
    facts = next(c.facts for c in advice.checked if c.id == "anomaly_detection")
    assert facts["config.anomaly_checks"] == 0 and facts["config.anomaly_us"] == 0


def test_threads_without_backward_nodes_are_judged(advisor_ws: Path) -> None:
    """torch_npu's Level0 rank: some threads run operators but no autograd-engine node (the
    check once indexed an empty range set there and the rule was lost to an IndexError)."""
    advice = advise_path(shared("ascend_pytorch/level0"), advisor_ws, worker="rank0")
    does_not_fire(advice, "anomaly_detection")
