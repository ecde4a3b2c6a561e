"""Benchmark: many ranks of the x3 input analysed in parallel, on a local pool and on Dask.

The input is a run of R ranks (default 64), each a copy of the x3 replicated ResNet-50
trace (`make_inputs.py`, 99.7 MB of JSON, 227k events) with its own
`distributedInfo.rank`: 6.4 GB of JSON in all, ~210 MB on disk. A copy is two gzip members,
a small one holding the header with the rank and the shared compressed body, so making 64
copies costs one compression. The run is analysed by `mindinsight cluster`:

- `pool`: `--jobs J` (a local spawn process pool);
- `dask`: `--scheduler ADDR`, against a `distributed.LocalCluster(n_workers=J,
  threads_per_worker=1)` started in its own process by this script (not timed);
- `dask-notrim` (optional): the same with the workers' `MALLOC_TRIM_THRESHOLD_` unset;
- `dask-noprofile` (optional): the same with the workers' statistical profiler off
  (`distributed.worker.profile.enabled: false`, the switch docs/cluster.md recommends for
  workers that only analyse);

each into a fresh, empty workspace. Measured: wall time of the `mindinsight cluster`
process, and the peak RSS of every process involved: the driver, each pool or Dask
worker, the Dask scheduler (with the nannies, in the cluster's own process). Peaks are the
kernel's per-process high-water mark (`VmHWM` in /proc/<pid>/status), read every 0.1 s
until the process ends, so a short spike between two reads is not missed. The 1-minute load
average is recorded before and during each run (the machine may be shared).

    PYTHONPATH=$PWD python bench/scale_bench.py [--ranks 64] [--jobs 2] [--modes pool,dask]
                                              [--repeat N] [--dir /tmp/mi-scale-bench]

Results: printed, and written to bench/results/scale-<timestamp>.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import make_inputs
from measure import _children_by_parent

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
DEFAULT_DIR = Path(tempfile.gettempdir()) / "mi-scale-bench"
SCHEDULER_PORT = 8240
DRIVER_LIMIT_MB = 1024


def make_ranks(source: Path, dest: Path, ranks: int) -> dict[str, Any]:
    """`dest/rank<NNN>.pt.trace.json.gz`: the source trace with `distributedInfo.rank` = NNN."""
    done = dest / "manifest.json"
    if done.is_file() and json.loads(done.read_text()).get("ranks") == ranks:
        return dict(json.loads(done.read_text()))
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    text = gzip.decompress(source.read_bytes())
    cut = text.index(b'"traceEvents": [')
    head, body = text[:cut], text[cut:]
    assert head.startswith(b"{\n") and b"distributedInfo" not in head
    body_gz = gzip.compress(body, make_inputs.GZIP_LEVEL)
    json_bytes = 0
    for rank in range(ranks):
        info = {"backend": "nccl", "rank": rank, "world_size": ranks}
        own = b'{\n  "distributedInfo": ' + json.dumps(info).encode() + b",\n" + head[2:]
        (dest / f"rank{rank:03d}.pt.trace.json.gz").write_bytes(gzip.compress(own) + body_gz)
        json_bytes += len(own) + len(body)
    manifest = {
        "ranks": ranks,
        "source": str(source),
        "json_bytes": json_bytes,
        "disk_bytes": sum(p.stat().st_size for p in dest.glob("*.gz")),
    }
    done.write_text(json.dumps(manifest))
    return manifest


def _status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of `pid` in KiB (empty once the process is gone or a zombie)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(("VmHWM:", "VmRSS:")):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of `pid` so far."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def busy_cpu_s() -> float:
    """CPU seconds the whole machine has been busy (all cores; idle and iowait excluded)."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICK


def _cmdline(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


class PeakSampler(threading.Thread):
    """Per-process peak RSS of the trees under `roots` ({pid: role}), every 0.1 s."""

    def __init__(self, roots: dict[int, str]) -> None:
        super().__init__(daemon=True)
        self.roots = dict(roots)
        self.procs: dict[int, dict[str, Any]] = {}
        self.tree_peak_kib = 0
        self.loads: list[float] = []
        self.first = True  # processes seen at the first sample existed before the run
        self._stop_event = threading.Event()

    def _role(self, pid: int, parent_role: str) -> str:
        if pid in self.roots:
            return self.roots[pid]
        cmd = _cmdline(pid)
        if "resource_tracker" in cmd:
            return "resource tracker"
        if parent_role in ("pool worker", "dask worker", "read helper"):
            return "read helper"  # a rank's decode helpers (formats/chunked.py)
        return "dask worker" if parent_role.startswith("dask") else "pool worker"

    def sample(self) -> None:
        children = _children_by_parent()
        total = 0
        stack = [(pid, role) for pid, role in self.roots.items()]
        while stack:
            pid, role = stack.pop()
            status = _status(pid)
            if not status:
                continue
            if pid not in self.procs:
                self.procs[pid] = {"pid": pid, "role": self._role(pid, role)}
                if self.first:  # count only the CPU it spends from now on
                    self.procs[pid]["cpu_before_s"] = _cpu_s(pid) or 0.0
            proc = self.procs[pid]
            proc["peak_rss_mb"] = round(max(proc.get("peak_rss_mb", 0), status["VmHWM"] / 1024), 1)
            cpu = _cpu_s(pid)
            if cpu is not None:
                proc["cpu_s"] = round(cpu - proc.get("cpu_before_s", 0.0), 2)
            total += status["VmRSS"]
            stack.extend((child, proc["role"]) for child in children.get(pid, []))
        self.tree_peak_kib = max(self.tree_peak_kib, total)
        self.first = False
        self.loads.append(os.getloadavg()[0])

    def run(self) -> None:
        while not self._stop_event.wait(0.1):
            self.sample()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


#: Dask config that keeps the nanny from setting MALLOC_TRIM_THRESHOLD_ in its workers.
NO_TRIM_YAML = """distributed:
  nanny:
    pre-spawn-environ:
      MALLOC_TRIM_THRESHOLD_: null
"""


#: Dask config that turns the workers' statistical profiler off (a stack sample every 10 ms).
NO_PROFILE_YAML = """distributed:
  worker:
    profile:
      enabled: false
"""


def start_dask(workers: int, work: Path, mode: str) -> tuple[subprocess.Popen[str], str]:
    """A LocalCluster (J single-threaded worker processes) in its own process; its address.

    Mode `dask-notrim`: Dask's default worker environment less
    `MALLOC_TRIM_THRESHOLD_=65536` (set by the nanny: it returns freed memory to the OS
    sooner, at a CPU cost, as it disables glibc's adaptive mmap threshold). Mode
    `dask-noprofile`: the workers' profiler off.
    """
    env = _env()
    extra = {"dask-notrim": NO_TRIM_YAML, "dask-noprofile": NO_PROFILE_YAML}.get(mode)
    if extra is not None:
        config = work / f"dask-config-{mode}"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.yaml").write_text(extra)
        env["DASK_CONFIG"] = str(config)
    cmd = [sys.executable, __file__, "--serve-dask", str(workers)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
                            env=env, cwd=REPO_ROOT)  # fmt: skip
    assert proc.stdout is not None
    address = proc.stdout.readline().strip()
    if not address.startswith("tcp://"):
        proc.kill()
        raise RuntimeError(f"the Dask cluster did not start: {address!r}")
    return proc, address


def serve_dask(workers: int) -> None:
    """(Child) run a LocalCluster until stdin closes; print its address first."""
    from distributed import LocalCluster

    options = {"threads_per_worker": 1, "processes": True, "dashboard_address": None}
    with LocalCluster(n_workers=workers, scheduler_port=SCHEDULER_PORT, **options) as cluster:
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()


def run_mode(mode: str, run: Path, work: Path, jobs: int) -> dict[str, Any]:
    """One `mindinsight cluster` of the run into an empty workspace, measured."""
    workspace = work / f"ws-{mode}"
    shutil.rmtree(workspace, ignore_errors=True)
    dask = mode.startswith("dask")
    cluster, address = start_dask(jobs, work, mode) if dask else (None, "")
    engine = ["--scheduler", address] if address else ["--jobs", str(jobs)]
    cmd = [sys.executable, "-m", "mindinsight_profiler", "cluster", str(run), *engine,
           "--workspace", str(workspace), "--format", "json", "--no-progress"]  # fmt: skip
    out_path = work / f"out-{mode}.json"
    load_before = os.getloadavg()[0]
    busy_before = busy_cpu_s()
    with out_path.open("wb") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=_env())
        roots = {proc.pid: "driver"}
        if cluster is not None:
            roots[cluster.pid] = "dask scheduler + nannies"
        sampler = PeakSampler(roots)
        sampler.sample()
        sampler.start()
        _, status, _usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        busy = busy_cpu_s() - busy_before
        sampler.stop()
    assert proc.stderr is not None
    stderr = proc.stderr.read().decode(errors="replace")
    if cluster is not None:
        cluster.communicate("", timeout=60)
    result = json.loads(out_path.read_text()) if out_path.stat().st_size else {}
    cache = workspace / "cache"
    row = {
        "mode": mode,
        "command": cmd,
        "returncode": os.waitstatus_to_exitcode(status),
        "stderr_tail": stderr[-2000:],
        "wall_s": round(wall, 2),
        "ranks_ok": len(result.get("summaries", [])),
        "ranks_failed": len(result.get("failed", [])),
        "cache_entries": len(list(cache.glob("*/manifest.json"))) if cache.is_dir() else 0,
        "processes": sorted(sampler.procs.values(), key=lambda p: (p["role"], p["pid"])),
        "all_processes_peak_sum_mb": round(sampler.tree_peak_kib / 1024, 1),
        # CPU seconds of every process of this run vs the whole machine's busy CPU seconds:
        # the rest is what other work on the (shared) machine took meanwhile
        "ours_cpu_s": round(sum(p.get("cpu_s", 0.0) for p in sampler.procs.values()), 1),
        "machine_busy_cpu_s": round(busy, 1),
        "others_cpu_share": round(
            max(0.0, busy - sum(p.get("cpu_s", 0.0) for p in sampler.procs.values()))
            / (wall * (os.cpu_count() or 1)),
            3,
        ),
        "load_1m_before": round(load_before, 2),
        "load_1m_mean_during": round(sum(sampler.loads) / max(len(sampler.loads), 1), 2),
        "load_1m_max_during": round(max(sampler.loads, default=0.0), 2),
        "cluster": {
            k: result.get(k) for k in ("ranks", "slowest", "collectives", "stages", "summaries")
        },
    }
    shutil.rmtree(workspace, ignore_errors=True)
    return row


def _print(rows: list[dict[str, Any]], manifest: dict[str, Any]) -> None:
    print(f"{manifest['ranks']} ranks, {manifest['json_bytes'] / 1e9:.2f} GB of JSON "
          f"({manifest['disk_bytes'] / 1e6:.0f} MB gzip)")  # fmt: skip
    for row in rows:
        procs = row["processes"]
        driver = [p["peak_rss_mb"] for p in procs if p["role"] == "driver"]
        workers = [p["peak_rss_mb"] for p in procs if p["role"] in ("pool worker", "dask worker")]
        sched = [p["peak_rss_mb"] for p in procs if p["role"].startswith("dask scheduler")]
        line = (
            f"{row['mode']:>5}: {row['wall_s']:7.1f} s  ranks ok {row['ranks_ok']}"
            f" failed {row['ranks_failed']}  driver {driver[0] if driver else '?'} MB"
            f"  workers {workers} MB"
        )
        if sched:
            line += f"  scheduler+nannies {sched[0]} MB"
        print(f"{line}  cpu {row['ours_cpu_s']} s; others took {row['others_cpu_share']:.0%} of "
              f"the machine (load {row['load_1m_before']} before)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="inputs and workspaces")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--factor", type=int, default=3, help="which xN input each rank copies")
    parser.add_argument("--jobs", type=int, default=2, help="pool processes / Dask workers")
    parser.add_argument("--modes", default="pool,dask")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (order reversed each round)")
    parser.add_argument("--serve-dask", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_dask:
        serve_dask(args.serve_dask)
        return 0
    source = make_inputs.output_path(args.dir / "inputs", args.factor)
    if not source.is_file():
        make = [sys.executable, str(BENCH_DIR / "make_inputs.py")]
        subprocess.run([*make, "--out", str(args.dir / "inputs"), "--factors", str(args.factor)],
                       check=True)  # fmt: skip
    run = args.dir / f"ranks{args.ranks}-x{args.factor}"
    manifest = make_ranks(source, run, args.ranks)
    modes = args.modes.split(",")
    rounds = [modes if i % 2 == 0 else modes[::-1] for i in range(args.repeat)]
    rows = [run_mode(mode, run, args.dir, args.jobs) for order in rounds for mode in order]
    clusters = [json.dumps(r.pop("cluster"), sort_keys=True) for r in rows]
    same = len(set(clusters)) == 1
    _print(rows, manifest)
    print(f"same cluster summary and rank summaries from every mode: {same}")
    RESULTS_DIR.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = {"input": manifest, "jobs": args.jobs, "cpus": os.cpu_count(), "rows": rows,
           "same_cluster_summary": same}  # fmt: skip
    path = RESULTS_DIR / f"scale-{stamp}.json"
    path.write_text(json.dumps(out, indent=1))
    print(f"written {path}")
    ok = all(r["returncode"] == 0 and r["ranks_ok"] == args.ranks for r in rows) and same
    drivers = [p["peak_rss_mb"] for r in rows for p in r["processes"] if p["role"] == "driver"]
    return 0 if ok and max(drivers, default=0) < DRIVER_LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
