"""Windows that cannot support steady-state judgements (analysis/steps/window_limits.py):
a sampled trace, a fragment, a toy workload. Their steady-state rules are listed as not
evaluated with the reason, and the advice carries a notice; complete windows are judged."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.steps import window_limits as wl
from mindinsight_profiler.cli.advise import render_text
from tests.advisor.helpers import LIMIT_WORDS, advise_path, fires, window_limited
from tests.conftest import shared
from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, runtime, write_trace

STEADY = ("gpu_idle_gaps", "device_free_time", "host_bound_cpu", "kernel_launch_overhead")


def _trace(folder: Path, steps: int, ops: int, kernel_us: float, id_step: int = 1) -> Path:
    """`steps` steps of 2 ms, each with `ops` operators (External ids `id_step` apart), one
    launch and one kernel of `kernel_us` each."""
    folder.mkdir(parents=True)
    events, ext = [], 1
    for s in range(steps):
        t0 = 1000.0 + s * 2000
        events.append(op(f"ProfilerStep#{s}", t0, 2000, cat="user_annotation", ext=ext))
        ext += id_step
        for k in range(ops):
            t = t0 + 10 + k * (1900 / ops)
            corr = s * 1000 + k + 1
            events += [
                op("aten::add", t, 1900 / ops - 2, ext=ext),
                runtime("cudaLaunchKernel", t + 1, 2, corr, ext=ext),
                kernel("add_kernel", t + 5, kernel_us, corr),
            ]
            ext += id_step
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])


def test_a_complete_window_is_judged(tmp_path: Path, advisor_ws: Path) -> None:
    # 3 steps x 30 ops, consecutive ids, 30 x 20 us = 0.6 ms of device work per step.
    advice = advise_path(_trace(tmp_path / "w", 3, 30, 20.0).parent, advisor_ws)
    assert advice.window_limit is None
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert not any("steady-state rules are not evaluated" in r for r in reasons.values())
    fires(advice, "device_free_time")  # 1.4 of every 2 ms idle: judged, and true of this run


def test_ids_that_skip_are_a_sampled_trace(tmp_path: Path, advisor_ws: Path) -> None:
    # The same run with every 5th id kept: 20 % of the ids present, none adjacent.
    advice = advise_path(_trace(tmp_path / "w", 3, 30, 20.0, id_step=5).parent, advisor_ws)
    for rid in STEADY:
        window_limited(advice, rid, "sampled")
    assert not {f.id for f in advice.findings} & set(STEADY)
    assert advice.window_limit is not None and "complete trace" in advice.window_limit.en
    assert "采样" in advice.window_limit.zh
    same_figures(advice.window_limit)


def test_a_handful_of_events_is_a_fragment(tmp_path: Path, advisor_ws: Path) -> None:
    # one step, 10 ops: 30 events besides the step marker (under MIN_EVENTS = 50)
    advice = advise_path(_trace(tmp_path / "w", 1, 10, 20.0).parent, advisor_ws)
    for rid in STEADY:
        window_limited(advice, rid, "fragment")
    # one more step makes 60 events: judged
    advice = advise_path(_trace(tmp_path / "w2", 2, 10, 20.0).parent, advisor_ws)
    assert advice.window_limit is None


def test_microseconds_of_device_work_are_a_toy(tmp_path: Path, advisor_ws: Path) -> None:
    # 3 steps x 30 kernels of 3 us: 90 us of device work per 2 ms step (TOY_DEVICE_US = 100)
    advice = advise_path(_trace(tmp_path / "w", 3, 30, 3.0).parent, advisor_ws)
    for rid in STEADY:
        window_limited(advice, rid, "toy")
    assert "the device works 90 us per step" in advice.window_limit.en  # type: ignore[union-attr]
    same_figures(advice.window_limit)
    # 4 us kernels: 120 us per step, judged
    advice = advise_path(_trace(tmp_path / "w2", 3, 30, 4.0).parent, advisor_ws)
    assert advice.window_limit is None


@pytest.mark.parametrize(
    ("path", "worker", "kind"),
    [
        ("hta/trace_filter", "sampled_rank-0", "sampled"),  # 1.4 % of 170,156 ids present
        ("hta/call_stack", None, "fragment"),  # 7 events cut by hand
        ("hta/critical_path/cuda_event_sync", None, "fragment"),  # a 27-event micro-test
        ("hta/cpu_only", None, "fragment"),  # 30 events of a 300-rank job
        ("kineto/tb_plugin_expected", "gpu_metrics_input", "toy"),  # 48 us of kernels/13 ms
    ],
)
def test_real_inputs_that_cannot_be_judged(
    advisor_ws: Path, path: str, worker: str | None, kind: str
) -> None:
    advice = advise_path(shared(path), advisor_ws, worker=worker)
    assert advice.window_limit is not None and LIMIT_WORDS[kind] in advice.window_limit.en
    steady = [n for n in advice.not_evaluated if "steady-state rules" in n.reason]
    assert steady and all(LIMIT_WORDS[kind] in n.reason for n in steady)
    assert render_text(advice).splitlines()[1].startswith("The profiled window cannot be judged")
    same_figures(advice.window_limit)


def same_figures(notice: Any) -> None:
    """The zh notice carries the English one's figures (issue 19: it had none)."""
    en, zh = (sorted(re.findall(r"\d[\d,.]*", text)) for text in (notice.en, notice.zh))
    assert en and en == zh, (notice.en, notice.zh)


@pytest.mark.parametrize(
    "path",
    [
        "kineto/resnet50_num_workers_0",
        "hta/nccl_parser_config",
        "hta/rank_non_gpu",  # a host-only fixture, but a whole step: 2,459 events
        "ascend_pytorch/level0",
        "mindspore_legacy/cluster_propose",  # step-trace files, no event timeline
    ],
)
def test_real_inputs_that_are_judged(advisor_ws: Path, path: str) -> None:
    advice = advise_path(shared(path), advisor_ws)
    assert advice.window_limit is None


def test_thresholds_are_the_documented_ones() -> None:
    assert (wl.MIN_EVENTS, wl.TOY_DEVICE_US, wl.MIN_ADJACENT_IDS) == (50, 100.0, 0.5)
