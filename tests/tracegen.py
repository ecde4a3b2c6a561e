"""Tiny hand-written Kineto traces for unit tests (the real data is in ../shared/data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def op(
    name: str,
    ts: float,
    dur: float,
    tid: int = 1,
    ext: int | None = None,
    cat: str = "cpu_op",
    **args: Any,
) -> dict:
    a = dict(args)
    if ext is not None:
        a["External id"] = ext
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": 1,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": a,
    }


def runtime(name: str, ts: float, dur: float, corr: int, ext: int = 0, tid: int = 1) -> dict:
    return {
        "ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
        "args": {"correlation": corr, "External id": ext},
    }  # fmt: skip


def kernel(
    name: str,
    ts: float,
    dur: float,
    corr: int,
    blocks: float = 1.0,
    occ: float = 50,
    device: int = 0,
) -> dict:
    return {
        "ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": 7, "ts": ts, "dur": dur,
        "args": {"correlation": corr, "device": device, "stream": 7, "blocks per SM": blocks,
                 "est. achieved occupancy %": occ, "grid": [1, 1, 1], "block": [128, 1, 1]},
    }  # fmt: skip


def python_stack(ts: float, dur: float, depth: int = 20, tid: int = 1) -> list[dict]:
    """`depth` nested Python frames around [ts, ts + dur] on thread `tid`: what a real step's
    call stack adds to a trace. A hand-made step of a few operators is otherwise under the
    window model's fragment limit (analysis/steps/window_limits.py: steady-state rules do
    not judge a step of a handful of events); frames touch no operator, kernel or runtime
    figure."""
    return [
        {"ph": "X", "cat": "python_function", "name": f"train.py({10 + i}): level{i}", "pid": 1,
         "tid": tid, "ts": ts + 0.01 * i, "dur": dur - 0.02 * i, "args": {}}
        for i in range(depth)
    ]  # fmt: skip


def write_trace(path: Path, events: list[dict], **top: Any) -> Path:
    doc = {"schemaVersion": 1, **top, "traceEvents": events}
    path.write_text(json.dumps(doc, indent=1))
    return path


def assert_same_trace(a: Any, b: Any) -> None:
    """Two read traces hold the same strings and the same event columns (NaN equal NaN):
    what reading a file in different ways (processes, chunk sizes, the cache) must keep."""
    assert a.strings.to_list() == b.strings.to_list()
    assert set(a.events) == set(b.events)
    for col in a.events:
        assert np.array_equal(a.events[col], b.events[col], equal_nan=True), col
