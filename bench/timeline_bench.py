"""Timeline engine timings on a large trace: index build, window queries, search, export.

The product promises that any window of any trace answers in <= 100 ms with <= 1 MB of
JSON. This measures exactly that on the x15 input (made by `make_inputs.py`): the index is
built once, stored in a workspace cache and reopened memory-mapped, as the server will; then
windows from the whole trace down to 1 ms, at random places, are queried at 1920 px.

    PYTHONPATH=. python bench/timeline_bench.py [--trace FILE] [--queries 20] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.timeline.export import export_chrome_trace
from mindinsight_profiler.analysis.timeline.index import build_timeline_index, timeline_index
from mindinsight_profiler.analysis.timeline.window import search_events, timeline_window
from mindinsight_profiler.pipeline.reports import load_trace
from mindinsight_profiler.store.cache import Workspace

DEFAULT_TRACE = Path("/tmp/mi-bench-inputs/x15/worker0.1623143089861.pt.trace.json.gz")
WIDTH_PX = 1920
TARGET_MS = 100.0
TARGET_BYTES = 1_000_000


def _timed(fn: Any, *args: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t) * 1000


def _windows(span: int) -> list[int]:
    """Window lengths from the whole trace down to 1 ms, about a factor 10 apart."""
    sizes = [span, span // 4]
    size = 10 ** (len(str(span // 4)) - 1)
    while size >= 10**6:
        if size < span // 4:
            sizes.append(size)
        size //= 10
    return sizes


def run(trace_path: Path, queries: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mi-timeline-bench-") as tmp:
        ws = Workspace(tmp)
        trace, load_ms = _timed(load_trace, trace_path, ws)
        index, build_ms = _timed(build_timeline_index, trace)
        entry = ws.entry(trace_path)
        trace.tables.update(index)
        _, save_ms = _timed(entry.save, trace, {})
        reopened, reopen_ms = _timed(entry.load_trace, False)
        index, lookup_ms = _timed(timeline_index, reopened)
        meta = index["timeline_meta"]
        origin, span = int(meta["origin_ns"][0]), int(meta["span_ns"][0])
        rng = np.random.default_rng(seed)
        rows = []
        for size in _windows(span):
            times, sizes, items = [], [], []
            for _ in range(1 if size == span else queries):
                t0 = origin + int(rng.integers(0, max(span - size, 1)))
                r, ms = _timed(timeline_window, reopened, index, None, t0, t0 + size, WIDTH_PX)
                text, json_ms = _timed(json.dumps, r)
                times.append(ms + json_ms)
                sizes.append(len(text))
                items.append(len(r["events"]["index"]) + len(r["blocks"]["count"]))
            rows.append({"window_ns": size, "queries": len(times),
                         "median_ms": float(np.median(times)), "max_ms": max(times),
                         "max_json_bytes": max(sizes), "max_items": max(items)})  # fmt: skip
        _, search_ms = _timed(search_events, reopened, "conv", 100)
        _, export_ms = _timed(export_chrome_trace, reopened, Path(tmp) / "export.json.gz")
    return {"trace": str(trace_path), "events": len(trace), "span_ns": span,
            "load_ms": load_ms, "index_build_ms": build_ms, "cache_save_ms": save_ms,
            "cache_reopen_ms": reopen_ms, "index_lookup_ms": lookup_ms,
            "index_bytes": sum(a.nbytes for t in index.values() for a in t.values()),
            "windows": rows, "search_ms": search_ms, "export_ms": export_ms}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--queries", type=int, default=20, help="random windows per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    if not args.trace.exists():
        print(f"missing {args.trace}: run bench/make_inputs.py --factors 15", file=sys.stderr)
        return 2
    res = run(args.trace, args.queries, args.seed)
    print(f"{res['events']} events, span {res['span_ns'] / 1e9:.2f} s")
    for key in ("load_ms", "index_build_ms", "cache_save_ms", "cache_reopen_ms",
                "index_lookup_ms", "search_ms", "export_ms"):  # fmt: skip
        print(f"  {key:<18} {res[key]:10.1f}")
    print(f"  index size         {res['index_bytes'] / 2**20:10.1f} MiB")
    print(
        f"  {'window':>14} {'n':>4} {'median ms':>10} {'max ms':>8} {'max JSON':>10} {'items':>6}"
    )
    ok = True
    for w in res["windows"]:
        ok &= w["max_ms"] <= TARGET_MS and w["max_json_bytes"] <= TARGET_BYTES
        print(f"  {w['window_ns'] / 1e6:>11.1f} ms {w['queries']:>4} {w['median_ms']:>10.2f}"
              f" {w['max_ms']:>8.2f} {w['max_json_bytes']:>10} {w['max_items']:>6}")  # fmt: skip
    verdict = "met" if ok else "MISSED"
    print(f"targets (<= {TARGET_MS:.0f} ms, <= {TARGET_BYTES} B per window): {verdict}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
