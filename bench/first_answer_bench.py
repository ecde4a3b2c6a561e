"""Time to first answer: when the server's background job has the overview ready, and when
the advice and the timeline index follow.

The job (`server.jobs.analyse_input`, what `mindinsight start` runs for a new input) runs on
one trace into a fresh workspace in a child process; this process polls the input's state
file (`server.state.StateStore`) and notes when the input becomes `ready` (the overview is
served), and when its `advice` and `timeline` stages become `ready` (or `failed`). Times are
from the child's start (interpreter start-up and imports included, as a pool process pays
them once); the job's own figures (`seconds` of the overview, each stage's `seconds`) are
printed beside them.

    python bench/first_answer_bench.py [--trace FILE] [--poll-ms 10] [--json OUT]

The default trace is the x15 input of `make_inputs.py` (made first when missing, ~30 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from run_bench import REPO_ROOT, ours_env

INPUTS = Path(os.environ.get("MI_BENCH_INPUTS", "/tmp/mi-bench-inputs"))
DEFAULT_TRACE = INPUTS / "x15" / "worker0.1623143089861.pt.trace.json.gz"
#: The stages after the overview, as the state file names them (`server.stages.STAGES`).
STAGES = ("advice", "timeline")
#: A job that takes longer than this is reported as hung (generous: x15 takes seconds).
TIMEOUT_S = 900.0


def _child(trace: Path, workspace: Path) -> int:
    """In the child: the server's job for the one input, as a pool process runs it."""
    from mindinsight_profiler.pipeline.keys import cache_variant
    from mindinsight_profiler.server.jobs import analyse_input
    from mindinsight_profiler.store.cache import Workspace

    run, file = _find(trace)
    key = Workspace(workspace).entry(file.source, cache_variant(file.format, file.worker)).key
    state = analyse_input(file, run, workspace, (), key)
    return 0 if state == "ready" else 1


def _find(trace: Path) -> tuple[Any, Any]:
    """The run and input discovery makes of `trace` (its folder may hold other files)."""
    from mindinsight_profiler.formats.discovery import discover

    for run in discover(trace.parent):
        for file in run.files:
            if Path(file.path).resolve() == trace.resolve():
                return run, file
    raise SystemExit(f"{trace}: not found by run discovery in its folder")


def measure(trace: Path, poll_s: float) -> dict[str, Any]:
    """Run the job in a child and note when each state first appears (seconds from start)."""
    sys.path.insert(0, str(REPO_ROOT))
    from mindinsight_profiler.server.state import StateStore

    _, file = _find(trace)
    workspace = Path(tempfile.mkdtemp(prefix="mi-first-answer-"))
    store = StateStore(workspace)
    seen: dict[str, float] = {}
    last: dict[str, Any] | None = None
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(trace), str(workspace)]
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO_ROOT, env=ours_env())
    try:
        while True:
            done = child.poll() is not None
            record = store.read(file)
            now = time.perf_counter() - started
            if record is not None:
                last = record
                _note(seen, record, now)
            if done:
                break
            if now > TIMEOUT_S:
                child.kill()
                raise SystemExit(f"{trace}: the job did not finish in {TIMEOUT_S:.0f} s")
            time.sleep(poll_s)
        returncode = child.wait()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    stages = (last or {}).get("stages", {})
    return {
        "trace": str(trace),
        "bytes": trace.stat().st_size,
        "returncode": returncode,
        "state": (last or {}).get("state"),
        "seen_s": {k: round(v, 3) for k, v in seen.items()},
        "job_overview_s": (last or {}).get("seconds"),
        "job_stage_s": {name: stages.get(name, {}).get("seconds") for name in STAGES},
        "stage_errors": {n: s["error"] for n, s in stages.items() if s.get("error")},
        "poll_s": poll_s,
    }


def _note(seen: dict[str, float], record: dict[str, Any], now: float) -> None:
    """The first time each milestone shows in the state file."""
    if record.get("state") in ("ready", "failed"):
        seen.setdefault(f"overview_{record['state']}", now)
    for name, stage in (record.get("stages") or {}).items():
        if stage.get("state") in ("ready", "failed"):
            seen.setdefault(f"{name}_{stage['state']}", now)


def _print(result: dict[str, Any]) -> None:
    seen, job = result["seen_s"], result["job_stage_s"]
    print(f"trace {result['trace']} ({result['bytes'] / 1e6:.1f} MB on disk)")
    rows = [("overview ready", seen.get("overview_ready"), result["job_overview_s"], "analysis")]
    for name in STAGES:
        state = "failed" if f"{name}_failed" in seen else "ready"
        rows.append((f"{name} {state}", seen.get(f"{name}_{state}"), job.get(name), "stage"))
    for label, at, own, kind in rows:
        at_text = f"{at:7.2f} s" if at is not None else "      - "
        own_text = f"{own:.2f} s" if own is not None else "-"
        print(f"  {label:<18} at {at_text} from start   ({kind} itself: {own_text})")
    for name, error in result["stage_errors"].items():
        print(f"  {name} failed: {error}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--poll-ms", type=float, default=10.0, help="state file polling period")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", nargs=2, metavar=("TRACE", "WORKSPACE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(Path(args.child[0]), Path(args.child[1]))
    if not args.trace.exists() and args.trace == DEFAULT_TRACE:
        make = [sys.executable, str(REPO_ROOT / "bench" / "make_inputs.py"), "--out", str(INPUTS),
                "--factors", "15"]  # fmt: skip
        subprocess.run(make, cwd=REPO_ROOT, env=ours_env(), check=True)
    if not args.trace.exists():
        print(f"{args.trace}: no such trace", file=sys.stderr)
        return 2
    result = measure(args.trace, args.poll_ms / 1000)
    _print(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["returncode"] == 0 and result["state"] == "ready" else 1


if __name__ == "__main__":
    sys.exit(main())
