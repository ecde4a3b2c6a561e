"""A trace larger than a laptop's memory budget: analyse, timeline index and advice on >= 5 GB.

Makes (or reuses) the xN replication of the real ResNet-50 sample (x165 is 5.5 GB of JSON,
12.5 M events, 183 MB gzipped; see make_inputs.py), then runs what the server does for a
new run, each step in a fresh process on one workspace:

1. `mindinsight analyse` (cold: parse, link, report, write the cache entry);
2. the timeline index (`pipeline.load_timeline`: reopen the cache memory-mapped, build the
   level-of-detail index, store it in the entry);
3. `mindinsight advise` (every rule, on the cached report and memory-mapped trace).

Wall time and the peak memory of the whole process tree (the reader's helper processes
included) come from `measure.py`: its PSS, and the anonymous part of it, which the kernel
cannot reclaim (the rest is mapped files: spilled or cached columns, page cache). Each step
runs inside a memory cgroup of `--limit-mb` (default 1500, the issue's 1.5 GB) where the
machine allows (`cgroup.py`: root and a cgroup file system): the kernel then charges heap
and page cache alike to the limit and kills the step if what it cannot reclaim passes it.
Before each step in a cgroup, the input's and the workspace's pages are dropped from the
page cache, so the step is charged for every page it reads. Exit status 1 when a step fails
(an OOM kill in the cgroup included) or its anonymous peak exceeds the limit; without a
cgroup the anonymous peak is the only check, and it says so.

    python bench/big_trace_bench.py [--factor 165] [--inputs DIR] [--limit-mb 1500]
        [--no-cgroup] [--json OUT] [--remove-input]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import make_inputs
from cgroup import MemoryCgroup
from measure import run_measured
from run_bench import DEFAULT_INPUTS, REPO_ROOT, RESULTS_DIR, ours_env

#: x151 is the first factor past 5 GB (5.03e9 bytes of JSON); x165 leaves a margin.
DEFAULT_FACTOR = 165
DEFAULT_LIMIT_MB = 1500

_TIMELINE = (
    "import sys; from pathlib import Path; "
    "from mindinsight_profiler.pipeline.reports import load_timeline; "
    "from mindinsight_profiler.store.cache import Workspace; "
    "trace, index = load_timeline(Path(sys.argv[1]), Workspace(Path(sys.argv[2]))); "
    "print(len(trace), len(index['timeline_events']['event']))"
)


def steps(trace: Path, workspace: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "analyse": [py, "-m", "mindinsight_profiler", "analyse", str(trace), "--format", "json",
                    "--workspace", str(workspace)],
        "timeline_index": [py, "-c", _TIMELINE, str(trace), str(workspace)],
        "advise": [py, "-m", "mindinsight_profiler", "advise", str(trace), "--format", "json",
                   "--workspace", str(workspace)],
    }  # fmt: skip


def run(
    factor: int, inputs: Path, limit_mb: float, timeout_s: float, use_cgroup: bool = True
) -> dict[str, Any]:
    manifest = make_inputs.make_all(inputs, [factor])[0]
    trace = Path(manifest["path"])
    workspace = Path(tempfile.mkdtemp(prefix="mi-big-trace-"))
    out: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "cpus": os.cpu_count(),
        "limit_mb": limit_mb,
        "input": {k: manifest[k] for k in ("factor", "path", "events", "raw_bytes", "gz_bytes")},
        "steps": {},
    }
    try:
        for name, command in steps(trace, workspace).items():
            if use_cgroup:
                evict_page_cache([trace, *workspace.rglob("*")])
            out["steps"][name] = step = _run_step(command, limit_mb, timeout_s, use_cgroup)
            print(
                f"{name:<15} {step['wall_s']:8.1f} s  peak {step['peak_rss_mb']:7.0f} MB  "
                f"tree {step['tree_peak_rss_mb']:7.0f} MB, anonymous "
                f"{step['tree_peak_anon_mb']:7.0f} MB ({step['processes']} procs)  "
                f"{step['cgroup']}  load {step['load_avg_1m']:.2f}  "
                f"{'ok' if step['ok'] else 'FAILED'}",
                flush=True,
            )
            if not step["ok"]:  # the later steps read what this one left: nothing to time
                print(f"{name} failed: {step.get('error', '')[-300:]}", flush=True)
                break
        out["cache_bytes"] = sum(f.stat().st_size for f in workspace.rglob("*") if f.is_file())
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    peaks = [s["tree_peak_anon_mb"] for s in out["steps"].values()]
    out["ok"] = all(s["ok"] for s in out["steps"].values()) and max(peaks) <= limit_mb
    return out


def evict_page_cache(paths: list[Path]) -> None:
    """Drop the files' pages from the page cache (written out first), so that a step in a
    cgroup is charged for the pages it reads: pages cached by an earlier step stay charged
    to that step's (removed) cgroup, and a later step would map them for free."""
    for path in paths:
        if not path.is_file():
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _run_step(
    command: list[str], limit_mb: float, timeout_s: float, use_cgroup: bool
) -> dict[str, Any]:
    """One step, inside a memory cgroup of `limit_mb` where one can be made."""
    group = MemoryCgroup.create(limit_mb) if use_cgroup else "not asked (--no-cgroup)"
    try:
        wrapped = group.wrap(command) if isinstance(group, MemoryCgroup) else command
        m = run_measured(wrapped, cwd=REPO_ROOT, env=ours_env(), timeout_s=timeout_s)
        stats = group.stats() if isinstance(group, MemoryCgroup) else {}
    finally:
        if isinstance(group, MemoryCgroup):
            group.remove()
    if isinstance(group, MemoryCgroup):
        where = f"in a {limit_mb:.0f} MB cgroup (OOM kills {stats.get('oom_kill', 0)})"
    else:
        where = f"no cgroup ({group}): only the anonymous peak is checked"
    return {
        "ok": m.ok and not stats.get("oom_kill"),
        "wall_s": m.wall_s,
        "peak_rss_mb": m.peak_rss_mb,
        "tree_peak_rss_mb": m.tree_peak_rss_mb,
        "tree_peak_anon_mb": m.tree_peak_anon_mb,
        "processes": m.max_processes,
        "load_avg_1m": m.load_avg_1m,
        "cgroup": where,
        "cgroup_stats": stats,
        **({} if m.ok else {"error": m.stderr_tail[-500:]}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factor", type=int, default=DEFAULT_FACTOR, help="copies of the sample")
    parser.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS, help="input folder")
    parser.add_argument("--limit-mb", type=float, default=DEFAULT_LIMIT_MB)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per step")
    parser.add_argument(
        "--no-cgroup", action="store_true", help="run the steps without a memory cgroup"
    )
    parser.add_argument("--json", type=Path, help="results file (default bench/results/...)")
    parser.add_argument("--remove-input", action="store_true", help="delete the input after")
    args = parser.parse_args()
    if not make_inputs.source_trace().exists():
        print(f"source trace not found: {make_inputs.source_trace()}", file=sys.stderr)
        return 2
    result = run(args.factor, args.inputs, args.limit_mb, args.timeout, not args.no_cgroup)
    dest = (
        args.json or RESULTS_DIR / f"big_trace-x{args.factor}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(result, indent=1) + "\n")
    size = result["input"]["raw_bytes"]
    worst = max(s["tree_peak_anon_mb"] for s in result["steps"].values())
    print(
        f"x{args.factor}: {size / 1e9:.2f} GB JSON, {result['input']['events']:,} events; "
        f"highest anonymous tree peak {worst:.0f} MB (limit {args.limit_mb:.0f}): "
        f"{'ok' if result['ok'] else 'FAILED'}; results in {dest}"
    )
    if args.remove_input:
        shutil.rmtree(make_inputs.output_path(args.inputs, args.factor).parent, ignore_errors=True)
        make_inputs.manifest_path(args.inputs, args.factor).unlink(missing_ok=True)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
