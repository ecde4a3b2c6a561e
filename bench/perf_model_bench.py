"""What the performance model (`perf_model` section) adds to a cold analysis.

1. `mindinsight analyse` of the trace into an empty workspace, in a fresh child process
   (wall time and peak RSS from `measure.py`; the fastest of `--repeat` runs counts);
2. in another child, the trace read back from that workspace's cache and the section built
   on it `--repeat` times (the fastest counts), with `op_work` (the per-call work) alone.
The section is built exactly once inside a cold analysis, so its time over the cold wall
time is the share the model adds. The issue's bar: under 10 % on the x15 input.

    python bench/perf_model_bench.py [--trace FILE] [--repeat N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from measure import run_measured
from run_bench import REPO_ROOT, ours_env

DEFAULT_TRACE = Path("/tmp/mi-bench-inputs/x15/worker0.1623143089861.pt.trace.json.gz")

CHILD = """
import json, sys, time
from pathlib import Path
from mindinsight_profiler.analysis.perf.op_work import op_work
from mindinsight_profiler.analysis.perf.section import perf_model_section
from mindinsight_profiler.analysis.steps.boundaries import averaged_from, find_steps
from mindinsight_profiler.pipeline.reports import load_trace
from mindinsight_profiler.store.cache import Workspace

trace = load_trace(Path(sys.argv[1]), Workspace(Path(sys.argv[2])))
steps = find_steps(trace)
first = averaged_from(trace, len(steps))
best = {"op_work_s": float("inf"), "section_s": float("inf")}
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); work = op_work(trace)
    best["op_work_s"] = min(best["op_work_s"], time.perf_counter() - t)
    t = time.perf_counter(); section = perf_model_section(trace, steps, first)
    best["section_s"] = min(best["section_s"], time.perf_counter() - t)
best["events"] = len(trace.events["kind"])
best["operator_calls"] = len(work)
best["covered_share"] = section["totals"]["covered_share"]
best["mfu"] = section["totals"]["mfu"]
print(json.dumps(best))
"""


def run(trace: Path, repeat: int) -> dict[str, Any]:
    out: dict[str, Any] = {"trace": str(trace), "bytes": trace.stat().st_size}
    walls = []
    workspace = Path()
    try:
        for _ in range(repeat):
            shutil.rmtree(workspace, ignore_errors=True) if workspace.name else None
            workspace = Path(tempfile.mkdtemp(prefix="mi-perf-bench-"))
            command = [sys.executable, "-m", "mindinsight_profiler", "analyse", str(trace),
                       "--format", "json", "--workspace", str(workspace)]  # fmt: skip
            m = run_measured(command, cwd=REPO_ROOT, env=ours_env())
            if not m.ok:
                raise SystemExit(f"analyse failed: {m.stderr[-500:]}")
            walls.append(m.wall_s)
            out["analyse_peak_rss_mb"] = round(m.peak_rss_mb, 1)
        out["analyse_cold_s"] = round(min(walls), 3)
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(trace), str(workspace), str(repeat)],
            cwd=REPO_ROOT, env=ours_env(), capture_output=True, text=True, check=True,
        )  # fmt: skip
        out.update(json.loads(child.stdout))
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    out["section_share_of_cold"] = round(out["section_s"] / out["analyse_cold_s"], 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    result = run(args.trace, args.repeat)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
