"""Communication view of one worker: how much communication each step hides behind compute,
and what each collective costs.

Per step (the PyTorch profiler plugin's distributed view, so its users read the same
figures): computation = time a non-communication kernel runs and no communication kernel
does; overlapped = both run; exposed communication = only communication runs; other = the
rest of the step (idle device, host work). The four sum to the step time. Communication
kernels are NCCL/RCCL kernels and HCCL `hcom_*` tasks (`comm_kernel_mask`). A run with no
communication kernel whose collectives run on the host (gloo on CPUs: `host.py`) is split
the same way, with its `gloo:` ranges as the communication and its framework operators as
the compute (source `host`).

MindSpore's legacy export has no kernels on its timeline, only `hccl_raw_{rank}.csv`:
per step the communication and wait cost, and per collective call its own cost. From it
the step rows carry communication and the tool's wait time, and the split is left None.
Per collective the durations of the calls in order are kept, so that `cluster.py` can match
the k-th call across ranks. Per link (`src-dst` and transport) the tool's own bandwidth is
kept, averaged over steps, so that links can be compared across ranks: Ascend's
`communication_matrix.json` (`<type>-total` groups, GB/s) or MindSpore's `hccl_raw` link
info (the tool's unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.communication.host import host_collective_mask, host_compute_mask
from mindinsight_profiler.analysis.communication.naming import (
    collective_type,
    host_collective,
    kernel_collectives,
)
from mindinsight_profiler.analysis.steps.boundaries import find_steps
from mindinsight_profiler.analysis.steps.covered import steps_covered
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

STAGES = ("computation_us", "overlapped_us", "exposed_communication_us", "other_us")
_MB = 1 << 20


def _rank(trace: Trace) -> int | None:
    info = trace.meta.get("distributed_info") or {}
    rank = info.get("rank", trace.meta.get("rank"))
    return rank if isinstance(rank, int) else None


def _us(ns: np.ndarray) -> list[float]:
    return (np.asarray(ns, dtype=np.float64) / 1000.0).tolist()


def _from_events(trace: Trace) -> dict[str, Any] | None:
    """Step split and collectives from kernels (Kineto, Ascend PyTorch), else from host
    collectives (gloo on a CPU run: `host.py`)."""
    ev = trace.events
    kernels = ev["kind"] == Kind.KERNEL
    comm = comm_kernel_mask(trace) & kernels
    if comm.any():
        source, compute_mask = "kernels", kernels & ~comm
    else:
        comm = host_collective_mask(trace)
        if not comm.any():
            return None
        source, compute_mask = "host", host_compute_mask(trace)
    s, e = ev["start_ns"], ev["end_ns"]
    rows = _split(trace, iv.union(s[compute_mask], e[compute_mask]), iv.union(s[comm], e[comm]))
    idx = np.flatnonzero(comm)
    idx = idx[np.argsort(s[idx], kind="stable")]
    if source == "kernels":
        types = np.array(kernel_collectives(trace, idx))
    else:
        types = np.array([host_collective(n) for n in trace.strings.lookup(ev["name"][idx])])
    collectives = []
    for t in sorted(set(types.tolist())):
        calls = idx[types == t]
        collectives.append(_collective(t, e[calls] - s[calls], None, None))
    _add_ascend_figures(trace, collectives)
    return {"source": source, "steps": rows, "collectives": collectives}


def _split(trace: Trace, compute: iv.Ranges, communication: iv.Ranges) -> list[dict[str, Any]]:
    """Per step: computation, overlapped, exposed communication and the rest (module doc)."""
    steps = find_steps(trace)
    parts = (
        iv.subtract(compute, communication),
        iv.intersect(compute, communication),
        iv.subtract(communication, compute),
    )
    per = [iv.overlap_per_window(p, steps.start_ns, steps.end_ns) for p in parts]
    other = steps.duration_ns - per[0] - per[1] - per[2]
    table = np.stack([*per, other], axis=1) if len(steps) else np.zeros((0, 4), np.int64)
    return [
        {"step": name, "step_us": d / 1000.0, **dict(zip(STAGES, _us(r), strict=True))}
        for name, d, r in zip(steps.names, steps.duration_ns.tolist(), table, strict=True)
    ]


def _collective(
    name: str, durations_ns: np.ndarray, bytes_: int | None, wait_ns: int | None
) -> dict[str, Any]:
    return {
        "name": name,
        "calls": len(durations_ns),
        "total_us": float(durations_ns.sum()) / 1000.0,
        "bytes": bytes_,
        "tool_wait_us": None if wait_ns is None else wait_ns / 1000.0,
        "durations_us": _us(durations_ns),
    }


def _add_ascend_figures(trace: Trace, collectives: list[dict[str, Any]]) -> None:
    """Bytes this rank sent (all links) and the tool's own wait time, from Ascend summaries."""
    by_name = {c["name"]: c for c in collectives}
    comm = trace.tables.get("communication")
    if comm is not None:
        ops = [collective_type(o.split("@")[0]) for o in trace.strings.lookup(comm["op"])]
        for name, c in by_name.items():
            hit = np.array([o == name for o in ops], dtype=bool)
            c["tool_wait_us"] = float(comm["wait_ns"][hit].sum()) / 1000.0 if hit.any() else None
    matrix = trace.tables.get("communication_matrix")
    rank = _rank(trace)
    if matrix is not None and rank is not None:
        # Only `<type>-total@..` groups: top/middle/bottom groups repeat the same calls.
        groups = [g.split("@")[0].lower() for g in trace.strings.lookup(matrix["group"])]
        out = (matrix["src_rank"] == rank) & (matrix["dst_rank"] != rank)
        for name, c in by_name.items():
            hit = out & np.array([g == f"{name.lower()}-total" for g in groups], dtype=bool)
            if hit.any():
                c["bytes"] = int(np.rint(np.nansum(matrix["size_mb"][hit]) * _MB))


def _from_hccl(trace: Trace) -> dict[str, Any] | None:
    """Step communication/wait and per-call costs from MindSpore's `hccl_raw` tables."""
    hccl = trace.tables.get("hccl")
    if hccl is None or len(hccl["step"]) == 0:
        return None
    st = trace.tables.get("step_trace")
    step_ns = {}
    if st is not None:
        durations = (st["end_ns"] - st["start_ns"]).tolist()
        step_ns = dict(zip(st["step"].tolist(), durations, strict=True))
    rows = []
    columns = (hccl["step"].tolist(), hccl["comm_ns"].tolist(), hccl["wait_ns"].tolist())
    for step, comm, wait in zip(*columns, strict=True):
        d = step_ns.get(step)
        row = {"step": str(step), "step_us": None if d is None else d / 1000.0}
        row.update(dict.fromkeys(STAGES))
        row.update({"communication_us": comm / 1000.0, "tool_wait_us": wait / 1000.0})
        rows.append(row)
    collectives = []
    ops = trace.tables.get("hccl_ops")
    if ops is not None and len(ops["step"]):
        types = np.array([collective_type(n) for n in trace.strings.lookup(ops["op"])])
        order = np.lexsort((ops["op"], ops["step"]))  # call order: by step, then op name
        for t in sorted(set(types.tolist())):
            calls = order[types[order] == t]
            wait = int(ops["wait_ns"][calls].sum())
            collectives.append(_collective(t, ops["comm_ns"][calls], None, wait))
    return {"source": "hccl_raw", "steps": rows, "collectives": collectives}


def _links(trace: Trace) -> list[dict[str, Any]]:
    """Mean bandwidth of each link this rank uses, as the tool reports it (see module doc)."""
    matrix, hccl = trace.tables.get("communication_matrix"), trace.tables.get("hccl_links")
    if matrix is not None and len(matrix["step"]):
        groups = [g.split("@")[0].lower() for g in trace.strings.lookup(matrix["group"])]
        keep = np.array([g.endswith("-total") for g in groups], dtype=bool)
        src, dst = matrix["src_rank"][keep], matrix["dst_rank"][keep]
        links = [f"{a}-{b}" for a, b in zip(src.tolist(), dst.tolist(), strict=True)]
        transport = trace.strings.lookup(matrix["transport"][keep])
        bandwidth, unit = matrix["bandwidth_gbps"][keep], "GB/s"
        size, transfers = np.zeros(len(links)), np.full(len(links), -1)
    elif hccl is not None and len(hccl["step"]):
        links = trace.strings.lookup(hccl["link"])
        transport = trace.strings.lookup(hccl["transport"])
        bandwidth, unit = hccl["bandwidth"], None
        size = hccl["size"] / 1000.0  # KB (4.096 for a 4,096-byte all-reduce) -> MB
        transfers = hccl.get("transfers", np.full(len(links), -1))
    else:
        return []
    by_link: dict[tuple[str, str], list[float]] = {}
    moved: dict[tuple[str, str], list[float]] = {}  # [MB, transfers] while every step counts
    rows = zip(links, transport, bandwidth.tolist(), size.tolist(), transfers.tolist(), strict=True)
    for link, kind, bw, mb, n in rows:
        if np.isfinite(bw):
            by_link.setdefault((link, kind), []).append(bw)
        total = moved.setdefault((link, kind), [0.0, 0.0])
        total[0], total[1] = total[0] + mb, (total[1] + n if n >= 0 and total[1] >= 0 else -1)
    out = []
    for (link, kind), values in sorted(by_link.items()):
        mb, n = moved[(link, kind)]
        src_s, _, dst_s = link.partition("-")
        out.append(
            {
                "link": link,
                "src": int(src_s) if src_s.isdigit() else None,
                "dst": int(dst_s) if dst_s.isdigit() else None,
                "transport": kind,
                "bandwidth": float(np.mean(values)),
                "unit": unit,
                "steps": len(values),
                "mean_transfer_mb": mb / n if n > 0 else None,
            }
        )
    return out


def _average(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    keys = ("step_us", *STAGES, "communication_us", "tool_wait_us")
    out: dict[str, float | None] = {}
    for k in keys:
        vals = [r[k] for r in rows if r.get(k) is not None]
        out[k] = float(np.mean(vals)) if vals else None
    return out


def communication_section(
    trace: Trace, names: Sequence[str] | None = None, first: int = 0
) -> dict[str, Any] | None:
    """The communication view of one worker (see module doc); None without communication.

    `names`/`first`: the report's steps and the index of the first one its averages cover
    (`boundaries.averaged_from`), so that this page's average step is the overview's
    wherever this section times the same steps; `covered` says which steps it averages.
    """
    section = _from_events(trace) or _from_hccl(trace)
    if section is None:
        return None
    for row in section["steps"]:
        if "communication_us" not in row:
            row["communication_us"] = row["overlapped_us"] + row["exposed_communication_us"]
    section["rank"] = _rank(trace)
    section["links"] = _links(trace)
    averaged = _averaged_rows(section, None if names is None else names[first:])
    section["average_steps"] = [row["step"] for row in averaged]
    listed = list(names or [])
    listed += [row["step"] for row in section["steps"] if row["step"] not in set(listed)]
    compiling = list(names[:first]) if names else []
    section["covered"] = steps_covered(listed, section["average_steps"], compiling)
    section["average"] = _average(averaged)
    return section


def _averaged_rows(
    section: dict[str, Any], report_steps: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The steps the average covers: the report's averaged steps that this section times.

    Those are the steps the overview averages (MindSpore's step trace leaves out the first,
    which carries graph compilation; Kineto's are what the profiler's schedule kept, all
    averaged as the PyTorch plugin does), so a rank's communication page, its overview and
    the cluster page describe the same steps where the files allow. An `hccl_raw` row for a
    step the step trace does not have (the unfinished step when profiling stopped) is listed
    but not averaged: its partial cost would pull the average down. Without the report's
    steps (or none in common), the tool's own rule: hccl rows after the first, else all.
    """
    rows = section["steps"]
    timed = [row for row in rows if row["step_us"] is not None]
    if report_steps is not None:
        wanted = set(report_steps)
        picked = [row for row in (timed or rows) if row["step"] in wanted]
        if picked:
            return picked
    if section.get("source") != "hccl_raw":
        return list(rows)
    rows = timed or rows
    return rows[1:] if len(rows) > 1 else list(rows)
