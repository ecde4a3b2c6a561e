"""Facts: HCCL packet sizes (msprof-analyze's byte-alignment and small-packet checks).

The input is each HCCL op's `Size Distribution` per transport (torch_npu communication.json,
or analysis.db's CommAnalyzerBandwidth): packet size in MB of 10^6 bytes, packet count and
their total transfer time summed over the links used at once. SDMA transports (HCCS, PCIe,
SIO, SDMA: on-node) and RDMA (between nodes) are judged apart.

- Alignment: HCCL moves SDMA data fastest in 512-byte units; a packet of another size
  transfers its tail inefficiently. msprof-analyze grades by the unaligned share of SDMA
  transfer time (< 20 % low, >= 70 % high).
- Small packets: msprof-analyze flags > 20 % of SDMA packets under 16 MB (RDMA: 1 MB). That
  alone is no loss: on the 8-rank torch_npu AlexNet job 82 % of the packets are 1.2-8.4 MB
  and move at 12.9-15.8 GB/s, as fast as its 18.9 MB ones (17.3 GB/s). Small packets cost
  time when they move slower than the large packets of the same transport, so the loss is
  what they would save at the large packets' bandwidth, scaled from link-summed to wall
  time by the op's own transit time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.comm_split import tool_split
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

_NEEDS = "HCCL packet sizes (torch_npu communication.json or analysis.db CommAnalyzerBandwidth)"
_ALIGN = 512
#: Packets below these sizes (bytes) are small (msprof-analyze's thresholds).
SMALL_BYTES = {"SDMA": 16_000_000, "RDMA": 1_000_000}


def _packets(ctx: Context) -> dict[str, Any]:
    """Rows with packets: transport class, size in bytes, count, time in ns; steps."""
    if "comm.packets" in ctx.memo:
        return dict(ctx.memo["comm.packets"])
    trace = ctx.trace
    table = None if trace is None else trace.tables.get("comm_packets")
    if trace is None or table is None:
        raise Unavailable(f"needs {_NEEDS}")
    ok = (table["count"] > 0) & np.isfinite(table["size_mb"]) & (table["time_ns"] >= 0)
    if not ok.any():
        raise Unavailable(f"needs {_NEEDS}: no packets recorded")
    kinds = trace.strings.lookup(table["transport"])
    transport = np.array(["RDMA" if t.upper() == "RDMA" else "SDMA" for t in kinds])
    out = {
        "cls": transport[ok],
        "bytes": np.rint(table["size_mb"][ok] * 1e6).astype(np.int64),
        "count": table["count"][ok],
        "time_ns": table["time_ns"][ok].astype(np.float64),
        "steps": max(len(np.unique(table["step"][ok])), 1),
    }
    ctx.memo["comm.packets"] = out
    return dict(out)


def _sdma(ctx: Context) -> dict[str, Any]:
    p = _packets(ctx)
    sdma = p["cls"] == "SDMA"
    if not sdma.any():
        raise Unavailable("the HCCL ops move no SDMA (on-node) packets")
    return {k: (v[sdma] if isinstance(v, np.ndarray) else v) for k, v in p.items()}


@fact(
    "comm.unaligned_transit_share",
    "ratio",
    "Share (0..1) of SDMA packet transfer time in packets whose size is not a multiple of "
    "512 bytes (msprof-analyze byte alignment). Evidence: the unaligned sizes.",
    _NEEDS,
)
def unaligned_transit_share(ctx: Context) -> Observed:
    p = _sdma(ctx)
    bad = p["bytes"] % _ALIGN != 0
    total = float(p["time_ns"].sum())
    if total <= 0:
        raise Unavailable("the SDMA packets have no transfer time")
    evidence = tuple(
        Evidence(
            kind="metric",
            **label("packet_size", bytes=int(b), count=int(c), ms=t / 1e6),
            page="communication",
            value=round(float(t) / 1000.0, 3),
            unit="us",
        )
        for b, c, t in zip(p["bytes"][bad], p["count"][bad], p["time_ns"][bad], strict=True)
    )
    return Observed(float(p["time_ns"][bad].sum()) / total, evidence[:8])


@fact(
    "comm.unaligned_packets",
    "count",
    "SDMA packets per step whose size is not a multiple of 512 bytes.",
    _NEEDS,
)
def unaligned_packets(ctx: Context) -> float:
    p = _sdma(ctx)
    return float(p["count"][p["bytes"] % _ALIGN != 0].sum()) / p["steps"]


@fact(
    "comm.small_packet_share",
    "ratio",
    "Largest share (0..1), over SDMA and RDMA, of packets smaller than 16 MB (SDMA) or 1 MB "
    "(RDMA), by count (msprof-analyze small packets: > 20 % is flagged there).",
    _NEEDS,
)
def small_packet_share(ctx: Context) -> float:
    p = _packets(ctx)
    shares = []
    for cls, limit in SMALL_BYTES.items():
        mine = p["cls"] == cls
        if mine.any():
            small = mine & (p["bytes"] < limit)
            shares.append(float(p["count"][small].sum() / p["count"][mine].sum()))
    return max(shares)


@fact(
    "comm.small_packet_loss_us",
    "us",
    "Wall time per step small packets lose by moving slower than the large packets (at or "
    "above the small-packet size) of the same transport: their time times (1 - their "
    "bandwidth / the best large-packet bandwidth), scaled from link-summed to wall time by "
    "the profiler's Transit time, microseconds. Evidence: the slow small sizes.",
    _NEEDS + " with at least one packet size at or above the small-packet limit",
)
def small_packet_loss_us(ctx: Context) -> Observed:
    p = _packets(ctx)
    bw = p["bytes"] * p["count"] / np.maximum(p["time_ns"], 1.0)  # bytes per ns = GB/s
    lost = np.zeros(len(bw))
    compared = False
    for cls, limit in SMALL_BYTES.items():
        mine, large = p["cls"] == cls, (p["cls"] == cls) & (p["bytes"] >= limit)
        if not large.any():
            continue
        compared = True
        small = mine & (p["bytes"] < limit)
        ref = float(bw[large].max())
        lost[small] = p["time_ns"][small] * np.clip(1.0 - bw[small] / ref, 0.0, 1.0)
    if not compared:
        raise Unavailable("no packet size at or above the small-packet limit to compare with")
    linked = float(p["time_ns"].sum())
    try:
        scale = min(1.0, tool_split(ctx)["transit_us"] * 1000.0 * p["steps"] / linked)
    except Unavailable:
        scale = 1.0
    top = np.argsort(-lost)[:5]
    evidence = tuple(
        Evidence(
            kind="metric",
            **label(
                "packet_bandwidth",
                bytes=int(p["bytes"][i]),
                count=int(p["count"][i]),
                gbps=float(bw[i]),
            ),
            page="communication",
            value=round(float(lost[i]) * scale / 1000.0 / p["steps"], 3),
            unit="us",
        )
        for i in top.tolist()
        if lost[i] > 0
    )
    return Observed(float(lost.sum()) * scale / 1000.0 / p["steps"], evidence)


step_share("comm.small_packet_loss_share", "comm.small_packet_loss_us", _NEEDS)
