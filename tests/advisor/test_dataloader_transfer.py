"""A DataLoader wait while the Profiler's probe saw batches ready is the transfer of each
batch, not its loading (issue 18): the advisor says so instead of "raise num_workers"."""

from __future__ import annotations

import json
from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.tracegen import op, write_trace

LOADER = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"


def _run(folder: Path, ready: int) -> Path:
    """Six 10 ms steps, each waiting 3 ms in the loader; the probe saw `ready` batches."""
    folder.mkdir(parents=True)
    events = []
    for s in range(6):
        t0 = 1000.0 + s * 10_000
        events += [
            op(f"ProfilerStep#{s}", t0, 10_000, cat="user_annotation"),
            op(LOADER, t0 + 10, 3_000, cat="user_annotation"),
        ]
        events += [  # ten matmuls: a whole step, not a fragment (window_limits.MIN_EVENTS)
            op("aten::mm", t0 + 3_100 + k * 600, 590,
               **{"Input Dims": [[256, 256], [256, 256]], "Input type": ["float", "float"]})
            for k in range(10)
        ]  # fmt: skip
    write_trace(folder / "worker0.1.pt.trace.json", events)
    probe = {
        "config": {"num_workers": 2, "prefetch_factor": 2},
        "columns": ["step", "wait_ns", "ready_batches"],
        "rows": [[s, 3_000_000, ready] for s in range(6)],
    }
    (folder / "worker0.dataloader_probe.json").write_text(
        json.dumps({"schema_version": 1, "loaders": [probe]})
    )
    return folder


def test_wait_with_batches_ready_is_transfer(tmp_path: Path, advisor_ws: Path) -> None:
    advice = advise_path(_run(tmp_path / "full", ready=4), advisor_ws)
    f = fires(advice, "dataloader_transfer")
    assert f.facts["data.loader_ready_rate"] == 1.0
    assert abs(f.facts["data.wait_share"] - 0.3) < 0.01
    assert "dataloader_wait" in {s.id for s in advice.suppressed}
    assert not any("num_workers" in a.en for a in f.actions)


def test_wait_with_an_empty_queue_is_loading(tmp_path: Path, advisor_ws: Path) -> None:
    advice = advise_path(_run(tmp_path / "empty", ready=0), advisor_ws)
    does_not_fire(advice, "dataloader_transfer")
    fires(advice, "dataloader_wait")
