"""`Profiler(framework='mindspore')` on a real MindSpore CPU training run.

Collects a LeNet-style run through MindSpore's own profiler, analyses it, and checks the
operator-type totals against MindSpore's per-type table written in the same run.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

ms = pytest.importorskip("mindspore", reason="mindspore is not installed (pip install mindspore)")

import numpy as np  # noqa: E402
from mindspore import dataset as ds  # noqa: E402
from mindspore import nn  # noqa: E402

from mindinsight_profiler import Profiler  # noqa: E402
from mindinsight_profiler.analysis.operators.by_type import op_type_table  # noqa: E402
from mindinsight_profiler.formats.detect import read_trace  # noqa: E402

STEPS = 8


class LeNet(nn.Cell):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc = nn.Dense(16 * 5 * 5, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x: Any) -> Any:
        x = self.pool(self.relu(self.conv1(x)))
        return self.fc(self.flatten(self.pool(self.relu(self.conv2(x)))))


def _data() -> Any:
    def gen() -> Any:
        rng = np.random.default_rng(0)
        for _ in range(STEPS * 16):
            yield (
                rng.standard_normal((1, 32, 32)).astype(np.float32),
                np.array(rng.integers(10), dtype=np.int32),
            )

    return ds.GeneratorDataset(gen, column_names=["image", "label"], shuffle=False).batch(16)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Profiler]:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    net = LeNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    prof = Profiler(tmp_path_factory.mktemp("ms") / "lenet", framework="mindspore")
    for x, y in _data().create_tuple_iterator(num_epochs=1):
        _, grads = grad_fn(x, y)
        opt(grads)
        prof.step()
    return prof.analyse(quiet=True), prof


def test_collects_and_analyses(run: tuple[dict, Profiler]) -> None:
    report, prof = run
    assert report["worker"] and report["operators"]
    assert (prof.profiler_dir / "analysis/report.json").exists()
    assert (prof.profiler_dir / "run_meta.json").exists()
    names = {o["name"] for o in report["operators"]}
    assert any("Conv2D" in n for n in names)


def test_type_totals_equal_mindspore_table(run: tuple[dict, Profiler]) -> None:
    _, prof = run
    folder = next(prof.profiler_dir.glob("*_ascend_ms"))
    ours = op_type_table(read_trace(folder))
    mine = dict(
        zip(ours["op_type"], zip(ours["total_us"], ours["calls"], strict=True), strict=True)
    )
    rows = list(csv.DictReader((folder / "FRAMEWORK/cpu_op_type_info_0.csv").open()))
    assert rows and set(mine) == {r["op_type"] for r in rows}
    for row in rows:
        total_us = float(row["total_compute_time"]) * 1000  # the CSV is in ms
        assert mine[row["op_type"]][0] == pytest.approx(total_us, rel=1e-3), row["op_type"]
        assert mine[row["op_type"]][1] == int(row["type_occurrences"]), row["op_type"]


def test_subgraph_filter(run: tuple[dict, Profiler], tmp_path: Path) -> None:
    from mindinsight_profiler.collect.analyse import analyse_run
    from mindinsight_profiler.collect.options import ProfilerOptions

    _, prof = run
    back = analyse_run(prof.profiler_dir, ProfilerOptions.create(tmp_path, subgraph="Gradients"))
    fwd = analyse_run(prof.profiler_dir, ProfilerOptions.create(tmp_path, subgraph="Default"))
    assert all(o["name"].startswith("Gradients/") for o in back["operators"])
    assert not any(o["name"].startswith("Gradients/") for o in fwd["operators"])
