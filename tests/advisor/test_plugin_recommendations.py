"""Parity with the PyTorch profiler plugin's own recommendations on its golden samples.

`result_check_file.txt` holds the plugin's overview responses (line 0: num_workers_0,
line 5: num_workers_4); their `recommendations` HTML is the advice the plugin gave. We give
the counterpart of each, with the same figures, and nothing data-related where it gave none.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.advisor.helpers import advise_path, fires
from tests.conftest import shared

RUNS = {"kineto/resnet50_num_workers_0": 0, "kineto/resnet50_num_workers_4": 5}


def _plugin_advice(line: int) -> str:
    text = shared("kineto/tb_plugin_expected/result_check_file.txt").read_text().splitlines()
    return str(json.loads(text[line])["recommendations"])


@pytest.mark.parametrize("run", sorted(RUNS))
def test_same_advice_as_the_plugin(advisor_ws: Path, run: str) -> None:
    plugin = _plugin_advice(RUNS[run])
    advice = advise_path(shared(run), advisor_ws)
    data = [f for f in advice.findings if f.category == "data_pipeline"]

    loader = re.search(r"([\d.]+)% of the step time is in DataLoader", plugin)
    if loader:  # num_workers_0: 33.4 %
        wait = fires(advice, "dataloader_wait")
        assert wait.severity == "high"
        assert 100 * wait.facts["data.wait_share"] == pytest.approx(float(loader[1]), abs=0.05)
        assert any(e.kind == "step" and e.value for e in wait.evidence)
        assert "num_workers" in " ".join(a.en for a in wait.actions)
    else:  # num_workers_4: the plugin says nothing about data loading, nor do we
        assert data == []

    tc = re.search(r"Kernels with (\d+)% time are launched by Tensor Cores eligible", plugin)
    assert tc, "both golden overviews recommend mixed precision"
    f = fires(advice, "tensor_cores_unused")
    assert round(100 * f.facts["gpu.tc_eligible_share"]) == int(tc[1])
    assert "amp" in (f.docs or "") or "mixed precision" in " ".join(a.en for a in f.actions).lower()
