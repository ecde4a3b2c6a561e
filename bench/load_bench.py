"""Load test of the service on cached endpoints (bounded, loopback only).

Starts the real `mindinsight start` over a base dir holding the x15 run (a hard link to
`/tmp/mi-bench-inputs/x15`, made by bench/make_inputs.py), waits until its analysis is in
the cache, then runs N concurrent clients (threads, each holding one keep-alive
connection) for S seconds against the run list, the run
detail and the analysis endpoints (overview, operators, kernels, advice, step trace, a
timeline window). Prints one JSON summary: requests, errors, p50/p99 latency, and each
gunicorn worker's RSS sampled every second (first, last, max).

    PYTHONPATH=$PWD python bench/load_bench.py [--clients 32] [--seconds 30]
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
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MAX_CLIENTS, MAX_SECONDS = 64, 120


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "mindinsight_profiler", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        return bytes(r.read())


class _Connection:
    """A persistent HTTP/1.1 connection that sends GETs and reads Content-Length bodies."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def get(self, path: str) -> int:
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = next(
            int(line.split(b":", 1)[1]) for line in lines[1:]
            if line.lower().startswith(b"content-length:")
        )  # fmt: skip
        while len(self.buf) < length:
            self._recv()
        self.buf = self.buf[length:]
        if any(line.lower() == b"connection: close" for line in lines[1:]):
            self.close()  # sync workers answer one request per connection
            self.__init__(self.port)  # type: ignore[misc]
        return status

    def _recv(self) -> None:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("closed by the server")
        self.buf += chunk

    def close(self) -> None:
        self.sock.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(p) for p in children if b"gunicorn" in Path(f"/proc/{p}/cmdline").read_bytes()]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", type=Path, default=Path("/tmp/mi-bench-inputs/x15"))
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=None, help="gunicorn threads per worker")
    p.add_argument("--nice", type=int, default=0, help="lower the clients' CPU priority")
    p.add_argument("--port", type=int, default=18931)
    args = p.parse_args()
    clients, seconds = min(args.clients, MAX_CLIENTS), min(args.seconds, MAX_SECONDS)
    tmp = Path(tempfile.mkdtemp(prefix="mi-load-"))
    base, ws = tmp / "base" / args.input.name, tmp / "ws"
    base.mkdir(parents=True)
    for f in args.input.iterdir():
        try:
            os.link(f, base / f.name)
        except OSError:
            shutil.copyfile(f, base / f.name)
    started = _cli("start", "--summary-base-dir", str(tmp / "base"), "--port", str(args.port),
                   "--workspace", str(ws), "--workers", str(args.workers),
                   *(["--threads", str(args.threads)] if args.threads else []))  # fmt: skip
    if started.returncode != 0:
        print(started.stderr, file=sys.stderr)
        return 1
    url = f"http://127.0.0.1:{args.port}"
    try:
        t0 = time.monotonic()
        while True:
            (run,) = json.loads(_get(url + "/api/v1/runs"))["runs"]
            if run["state"] in ("ready", "failed"):
                break
            time.sleep(0.5)
        analysis_s = time.monotonic() - t0
        rid = run["id"]
        paths = [
            "/api/v1/runs", f"/api/v1/runs/{rid}", f"/api/v1/runs/{rid}/overview",
            f"/api/v1/runs/{rid}/operators?limit=50", f"/api/v1/runs/{rid}/kernels?limit=50",
            f"/api/v1/runs/{rid}/advice", f"/api/v1/runs/{rid}/step-trace",
            f"/api/v1/runs/{rid}/timeline?start_ns=0&end_ns=20000000&width_px=1500",
        ]  # fmt: skip
        for path in paths:  # every path answers before the clock starts
            _get(url + path)
        master = int((ws / f"server-{args.port}.pid").read_text())
        workers = _workers(master)
        rss: dict[int, list[float]] = {w: [] for w in workers}
        latencies: list[float] = []
        by_path: dict[str, list[float]] = {path: [] for path in paths}
        errors: list[str] = []
        stop_at = time.monotonic() + seconds
        lock = threading.Lock()

        def client(i: int) -> None:
            """One keep-alive HTTP/1.1 connection per client, as a browser tab would hold.

            A minimal client (pre-built requests, Content-Length framing) so that the 2 cores
            this machine shares between clients and server mostly serve the server.
            """
            n = i
            conn = _Connection(args.port)
            while time.monotonic() < stop_at:
                path = paths[n % len(paths)]
                n += 1
                t = time.perf_counter()
                try:
                    status = conn.get(path)
                    if status != 200:
                        raise RuntimeError(f"HTTP {status}")
                except Exception as exc:  # counted, and the first few kept
                    with lock:
                        errors.append(f"{path}: {exc}")
                    conn.close()
                    conn = _Connection(args.port)
                    continue
                elapsed = time.perf_counter() - t
                with lock:
                    latencies.append(elapsed)
                    by_path[path].append(elapsed)
            conn.close()

        if args.nice:
            os.nice(args.nice)  # the server's processes first: they share the cores with us
        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        while time.monotonic() < stop_at:
            for w in workers:
                rss[w].append(round(_rss_mb(w), 1))
            time.sleep(1.0)
        for t in threads:
            t.join()
        lat_ms = np.array(latencies) * 1000
        summary = {
            "input": str(args.input), "run_state": run["state"],
            "analysis_s": round(analysis_s, 1), "clients": clients, "seconds": seconds,
            "gunicorn_workers": len(workers), "requests": len(latencies) + len(errors),
            "rps": round((len(latencies) + len(errors)) / seconds, 1), "errors": len(errors),
            "first_errors": errors[:5],
            "p50_ms": round(float(np.percentile(lat_ms, 50)), 2) if len(lat_ms) else None,
            "p99_ms": round(float(np.percentile(lat_ms, 99)), 2) if len(lat_ms) else None,
            "max_ms": round(float(lat_ms.max()), 2) if len(lat_ms) else None,
            "per_path_p50_p99_ms": {
                path.split("?")[0].rsplit("/", 1)[-1] or path: [
                    round(float(np.percentile(v, q)) * 1000, 2) for q in (50, 99)
                ]
                for path, v in by_path.items() if v
            },
            "worker_rss_mb": {
                str(w): {"first": s[0], "last": s[-1], "max": max(s), "samples": s}
                for w, s in rss.items() if s
            },
            "cpus": os.cpu_count(),
        }  # fmt: skip
        print(json.dumps(summary, indent=2))
    finally:
        _cli("stop", "--port", str(args.port), "--workspace", str(ws))
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
