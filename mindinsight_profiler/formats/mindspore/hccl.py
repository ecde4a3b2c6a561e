"""MindSpore's `hccl_raw_{rank}.csv`: communication costs per step, per link and per call.

Columns: `step_num`, `communication_cost` and `wait_cost` (ms), `link_info` (JSON: per
`src-dst` link and transport, [time ms, size, bandwidth]) and, in newer files,
`communication_operator_cost` (JSON: per collective call `[step, cost ms, wait ms, links]`,
whose links give how many calls used each link: `transfers`, for the mean transfer size,
and each call's size: `size_kb`, the largest it moved over one link, in the links' KB).
The per-call costs are what lets a cluster view match the same collective across ranks;
without them only step totals are known. Rows that are not steps (averages) are dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import MAX_NUMBER, read_csv, to_ns

_OPS_COLUMN = "communication_operator_cost"


def _ms_to_ns(path: Path, values: list[float] | np.ndarray, what: str) -> np.ndarray:
    return to_ns(path, np.asarray(values, dtype=np.float64), 1e6, what)


def _operator_costs(
    path: Path, steps: list[str], cells: list[str], transfers: dict[tuple[int, str, str], int]
) -> list[tuple[Any, ...]]:
    """(step, op name, cost ms, wait ms, size KB or -1) of every collective call, from the
    JSON column; counts into `transfers` the calls that used each (step, link, transport)."""
    calls: list[tuple[Any, ...]] = []
    for row, (step, cell) in enumerate(zip(steps, cells, strict=True)):
        try:
            ops = msgspec.json.decode(cell, type=dict[str, list[Any]])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            raise InputError(path, f"row {row + 2}: {_OPS_COLUMN} is not JSON") from None
        for op, v in ops.items():
            try:
                if len(v) < 3 or not all(isinstance(x, int | float) for x in v[1:3]):
                    raise ValueError
                cost, wait = float(v[1]), float(v[2])
            except (ValueError, OverflowError):
                raise InputError(
                    path, f"row {row + 2}: {op} needs [step, cost, wait, ...]"
                ) from None
            size = -1.0
            if len(v) > 3 and isinstance(v[3], dict):
                for link, by_type in v[3].items():
                    for kind, x in by_type.items() if isinstance(by_type, dict) else ():
                        key = (int(step), str(link), str(kind))
                        transfers[key] = transfers.get(key, 0) + 1
                        if isinstance(x, list) and len(x) > 1 and isinstance(x[1], int | float):
                            size = max(size, float(x[1]))
            calls.append((int(step), op, cost, wait, size))
    return calls


def read_hccl(path: Path) -> dict[str, Any]:
    """Per-step communication/wait cost (ms), per-link time (ms), size and bandwidth, calls."""
    t = read_csv(path, ["step_num", "communication_cost", "wait_cost", "link_info"])
    is_step = np.array([s.isascii() and s.isdigit() for s in t.text("step_num")], dtype=bool)
    if not is_step.any():
        raise InputError(path, "no step rows")
    t = t.select(is_step)
    links: list[tuple[int, str, str, float, float, float]] = []
    for row, (step, cell) in enumerate(zip(t.text("step_num"), t.text("link_info"), strict=True)):
        try:
            info = msgspec.json.decode(cell, type=dict[str, dict[str, list[float]]])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            raise InputError(path, f"row {row + 2}: link_info is not link JSON") from None
        for link, by_type in info.items():
            for kind, v in by_type.items():
                if len(v) < 3:
                    raise InputError(path, f"row {row + 2}: link {link} needs 3 values")
                links.append((int(step), link, kind, v[0], v[1], v[2]))
    calls = []
    counted: dict[tuple[int, str, str], int] = {}
    if t.has(_OPS_COLUMN):
        calls = _operator_costs(path, t.text("step_num"), t.text(_OPS_COLUMN), counted)
    sizes = np.array([r[4] for r in links] + [r[5] for r in links], dtype=np.float64)
    if not ((sizes >= 0) & (sizes <= MAX_NUMBER)).all():
        raise InputError(path, "link_info: a size or bandwidth out of range")
    return {
        "step": t.numbers("step_num", "int64"),
        "comm_ns": _ms_to_ns(path, t.numbers("communication_cost"), "communication_cost"),
        "wait_ns": _ms_to_ns(path, t.numbers("wait_cost"), "wait_cost"),
        "links": links,
        # collective calls that used each link in its step (-1: no per-call column)
        "link_transfers": np.array(
            [counted.get((r[0], r[1], r[2]), 0) if calls else -1 for r in links], dtype=np.int64
        ),
        "link_time_ns": _ms_to_ns(path, [r[3] for r in links], "link_info time"),
        "calls": calls,
        "call_comm_ns": _ms_to_ns(path, [c[2] for c in calls], f"{_OPS_COLUMN} cost"),
        "call_wait_ns": _ms_to_ns(path, [c[3] for c in calls], f"{_OPS_COLUMN} wait"),
        "call_size_kb": _sizes(path, [c[4] for c in calls]),
    }


def _sizes(path: Path, sizes: list[float]) -> np.ndarray:
    """The calls' sizes (KB, -1 where no link gave one), checked like the links' sizes."""
    out = np.array(sizes, dtype=np.float64)
    if not ((out >= -1) & (out <= MAX_NUMBER)).all():
        raise InputError(path, f"{_OPS_COLUMN}: a link size out of range")
    return out


def add_hccl(b: TraceBuilder, parsed: dict[str, Any]) -> None:
    """Side tables `hccl` (per step), `hccl_links` (per link) and `hccl_ops` (per call)."""
    b.add_table(
        "hccl", {"step": parsed["step"], "comm_ns": parsed["comm_ns"], "wait_ns": parsed["wait_ns"]}
    )
    links = parsed["links"]
    b.add_table(
        "hccl_links",
        {
            "step": np.array([r[0] for r in links], dtype=np.int64),
            "link": b.codes([r[1] for r in links]),
            "transport": b.codes([r[2] for r in links]),
            "time_ns": parsed["link_time_ns"],
            "size": np.array([r[4] for r in links], dtype=np.float64),
            "bandwidth": np.array([r[5] for r in links], dtype=np.float64),
            "transfers": parsed["link_transfers"],
        },
    )
    calls = parsed["calls"]
    if calls:
        b.add_table(
            "hccl_ops",
            {
                "step": np.array([c[0] for c in calls], dtype=np.int64),
                "op": b.codes([c[1] for c in calls]),
                "comm_ns": parsed["call_comm_ns"],
                "wait_ns": parsed["call_wait_ns"],
                "size_kb": parsed["call_size_kb"],
            },
        )
