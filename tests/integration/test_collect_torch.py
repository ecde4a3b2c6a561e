"""`Profiler` on a real (CPU) training run, checked against torch's own numbers.

Trains a small CNN with the torch 2.13 CPU wheel through `Profiler`, then compares
`analyse()` with `prof.key_averages()` of the same session, and the DataLoader probe with
the DataLoader ranges of the trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")

from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

from mindinsight_profiler import Profiler  # noqa: E402
from mindinsight_profiler.analysis.data_pipeline.wait import loader_wait_per_step  # noqa: E402
from mindinsight_profiler.analysis.steps.boundaries import find_steps  # noqa: E402
from mindinsight_profiler.formats.kineto.reader import read_kineto  # noqa: E402

SCHEDULE = (1, 1, 4, 1)  # wait, warmup, active, repeat
STEPS = sum(SCHEDULE[:3]) + 1


class Images(Dataset):  # type: ignore[type-arg]
    """Random images made on the fly (slow enough that data loading shows up)."""

    def __len__(self) -> int:
        return 16 * STEPS * 2

    def __getitem__(self, i: int) -> tuple[Any, int]:
        g = torch.Generator().manual_seed(i)
        return torch.randn(3, 32, 32, generator=g), int(torch.randint(10, (1,), generator=g))


def _train(out: Path, workers: int) -> tuple[dict, Any, Profiler]:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, 10),
    )  # fmt: skip
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Images(), batch_size=16, num_workers=workers)
    prof = Profiler(out, schedule=SCHEDULE, record_shapes=True)
    for i, (x, y) in enumerate(prof.wrap(loader)):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        prof.step()
        if i + 1 >= STEPS:
            break
    report = prof.analyse(quiet=True)
    return report, prof.torch_profiler.key_averages(), prof


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Any, Profiler]:
    return _train(tmp_path_factory.mktemp("run") / "cnn", workers=0)


def test_operators_equal_key_averages(single: tuple[dict, Any, Profiler]) -> None:
    report, ka, _ = single
    torch_rows = {e.key: e for e in ka}
    assert len(report["operators"]) > 10
    for op in report["operators"]:
        ref = torch_rows[op["name"]]
        assert op["calls"] == ref.count, op["name"]
        assert op["host_total_us"] == pytest.approx(ref.cpu_time_total, rel=0.01, abs=1), op["name"]
        assert op["host_self_us"] == pytest.approx(ref.self_cpu_time_total, rel=0.01, abs=1), op[
            "name"
        ]


def test_run_layout_and_written_results(single: tuple[dict, Any, Profiler]) -> None:
    report, _, prof = single
    files = {p.name for p in prof.profiler_dir.iterdir()}
    assert any(n.endswith(".pt.trace.json.gz") for n in files)
    assert {"run_meta.json", "worker0.dataloader_probe.json", "analysis"} <= files
    meta = json.loads((prof.profiler_dir / "run_meta.json").read_text())
    assert meta["framework"] == "pytorch" and meta["framework_version"].startswith("2.")
    written = json.loads((prof.profiler_dir / "analysis/report.json").read_text())
    assert written["report_version"] == report["report_version"]
    assert written["steps"]["count"] == SCHEDULE[2]
    assert written["operator_details"] and "path" not in written["operator_details"][0]
    advice = json.loads((prof.profiler_dir / "analysis/advice.json").read_text())
    assert advice["rules"] >= 1 and advice["worker"] == "worker0"
    assert written["advice"]["findings"] == [f["id"] for f in advice["findings"]]


def test_probe_wait_agrees_with_trace(single: tuple[dict, Any, Profiler]) -> None:
    report, _, prof = single
    trace = read_kineto(prof.profiler_dir / report["trace_file"])
    steps = find_steps(trace)
    waits = loader_wait_per_step(trace, steps)
    probe = {row[0]: row[1] for row in report["dataloader_probe"]["loaders"][0]["rows"]}
    for name, wait_ns in zip(steps.names, waits.tolist(), strict=True):
        measured = probe[int(name)]
        assert wait_ns > 0
        # The probe times next(); the trace range is inside it: a few us of overhead at most.
        assert wait_ns <= measured <= wait_ns + max(300_000, 0.1 * wait_ns), (
            name,
            wait_ns,
            measured,
        )


def test_filters(tmp_path: Path, single: tuple[dict, Any, Profiler]) -> None:
    from mindinsight_profiler.collect.analyse import analyse_run
    from mindinsight_profiler.collect.options import ProfilerOptions

    _, _, prof = single
    names = {o["name"] for o in single[0]["operators"]}
    back = analyse_run(prof.profiler_dir, ProfilerOptions.create(tmp_path, subgraph="Gradients"))
    fwd = analyse_run(prof.profiler_dir, ProfilerOptions.create(tmp_path, subgraph="Default"))
    assert any("Backward" in o["name"] or "backward" in o["name"] for o in back["operators"])
    assert "aten::convolution_backward" not in {o["name"] for o in fwd["operators"]}
    only = analyse_run(
        prof.profiler_dir, ProfilerOptions.create(tmp_path, optypes_to_deal="conv2d,addmm")
    )
    assert {o["name"] for o in only["operators"]} <= {"aten::conv2d", "aten::addmm"}
    assert "aten::conv2d" in names
    none_of = analyse_run(
        prof.profiler_dir, ProfilerOptions.create(tmp_path, optypes_not_deal="aten::conv2d")
    )
    assert "aten::conv2d" not in {o["name"] for o in none_of["operators"]}
    detail = analyse_run(prof.profiler_dir, ProfilerOptions.create(tmp_path, is_show_op_path=True))
    assert detail["operator_details"][0]["path"].startswith("ProfilerStep#")


def test_multiprocess_loader_reports_queue_depth(tmp_path: Path) -> None:
    report, _, _ = _train(tmp_path / "cnn2", workers=2)
    loader = report["dataloader_probe"]["loaders"][0]
    assert loader["config"]["num_workers"] == 2 and loader["config"]["prefetch_factor"] == 2
    depths = [row[2] for row in loader["rows"]]
    assert all(d >= 0 for d in depths) and max(depths) >= 1
    assert np.mean([row[1] for row in loader["rows"]]) > 0
    # the data-pipeline section reads the probe the Profiler wrote (its file lists every
    # wrapped loader): the workers, the queue depth at each fetch and a verdict from it
    pipeline = report["data_pipeline"]
    assert pipeline["workers"]["num_workers"] == 2 and pipeline["workers"]["queue_capacity"] == 4
    queue = next(q for q in pipeline["queues"] if q["name"] == "loader_queue")
    assert queue["samples"] == len(loader["rows"])
    assert pipeline["verdict"]["rule"]["en"].startswith("loader queue")


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="subgraph"):
        Profiler("x", subgraph="nope", start_profile=False)
    with pytest.raises(ValueError, match="schedule"):
        Profiler("x", schedule=(0, 0, 0, 1), start_profile=False)
