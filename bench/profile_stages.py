"""Where the time of a cold analysis goes: a table of stages, for before/after comparisons.

Runs every stage of `mindinsight analyse` on one Kineto trace in this process, one after
the other, each timed on its own (wall and CPU seconds, and the process's peak RSS after
it), with the reader in one process so that each stage's cost is its own:

- stream: decompressing and cutting the text into chunks of whole events (`jsonstream`);
- native scan: the compiled scanner reading each chunk's text into columns
  (`kineto.native`), when it is built; chunks it declines take the next two stages;
- decode: msgspec's typed decode of every chunk into event structs;
- columns: building the numpy column batches from the structs (`build_batch`), including
  freeing the structs;
- merge + links: folding the batches into the trace's columns, pairing, tracks, links
  (the whole `read_kineto` minus the stages above, measured as a second full read);
- each report section (`analysis.sections.SECTIONS`, shared analyses land in the first
  section that asks for them);
- cache write (the trace's columns and the report, into a fresh workspace).

The real end-to-end figure (the CLI in a fresh process, reader on all cores) is
`bench/run_bench.py`; this script says which stage to attack.

    PYTHONPATH=$PWD python bench/profile_stages.py [TRACE] [--json OUT]

With PYTHONPATH naming another checkout (e.g. a worktree of an older commit), the same
stages of that version are measured: the before/after tables of a change.

TRACE defaults to the x15 input of `make_inputs.py` (`$MI_BENCH_INPUTS` or
/tmp/mi-bench-inputs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if not os.environ.get("PYTHONPATH"):  # else the checkout it names (an older one) is measured
    sys.path.insert(0, str(BENCH_DIR.parent))
DEFAULT_TRACE = (
    Path(os.environ.get("MI_BENCH_INPUTS", "/tmp/mi-bench-inputs"))
    / "x15/worker0.1623143089861.pt.trace.json.gz"
)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Stages:
    """Timed stages, in order."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def time(self, name: str, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        self.add(name, time.perf_counter() - wall, time.process_time() - cpu)
        return out

    def add(self, name: str, wall: float, cpu: float) -> None:
        self.rows.append({"stage": name, "wall_s": wall, "cpu_s": cpu, "peak_mb": _peak_mb()})

    def note(self, text: str) -> None:
        self.notes.append(text)

    def table(self) -> str:
        total = sum(r["wall_s"] for r in self.rows)
        lines = ["| stage | wall s | cpu s | share | peak RSS MB |", "|---|---|---|---|---|"]
        for r in self.rows:
            lines.append(
                f"| {r['stage']} | {r['wall_s']:.3f} | {r['cpu_s']:.3f} | "
                f"{r['wall_s'] / total:.0%} | {r['peak_mb']:.0f} |"
            )
        lines.append(f"| **total** | **{total:.3f}** | | | |")
        return "\n".join(lines + [f"\n{n}" for n in self.notes])


def _read_stages(stages: Stages, path: Path) -> Any:
    """The reader's stages, chunk by chunk as the reader interleaves them, then a real
    one-process read whose remainder is the merging and linking."""
    from mindinsight_profiler.formats import jsonstream
    from mindinsight_profiler.formats.kineto import decode as kd

    try:
        from mindinsight_profiler.formats.kineto.events import decode_events
    except ImportError:  # a checkout before issue 21 (for the "before" table)
        decode_events = kd.EVENTS_DECODER.decode  # type: ignore[attr-defined]
    from mindinsight_profiler.formats.kineto.reader import read_kineto

    try:
        from mindinsight_profiler.formats.kineto import native
    except ImportError:  # a checkout before the native scanner
        native = None  # type: ignore[assignment]
    scan = native.scan_batch if native is not None and native.available() else None
    spent = {"native": [0.0, 0.0], "decode": [0.0, 0.0], "columns": [0.0, 0.0]}
    declined = 0

    def timed(what: str, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        spent[what][0] += time.perf_counter() - wall
        spent[what][1] += time.process_time() - cpu
        return out

    wall, cpu = time.perf_counter(), time.process_time()
    for piece in jsonstream.iter_pieces(path):
        if piece.kind == "events":
            text = piece.data if piece.data[:1] == b"[" else b"[" + piece.data + b"]"
            if scan is not None and timed("native", lambda t=text: scan(t)) is not None:
                continue
            declined += scan is not None
            decoded = timed("decode", lambda t=text: decode_events(t))
            timed("columns", lambda d=decoded: kd.build_batch(d))
            timed("columns", decoded.clear)  # freeing the structs
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stream = (wall - sum(v[0] for v in spent.values()), cpu - sum(v[1] for v in spent.values()))
    stages.add("stream (decompress, cut)", *stream)
    if scan is not None:
        stages.add("native scan (JSON text to columns)", *spent["native"])
        stages.note(f"the native scanner declined {declined} chunks (read by the Python path)")
    stages.add("decode (msgspec typed)", *spent["decode"])
    stages.add("columns (build_batch, free structs)", *spent["columns"])
    os.environ["MINDINSIGHT_READ_PROCESSES"] = "1"
    read_wall, read_cpu = time.perf_counter(), time.process_time()
    trace = read_kineto(path)
    read_wall, read_cpu = time.perf_counter() - read_wall, time.process_time() - read_cpu
    stages.add("merge, pairing, links (rest of a read)", max(read_wall - wall, 0),
               max(read_cpu - cpu, 0))  # fmt: skip
    stages.note(
        f"a whole one-process read took {read_wall:.3f} s; the stages above are "
        "measured on their own, so the rest is their difference (noisy)"
    )
    return trace


def _report_stages(stages: Stages, trace: Any) -> dict[str, Any]:
    from mindinsight_profiler.analysis import report as report_module
    from mindinsight_profiler.analysis.sections import SECTIONS, ReportInputs
    from mindinsight_profiler.util.heap import release_free_memory

    inputs = ReportInputs(trace)
    report: dict[str, Any] = {
        "report_version": report_module.REPORT_VERSION,
        "source": trace.meta.get("source"),
        "format": trace.meta.get("format"),
        "framework": report_module.framework(trace.meta.get("format")),
        "device_type": report_module.device_type(trace),
    }
    for section in SECTIONS:
        build = section.build
        report[section.key] = stages.time(f"section {section.key}", lambda b=build: b(inputs))
        release_free_memory()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", nargs="?", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    if not args.trace.is_file():
        print(f"{args.trace}: no such file (make it: python bench/make_inputs.py)", file=sys.stderr)
        return 2
    stages = Stages()
    wall, cpu = time.perf_counter(), time.process_time()
    from mindinsight_profiler.analysis.schema import to_report
    from mindinsight_profiler.pipeline import reports
    from mindinsight_profiler.pipeline.keys import cache_variant
    from mindinsight_profiler.store.cache import Workspace

    stages.add("imports", time.perf_counter() - wall, time.process_time() - cpu)
    trace = _read_stages(stages, args.trace)
    raw = _report_stages(stages, trace)
    report = stages.time("report contract (typed check)", lambda: to_report(raw))
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace(Path(tmp))
        entry = workspace.entry(args.trace, cache_variant("kineto", "", reports.DEFAULT_OPTIONS))
        stages.time("cache write", lambda: reports._save(entry, trace, report))
    print(f"{args.trace} ({len(trace.events['start_ns']):,} events)")
    print(stages.table())
    if args.json:
        args.json.write_text(json.dumps(stages.rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
