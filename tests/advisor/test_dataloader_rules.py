"""Data-pipeline rules on the PyTorch plugin's own ResNet-50 samples."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_single_process_loader_waits_for_data_at_high_severity(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    f = fires(advice, "dataloader_wait")
    assert f.severity == "high"
    # The plugin's golden breakdown: DataLoader 59,262 us of a 177,592 us step (33.37 %).
    assert abs(f.facts["data.wait_share"] - 0.3337) < 0.001
    assert abs(f.estimated_saving_us - 59262) < 5
    steps = [e for e in f.evidence if e.kind == "step"]
    assert len(steps) == 6 and all(e.value and e.value > 40_000 for e in steps)
    assert all(e.end_ns > e.start_ns > 0 for e in steps)


def test_four_loader_workers_do_not_wait(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_4"), advisor_ws)
    does_not_fire(advice, "dataloader_wait")
