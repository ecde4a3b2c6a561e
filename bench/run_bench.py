"""Benchmark this project against the PyTorch TensorBoard plugin, HTA and a bare decode.

For every input (xN replicated Kineto traces, plus the real large CPU trace) each tool runs
in a fresh child process, one at a time, and we record wall time and that child's own
peak RSS. See README.md for what the numbers mean and the targets they are held to.

Usage: ``python bench/run_bench.py [--inputs DIR] [--factors 1,3,6,15] [--skip-anchors]
[--only ours,bare,tb,hta]``
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anchors
import make_inputs
import report
from measure import Measurement, run_measured

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
DRIVERS_DIR = BENCH_DIR / "drivers"
DEFAULT_INPUTS = Path(
    os.environ.get("MI_BENCH_INPUTS", Path(tempfile.gettempdir()) / "mi-bench-inputs")
)
TORCH_CPU_LARGE_GLOB = "data/torch_cpu/large/*.pt.trace.json.gz"

# How this project is run: the one place to change when the CLI changes. Placeholders:
# {python} this interpreter, {trace} the input file, {workspace} the cache folder (fresh
# and empty for the cold run, reused for the warm one). MI_BENCH_OURS_COMMAND overrides it.
OURS_COMMAND = (
    "{python} -m mindinsight_profiler analyse {trace} --format json --workspace {workspace}"
)
TOOLS = ("bare", "ours", "tb", "hta")


def ours_command(trace: Path, workspace: Path) -> list[str]:
    template = os.environ.get("MI_BENCH_OURS_COMMAND", OURS_COMMAND)
    values = {"python": sys.executable, "trace": str(trace), "workspace": str(workspace)}
    return [part.format(**values) for part in shlex.split(template)]


def ours_env() -> dict[str, str]:
    """Let ``-m mindinsight_profiler`` import the checkout even when it is not installed,
    from bytecode as an installed package does (`compile_ours`)."""
    compile_ours()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


@functools.cache
def compile_ours() -> None:
    """Write the checkout's bytecode once, as `pip install` does for every package (the
    anchors' included). Where PYTHONDONTWRITEBYTECODE is set (as on some CI machines), a
    checkout would otherwise be compiled from source in every measured run: 0.09 s of
    ours on each MindSpore folder run, about a fifth of it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO_ROOT / "mindinsight_profiler")],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )


def driver_output(measurement: Measurement) -> dict[str, Any] | None:
    """The JSON line a driver prints last, if any."""
    lines = [line for line in measurement.stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        parsed = json.loads(lines[-1])
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Bench:
    """Runs the tools over the inputs and collects one record per (tool, input, repeat)."""

    def __init__(self, tools: set[str], timeout_s: float, repeat: int) -> None:
        self.tools = tools
        self.timeout_s = timeout_s
        self.repeat = repeat
        self.records: list[dict[str, Any]] = []

    def record(
        self, tool: str, label: str, events: int | None, m: Measurement, **extra: Any
    ) -> dict[str, Any]:
        # Drivers end with a JSON summary line; ours prints its report, kept in ``stdout``.
        driver = None if tool in (report.OURS_COLD, report.OURS_WARM) else driver_output(m)
        if events is None and driver is not None and isinstance(driver.get("events"), int):
            events = driver["events"]  # the bare decode counts the events of unknown inputs
        entry = {"tool": tool, "input": label, "events": events, **m.to_json(), **extra}
        entry["driver"] = driver
        self.records.append(entry)
        state = "ok" if m.ok else f"rc={m.returncode}{' timeout' if m.timed_out else ''}"
        print(
            f"  {tool:<12} {m.wall_s:8.2f} s {m.peak_rss_mb:8.0f} MB  {state}"
            f"  (load {m.load_avg_1m})",
            flush=True,
        )
        return entry

    def run_input(self, label: str, trace: Path, events: int | None, full: bool) -> None:
        """Every tool on one input; ``full=False`` runs only the bare decode and ours cold.

        The cheap runs (bare decode, ours) are repeated ``repeat`` times and the report
        keeps the fastest, since on a shared 2-core VM noise only ever adds time. The
        anchors take a minute on the large inputs and run once.
        """
        print(f"{label}: {trace}", flush=True)
        for run in range(self.repeat):
            if "bare" in self.tools:
                command = [sys.executable, str(DRIVERS_DIR / "bare_decode.py"), str(trace)]
                m = run_measured(command, timeout_s=self.timeout_s)
                events = self.record(report.BARE, label, events, m, run=run)["events"]
            if "ours" in self.tools:
                self.run_ours(label, trace, events, warm=full, run=run)
        if full:
            for anchor in anchors.ANCHORS:
                if anchor.key in self.tools:
                    m = run_measured(anchor.command(trace), timeout_s=self.timeout_s)
                    self.record(anchor.label, label, events, m, run=0)

    def run_ours(self, label: str, trace: Path, events: int | None, warm: bool, run: int) -> None:
        """Cold: fresh empty workspace. Warm: the same command again on that workspace.

        The cold wall comes from a run without the tree sampler (`measure.run_measured`:
        its polling takes CPU from a program that uses both cores), the tree's memory from
        a second cold run with it."""
        workspace = Path(tempfile.mkdtemp(prefix="mi-bench-ws-"))
        try:
            env = ours_env()
            cmd = ours_command(trace, workspace)
            timed = run_measured(cmd, cwd=REPO_ROOT, env=env, timeout_s=self.timeout_s,
                                 sample_tree=False)  # fmt: skip
            shutil.rmtree(workspace, ignore_errors=True)
            m = run_measured(cmd, cwd=REPO_ROOT, env=env, timeout_s=self.timeout_s)
            if m.ok and timed.ok:
                m.wall_s = timed.wall_s
            size = folder_bytes(workspace)
            self.record(report.OURS_COLD, label, events, m, run=run, workspace_bytes=size)
            if warm:
                m = run_measured(cmd, cwd=REPO_ROOT, env=env, timeout_s=self.timeout_s)
                self.record(report.OURS_WARM, label, events, m, run=run)
        finally:
            shutil.rmtree(workspace, ignore_errors=True)


def ensure_inputs(inputs: Path, factors: list[int]) -> list[dict[str, Any]]:
    """Make missing or stale inputs in a child process, so the harness stays small."""
    script = BENCH_DIR / "make_inputs.py"
    factor_arg = ",".join(map(str, factors))
    subprocess.run(
        [sys.executable, str(script), "--out", str(inputs), "--factors", factor_arg], check=True
    )
    return [json.loads(make_inputs.manifest_path(inputs, f).read_text()) for f in factors]


def machine_info() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS, help="xN input folder")
    parser.add_argument("--factors", type=make_inputs.parse_factors, default=[1, 3, 6, 15])
    parser.add_argument("--skip-anchors", action="store_true", help="no tb plugin / HTA runs")
    parser.add_argument(
        "--only", default=",".join(TOOLS), help=f"comma list of tools among {', '.join(TOOLS)}"
    )
    parser.add_argument("--no-torch-cpu", action="store_true", help="skip the real large CPU trace")
    parser.add_argument("--timeout", type=float, default=600.0, help="per-run limit, seconds")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of bare decode and ours per input (best kept)"
    )
    args = parser.parse_args(argv)
    tools = {t.strip() for t in args.only.split(",") if t.strip()}
    unknown = tools - set(TOOLS)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    if args.skip_anchors:
        tools -= {"tb", "hta"}
    args.tools = tools
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    manifests = ensure_inputs(args.inputs, args.factors)
    versions: dict[str, str] = {}
    for anchor in anchors.ANCHORS:
        if anchor.key not in args.tools:
            continue
        try:
            versions[anchor.label] = anchors.ensure_anchor(anchor)
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            print(f"{anchor.label}: not available, skipped: {exc}", file=sys.stderr)
            args.tools.discard(anchor.key)
            continue
        print(f"{anchor.label}: {anchor.distribution} {versions[anchor.label]}", flush=True)

    bench = Bench(args.tools, args.timeout, max(1, args.repeat))
    for manifest in manifests:
        label = f"x{manifest['factor']}"
        bench.run_input(label, Path(manifest["path"]), manifest["events"], full=True)
    large = sorted(make_inputs.shared_dir().glob(TORCH_CPU_LARGE_GLOB))
    if args.no_torch_cpu:
        pass
    elif not large:
        print(f"skipping the torch_cpu large trace: none under {make_inputs.shared_dir()}")
    elif args.tools & {"ours", "bare"}:
        bench.run_input("torch_cpu_large", large[0], None, full=False)

    labels = list(dict.fromkeys(r["input"] for r in bench.records))
    summaries = [report.input_summary(bench.records, label) for label in labels]
    verdict = report.verdicts(summaries)
    print()
    print(report.format_table(bench.records))
    print()
    print(report.format_summaries(summaries, verdict))

    RESULTS_DIR.mkdir(exist_ok=True)
    out = RESULTS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}.json"
    result = {
        "schema_version": 1,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine_info(),
        "ours_command": os.environ.get("MI_BENCH_OURS_COMMAND", OURS_COMMAND),
        "anchor_versions": versions,
        "inputs": manifests,
        "records": bench.records,
        "summaries": summaries,
        "targets": verdict,
    }
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nraw numbers: {out}")
    misses = report.missed(verdict)
    if misses:
        print(f"missed: {'; '.join(misses)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
