"""Many-rank runs made in tmp from real two-rank data, each copy with its own rank.

A real job of eight or more ranks is not in ../shared/data, so the real ranks are copied
round-robin and each copy's own rank field rewritten (the fields the readers take the rank
from): Kineto's `distributedInfo.rank`, Ascend PyTorch's `profiler_info_<rank>.json`
`rank_id`. The events are the real ones; only which rank a copy claims to be changes.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from tests.conftest import shared

HTA_RANKS = ("hta/trace_filter/sampled_rank-0.json.gz", "hta/trace_filter/sampled_rank-1.json.gz")
ASCEND_RANKS = ("ascend_pytorch/level1/rank0_ascend_pt", "ascend_pytorch/level1/rank1_ascend_pt")


def kineto_run(dest: Path, ranks: int) -> Path:
    """`dest/rank<NN>.pt.trace.json.gz` for ranks 0..ranks-1 (HTA's two real ranks)."""
    dest.mkdir(parents=True, exist_ok=True)
    docs = []
    for rel in HTA_RANKS:
        with gzip.open(shared(rel), "rt") as f:
            docs.append(json.load(f))
    for rank in range(ranks):
        doc = docs[rank % len(docs)]
        doc["distributedInfo"] = dict(doc["distributedInfo"], rank=rank)
        with gzip.open(dest / f"rank{rank:02d}.pt.trace.json.gz", "wt", compresslevel=1) as f:
            json.dump(doc, f)
    return dest


def ascend_run(dest: Path, ranks: int) -> Path:
    """`dest/rank<NN>_ascend_pt/` for ranks 0..ranks-1 (Ascend PyTorch level 1, two ranks)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        source = shared(ASCEND_RANKS[rank % len(ASCEND_RANKS)])
        folder = dest / f"rank{rank:02d}_ascend_pt"
        shutil.copytree(source, folder)
        for path in [folder, *folder.rglob("*")]:  # copies of read-only data
            path.chmod(0o755 if path.is_dir() else 0o644)
        (info_file,) = folder.glob("profiler_info_*.json")
        info = json.loads(info_file.read_text())
        info["rank_id"] = rank
        info_file.unlink()
        (folder / f"profiler_info_{rank}.json").write_text(json.dumps(info))
    return dest
