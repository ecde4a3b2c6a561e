"""Real two-rank torch.profiler traces (DDP over gloo on the CPU) with one rank made slow.

The cluster rules (a slow rank, collectives waiting for it) need runs of several ranks
where the slow one is known. This trains the planted model of `planted.py` with
DistributedDataParallel on two CPU processes; with `--slow-rank R`, rank R does an extra
`time.sleep(--delay)` of host work in every step before its forward pass, so the other
rank waits for it in every gradient all-reduce. With `--bucket-cap-mb` DDP's gradient
buckets are that small, so every step all-reduces many small messages instead of one.
With `--accum K` every optimizer step accumulates K micro-batches without `no_sync()`, so
DDP all-reduces the gradients after each of them (`--no-sync`: inside `no_sync()`, once).
With `--uneven F` (and `--delay 0`) the slow rank is slow through its data instead: its
batches hold F times as many samples (an uneven sharding), so its forward and backward take
longer and the other rank waits for it in the all-reduce.

Usage: python -m tests.advisor.planted_ranks --out DIR [--slow-rank 1] [--delay 0.015]
       [--bucket-cap-mb MB] [--accum K [--no-sync]] [--uneven F]
Writes DIR/rank0.<pid>.pt.trace.json and DIR/rank1.<pid>.pt.trace.json (one run, two ranks).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import time
from pathlib import Path

WORLD = 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rank(
    rank: int,
    out: str,
    slow_rank: int,
    delay: float,
    port: int,
    active: int,
    bucket_mb: float,
    accum: int,
    no_sync: bool,
    uneven: int,
) -> None:
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    from tests.advisor.planted import build

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model, _ = build("none")
    buckets = {"bucket_cap_mb": bucket_mb} if bucket_mb > 0 else {}
    ddp = torch.nn.parallel.DistributedDataParallel(model, **buckets)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9, foreach=True)
    steps = 2 + active
    batch = 16 * (uneven if rank == slow_rank else 1)
    tokens = torch.randint(0, 500, (steps, accum, batch, 32))
    labels = torch.randint(0, 4, (steps, accum, batch))
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=active, repeat=1),
        on_trace_ready=tensorboard_trace_handler(out, worker_name=f"rank{rank}"),
        record_shapes=True,
    ) as prof:
        for step in range(steps):
            if rank == slow_rank:
                time.sleep(delay)  # host work only this rank does (untraced)
            optimizer.zero_grad()
            for k in range(accum):
                sync = ddp.no_sync() if no_sync and k < accum - 1 else contextlib.nullcontext()
                with sync:
                    out_k = ddp(tokens[step, k])
                    torch.nn.functional.cross_entropy(out_k, labels[step, k]).backward()
            optimizer.step()
            prof.step()
    dist.destroy_process_group()


def run(
    out: Path,
    slow_rank: int = 1,
    delay: float = 0.015,
    active: int = 6,
    bucket_mb: float = 0.0,
    accum: int = 1,
    no_sync: bool = False,
    uneven: int = 1,
) -> None:
    import torch.multiprocessing as mp

    out.mkdir(parents=True, exist_ok=True)
    args = (str(out), slow_rank, delay, _free_port(), active, bucket_mb, accum, no_sync, uneven)
    mp.spawn(_rank, args=args, nprocs=WORLD)
    meta = {"world": WORLD, "slow_rank": slow_rank, "delay_s": delay, "active": active,
            "bucket_cap_mb": bucket_mb or None, "accum": accum, "no_sync": no_sync,
            "uneven": uneven}  # fmt: skip
    (out / "ranks.meta.json").write_text(json.dumps(meta))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--slow-rank", type=int, default=1, help="-1: no rank is slow")
    ap.add_argument("--delay", type=float, default=0.015, help="seconds of extra host work")
    ap.add_argument("--active", type=int, default=6)
    ap.add_argument("--bucket-cap-mb", type=float, default=0.0, help="0: DDP's default (25)")
    ap.add_argument("--accum", type=int, default=1, help="micro-batches per optimizer step")
    ap.add_argument("--no-sync", action="store_true", help="accumulate inside DDP.no_sync()")
    ap.add_argument("--uneven", type=int, default=1, help="the slow rank's batch: F x 16 samples")
    a = ap.parse_args(argv)
    run(a.out, a.slow_rank, a.delay, a.active, a.bucket_cap_mb, a.accum, a.no_sync, a.uneven)


if __name__ == "__main__":
    main()
