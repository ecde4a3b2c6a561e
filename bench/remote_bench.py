"""Summary dirs in object storage: staging memory, and analysis from S3 against a local copy.

Starts moto's S3 server on a free loopback port (nothing leaves the machine), uploads
inputs, and measures fresh child processes with `measure.run_measured`:

1. **stage**: discover and stage one object of 256 MiB and one of `--large-mib` (default
   2048) into an empty workspace, without analysing it. Peak RSS must not grow with the
   object (blocks of 8 MiB); for contrast, `naive` reads the large object whole with
   `fs.cat_file` (what a careless port would do).
2. **analyse**: `mindinsight analyse --format json` of the replicated x3 Kineto input
   (`bench/make_inputs.py`) from `s3://` (cold: listing + download + parse; warm: listing
   only, the cache answers) and from the local file, with the same JSON.

Usage: `python bench/remote_bench.py [--large-mib 2048] [--inputs /tmp/mi-bench-inputs]`.
Results: `bench/results/remote-<timestamp>.json`; large objects are made under /tmp and
removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from measure import Measurement, run_measured  # noqa: E402

ROOT = BENCH.parent
BUCKET = "bench"
STAGE_ONLY = """
import sys
from pathlib import Path
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.staging import discover_location, stage
(run,) = discover_location(sys.argv[1], Workspace(sys.argv[2]))
print(stage(run.files[0].remote).stat().st_size)
"""
NAIVE = """
import sys, s3fs
fs = s3fs.S3FileSystem()
print(len(fs.cat_file(sys.argv[1])))
"""
#: S3 chores in a child process, so that this process stays small: a measured child's peak
#: RSS (wait4) includes its parent's RSS at the fork, and s3fs's upload holds large parts.
S3_DO = """
import sys, s3fs
fs = s3fs.S3FileSystem()
op, *args = sys.argv[1:]
{"mkdir": fs.mkdir, "put": fs.put_file, "rm": lambda p: fs.rm(p, recursive=True)}[op](*args)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_moto(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2).close()
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"moto server did not start (see {log})")


def _big_file(path: Path, mib: int) -> None:
    """Incompressible bytes (a trace's gzip is too), written in 8 MiB blocks."""
    block = os.urandom(8 << 20)
    with open(path, "wb") as f:
        for _ in range(mib // 8):
            f.write(block)


def _row(name: str, m: Measurement, **extra: Any) -> dict[str, Any]:
    row = {"name": name, "wall_s": m.wall_s, "peak_rss_mb": m.peak_rss_mb, "ok": m.ok, **extra}
    if not m.ok:
        row["stderr"] = m.stderr_tail[-400:]
    print(f"{name:34s} {m.wall_s:8.2f} s {m.peak_rss_mb:9.1f} MB  {'ok' if m.ok else 'FAILED'}")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large-mib", type=int, default=2048)
    default_inputs = os.environ.get("MI_BENCH_INPUTS", "/tmp/mi-bench-inputs")
    parser.add_argument("--inputs", type=Path, default=Path(default_inputs))
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mi-remote-bench-"))
    proc, endpoint = _start_moto(tmp / "moto.log")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
           "AWS_ENDPOINT_URL": endpoint, "AWS_DEFAULT_REGION": "us-east-1",
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    rows: list[dict[str, Any]] = []
    try:

        def s3(*command: str) -> None:
            subprocess.run([sys.executable, "-c", S3_DO, *command], env=env, check=True)

        s3("mkdir", BUCKET)
        for mib in (256, args.large_mib):
            src = tmp / f"object-{mib}.bin"
            _big_file(src, mib)
            started = time.perf_counter()
            s3("put", str(src), f"{BUCKET}/big/{mib}/w.pt.trace.json.gz")
            upload = round(time.perf_counter() - started, 1)
            src.unlink()
            ws = tmp / f"ws-{mib}"
            url = f"s3://{BUCKET}/big/{mib}/w.pt.trace.json.gz"
            m = run_measured([sys.executable, "-c", STAGE_ONLY, url, str(ws)], env=env)
            rows.append(_row(f"stage {mib} MiB object", m, mib=mib, upload_s=upload))
            if mib == args.large_mib:
                m = run_measured([sys.executable, "-c", NAIVE,
                                  f"{BUCKET}/big/{mib}/w.pt.trace.json.gz"], env=env)  # fmt: skip
                rows.append(_row(f"naive cat_file {mib} MiB (contrast)", m, mib=mib))
            shutil.rmtree(ws, ignore_errors=True)
            s3("rm", f"{BUCKET}/big/{mib}")

        traces = sorted((args.inputs / "x3").glob("*.pt.trace.json*"))
        if not traces:
            print(f"no x3 input under {args.inputs}: run bench/make_inputs.py --factors 3")
        else:
            trace = traces[0]
            s3("put", str(trace), f"{BUCKET}/runs/x3/{trace.name}")
            cli = [sys.executable, "-m", "mindinsight_profiler", "analyse", "--format", "json"]
            outputs = {}
            for name, where, ws in (
                ("analyse x3 local (cold)", str(trace.parent), tmp / "ws-local"),
                ("analyse x3 s3:// (cold)", f"s3://{BUCKET}/runs/x3", tmp / "ws-s3"),
                ("analyse x3 s3:// (warm: cached)", f"s3://{BUCKET}/runs/x3", tmp / "ws-s3"),
            ):
                m = run_measured([*cli, where, "--workspace", str(ws)], env=env)
                outputs[name] = m.stdout
                rows.append(_row(name, m, bytes=trace.stat().st_size))
            same = len(set(outputs.values())) == 1
            print(f"same JSON from s3:// and local: {same}")
            rows.append({"name": "x3 JSON equal", "ok": same})
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    out = BENCH / "results" / f"remote-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "load_avg": os.getloadavg()}, indent=1))
    print(f"results: {out}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
