"""Edited copies of the real MindSpore cluster run, for tests that need a finding the
unedited run rightly does not give."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def scale_hccl_transfers(folder: Path, factor: int = 2000) -> Path:
    """Multiply every hccl_raw link_info transfer size in `folder` (a copy of
    mindspore_legacy/cluster_propose) by `factor`, bandwidths kept. The real run's links
    move 3-6 KB per call: latency-bound, so `slow_link` rightly leaves them unjudged; times
    2,000 every link averages over SDMA's 16 MB and rank 1's slow 0-1 link is reported
    (what the tests of link evidence need)."""
    for path in folder.glob("hccl_raw_*.csv"):
        path.chmod(0o644)
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            info = json.loads(row["link_info"])
            for by_type in info.values():
                for v in by_type.values():
                    v[1] *= factor
            row["link_info"] = json.dumps(info)
        with path.open("w", newline="") as f:
            out = csv.DictWriter(f, fieldnames=list(rows[0]))
            out.writeheader()
            out.writerows(rows)
    return folder
