"""Benchmark: MindSpore profiler folders, this project against MindInsight 2.3.1.

MindInsight reads MindSpore's own profiler output, not Kineto traces, so it is compared on
`../shared/data/mindspore_legacy` (the only MindSpore data it reads): each tool in a fresh
process analyses every folder there, MindInsight through its own analysers and proposers
as its web API calls them (`scripts/mindinsight_reference.py`, every dashboard view), this
project through `bench/drivers/ours_folders.py` (every worker, into an empty workspace).
Wall time and peak RSS of each process (`measure.py`), best of `--repeat`, and the ratio.
The folders are small (a few MB), so the figures are dominated by start-up and per-file
work rather than by decoding throughput.

    python bench/mindinsight_bench.py [--repeat 3] [--data DIR]

The first run builds MindInsight's virtual environment under bench/.venvs/mi (pip, about a
minute). Results: printed, and written to bench/results/mindinsight-<timestamp>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import anchors
import make_inputs
from measure import run_measured
from run_bench import ours_env

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
MINDINSIGHT = anchors.Anchor(
    key="mi",
    label="mindinsight",
    distribution="mindinsight",
    requirements=("mindinsight==2.3.1",),
    driver=REPO_ROOT / "scripts" / "mindinsight_reference.py",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=None, help="mindspore_legacy folder")
    args = parser.parse_args(argv)
    data = args.data or make_inputs.shared_dir() / "data" / "mindspore_legacy"
    if not data.is_dir():
        print(f"no MindSpore data at {data}", file=sys.stderr)
        return 2
    version = anchors.ensure_anchor(MINDINSIGHT)
    folders = sorted(str(p) for p in data.iterdir() if p.is_dir())
    best: dict[str, dict[str, float]] = {}
    for _ in range(max(1, args.repeat)):
        with tempfile.TemporaryDirectory() as ws:
            runs = {
                "mindinsight": [str(MINDINSIGHT.python), str(MINDINSIGHT.driver), str(data)],
                "ours": [
                    sys.executable,
                    str(BENCH_DIR / "drivers" / "ours_folders.py"),
                    ws,
                    *folders,
                ],
            }
            for tool, command in runs.items():
                env = ours_env() if tool == "ours" else dict(os.environ)
                m = run_measured(command, timeout_s=600, env=env)
                if not m.ok:
                    print(f"{tool} failed: {m.stderr_tail}", file=sys.stderr)
                    return 1
                seen = best.get(tool)
                if seen is None or m.wall_s < seen["wall_s"]:
                    best[tool] = {"wall_s": m.wall_s, "peak_rss_mb": m.peak_rss_mb}
    ratio = best["mindinsight"]["wall_s"] / best["ours"]["wall_s"]
    print(f"MindInsight {version} vs this project on {data} ({len(folders)} folders):")
    for tool, figures in best.items():
        print(f"  {tool:12s} {figures['wall_s']:6.2f} s  {figures['peak_rss_mb']:6.0f} MB")
    print(f"  speed-up: {ratio:.1f}x")
    RESULTS_DIR.mkdir(exist_ok=True)
    out = RESULTS_DIR / f"mindinsight-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"version": version, "best": best, "speedup": ratio}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
