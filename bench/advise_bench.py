"""What advice costs on a large trace, against the plugin that gave the only other GPU advice.

Each step runs in a fresh child process (wall time and peak RSS from `measure.py`):
1. `mindinsight analyse` into an empty workspace (the cold analysis);
2. `mindinsight advise`, which evaluates every rule, reading the cached report and the
   memory-mapped trace (what the dashboard pays once per run);
3. `mindinsight advise` again, served from the stored advice;
and, with `--anchor`, the PyTorch TensorBoard plugin loading the same trace, which is when
it computes its recommendations (HTA gives no advice, MindInsight reads no Kineto traces).

    python bench/advise_bench.py [--trace FILE] [--anchor] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import anchors
from measure import run_measured
from run_bench import REPO_ROOT, ours_env

DEFAULT_TRACE = Path("/tmp/mi-bench-inputs/x15/worker0.1623143089861.pt.trace.json.gz")


def _cli(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "mindinsight_profiler", *map(str, args)]


def run(trace: Path, anchor: bool) -> dict[str, Any]:
    workspace = Path(tempfile.mkdtemp(prefix="mi-advise-bench-"))
    out: dict[str, Any] = {"trace": str(trace), "bytes": trace.stat().st_size}
    try:
        steps = {
            "analyse_cold": _cli("analyse", trace, "--format", "json", "--workspace", workspace),
            "advise_first": _cli("advise", trace, "--format", "json", "--workspace", workspace),
            "advise_stored": _cli("advise", trace, "--format", "json", "--workspace", workspace),
        }
        for name, command in steps.items():
            m = run_measured(command, cwd=REPO_ROOT, env=ours_env())
            out[name] = {
                "wall_s": round(m.wall_s, 3),
                "peak_rss_mb": round(m.peak_rss_mb, 1),
                "ok": m.ok,
            }
            if name == "advise_first" and m.ok:
                advice = json.loads(m.stdout)
                out["findings"] = [f"{f['id']} ({f['severity']})" for f in advice["findings"]]
                out["rules"] = advice["rules"]
            print(f"{name:<14} {m.wall_s:7.2f} s {m.peak_rss_mb:7.0f} MB", flush=True)
        if anchor:
            tb = next(a for a in anchors.ANCHORS if a.key == "tb")
            m = run_measured(tb.command(trace), timeout_s=900)
            out["tb_plugin_load"] = {
                "wall_s": round(m.wall_s, 3),
                "peak_rss_mb": round(m.peak_rss_mb, 1),
                "ok": m.ok,
            }
            ours = out["analyse_cold"]["wall_s"] + out["advise_first"]["wall_s"]
            out["ratio_tb_over_ours_cold"] = round(m.wall_s / ours, 2)
            print(f"tb plugin      {m.wall_s:7.2f} s {m.peak_rss_mb:7.0f} MB", flush=True)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--anchor", action="store_true", help="also time the tb plugin")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    result = run(args.trace, args.anchor)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
