"""The window rules (one-off work in the profiled steps) and the steady-state gate, on real
traces and on runs made by torch with a planted compilation."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.advisor.engine import MAX_ONE_OFF_SHARE
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared
from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, runtime, write_trace


def test_first_launches_on_the_mi250_toy_are_initialisation(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/amd_trace"), advisor_ws)
    f = fires(advice, "window_initialisation")
    assert f.facts["window.initialisation_share"] > MAX_ONE_OFF_SHARE  # a 6.5 ms first launch
    assert f.severity == "high"
    assert any(e.kind == "time_range" and "hipLaunchKernel" in e.label for e in f.evidence)
    # the steady-state rules keep off a window that is mostly set-up, and say why
    skipped = {n.id: n.reason for n in advice.not_evaluated}
    for rid in ("gpu_idle_gaps", "kernel_launch_overhead", "short_kernels", "host_bound_cpu"):
        assert "one-off work" in skipped[rid], rid
    assert not {f.id for f in advice.findings} & set(skipped)


def test_set_up_and_warm_up_of_the_benchmark(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/critical_path/simple_add"), advisor_ws)
    init = fires(advice, "window_initialisation")
    assert init.facts["window.initialisation_us"] > 20e6  # cudaDeviceGetStreamPriorityRange
    warm = fires(advice, "window_warmup")
    assert 0.05 < warm.facts["window.warmup_share"] < 0.5


def test_steady_state_runs_have_no_window_findings(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    does_not_fire(advice, "window_compile")
    does_not_fire(advice, "window_initialisation")
    does_not_fire(advice, "window_warmup")
    does_not_fire(advice, "window_cuda_graph_capture")
    fires(advice, "gpu_idle_gaps")  # steady-state rules still judge a steady window


def test_compilation_in_the_window(planted: Path, advisor_ws: Path) -> None:
    f = fires(advise_path(planted / "compile", advisor_ws), "window_compile")
    assert f.facts["window.compile_share"] > MAX_ONE_OFF_SHARE
    does_not_fire(advise_path(planted / "none", advisor_ws), "window_compile")


def test_graph_capture_in_the_window(tmp_path: Path, advisor_ws: Path) -> None:
    events = [op("ProfilerStep#0", 1000, 1000, cat="user_annotation")]
    events += [
        runtime("cudaStreamBeginCapture", 1010, 5, 0),
        runtime("cudaLaunchKernel", 1020, 5, 1), kernel("k", 1030, 10, 1),
        runtime("cudaStreamEndCapture", 1300, 5, 0),
        runtime("cudaGraphInstantiate", 1310, 300, 0),
    ]  # fmt: skip
    path = write_trace(tmp_path / "g.pt.trace.json", events, deviceProperties=[H100])
    f = fires(advise_path(path, advisor_ws), "window_cuda_graph_capture")
    assert abs(f.facts["window.capture_us"] - 595) < 1e-6  # 1010-1305 and 1310-1610


def test_mindspore_graph_compile_gap_is_compilation(advisor_ws: Path) -> None:
    # GRAPH_MODE LeNet on the CPU: no compile event, but 385.6 ms pass with no operator
    # before the optimizer graph's first AssignAdd (every later gap is at most 16.2 ms): the
    # Momentum cell compiling on its first call; 4.5 % of the unmarked 20-step window.
    advice = advise_path(shared("mindspore_cpu/legacy_graph_dataproc"), advisor_ws)
    f = fires(advice, "window_compile")
    assert abs(f.facts["window.compile_us"] - 385_593) < 1_000
    assert 0.02 < f.facts["window.compile_share"] < 0.05  # fires through min_us
    [ev] = f.evidence
    assert ev.kind == "time_range" and "graph compile" in ev.label
    assert ev.end_ns - ev.start_ns == round(f.facts["window.compile_us"] * 1000)
    texts = " ".join(a.en for a in f.actions)
    assert "enable_compile_cache" in texts and "torch.profiler" not in texts


def test_pynative_first_call_gap_is_not_compilation(advisor_ws: Path) -> None:
    # PyNative: a 47.0 ms gap before the first AssignAdd, but recurring gaps reach 52.5 ms:
    # first-call work no longer than the run's usual pauses, not a graph compile.
    advice = advise_path(shared("mindspore_cpu/legacy_pynative_mdprofiler"), advisor_ws)
    does_not_fire(advice, "window_compile")
    facts = next(c.facts for c in advice.checked if c.id == "window_compile")
    assert facts["window.compile_us"] == 0
