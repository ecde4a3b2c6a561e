"""Where in the user's Python code an operator, a sync or any named event comes from, from
a trace recorded with `with_stack=True`: the step from a finding to the line to change.

Two shapes of stack exist: the 2021 schema's `Call stack` arg on operators (innermost frame
first, `file(line): function` joined by `;`), and PyTorch 2.x's `python_function` ranges
that enclose the operator. An event without a stack of its own (a runtime call, a kernel)
takes the one of what launched or encloses it (`caller`, then `parent`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.errors import BadArgument
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.links import innermost_enclosing, nesting_parents
from mindinsight_profiler.model.trace import Trace

#: Frames of installed packages and of Python itself, not the user's code: paths under
#: site-packages, or (PyTorch 2.x shortens them) starting at a framework's package; built-in
#: functions and `nn.Module: Name` markers are not lines either.
_LIBRARY = re.compile(
    r"site-packages|dist-packages|/lib/python\d|^<|^built-in|^nn\.Module: |"
    r"^(torch|torchvision|torchaudio|torch_npu|numpy|transformers|accelerate|deepspeed|apex|"
    r"triton|mindspore|threading|multiprocessing|contextlib|functools)(/|\.py)"
)
#: Ancestors followed to find a stack, and python_function ranges kept per stack.
MAX_DEPTH = 64
#: Events whose python_function ancestors are collected (the longest, when more match).
MAX_WALKED = 5000


def _stack_codes(trace: Trace, rows: np.ndarray) -> np.ndarray:
    """Per row, the code of the first `call_stack` up its caller/parent chain (-1: none)."""
    ev = trace.events
    stack, caller, parent = ev["call_stack"], ev["caller"], ev["parent"]
    cur, found = rows.copy(), np.full(len(rows), -1, dtype=np.int64)
    for _ in range(MAX_DEPTH):
        code = stack[cur]
        hit = (found < 0) & (code >= 0)
        found[hit] = code[hit]
        up = np.where(caller[cur] >= 0, caller[cur], parent[cur])
        move = (found < 0) & (up >= 0)
        if not move.any():
            break
        cur = np.where(move, up, cur)
    return found


class _PythonFrames:
    """The python_function ranges of a trace (PyTorch 2.x `with_stack`), nested: the
    frames enclosing an event, innermost first, by time on its thread."""

    def __init__(self, trace: Trace) -> None:
        ev = trace.events
        self.trace = trace
        self.rows = np.flatnonzero(ev["kind"] == Kind.PYTHON_FUNCTION)
        self.up = nesting_parents(
            ev["track"][self.rows], ev["start_ns"][self.rows], ev["end_ns"][self.rows]
        )  # local index of the enclosing frame, or -1

    def of(self, rows: np.ndarray) -> list[tuple[str, ...]]:
        if not len(self.rows):
            return [() for _ in range(len(rows))]
        first = innermost_enclosing(self.trace, self.rows, rows)
        local = np.searchsorted(self.rows, first)  # rows is sorted: global -> local
        names = self.trace.events["name"]
        out = []
        for g, at in zip(first.tolist(), local.tolist(), strict=True):
            frames: list[str] = []
            while g >= 0 and at >= 0 and len(frames) < MAX_DEPTH:
                frames.append(self.trace.strings[int(names[self.rows[at]])])
                at = int(self.up[at])
                g = at
            out.append(tuple(frames))
        return out


def user_frames(frames: tuple[str, ...] | list[str]) -> list[str]:
    """The frames in the user's own code (not an installed package nor Python's)."""
    return [f for f in frames if not _LIBRARY.search(f)]


def source_lines(trace: Trace, name: str, limit: int) -> dict[str, Any]:
    """The distinct call stacks of the events named `name`, costliest first: frames
    (innermost first), the user's own frames, calls and total time (us)."""
    matches = name_matcher(name)
    rows = np.flatnonzero(trace.names_matching(matches)) if matches else np.zeros(0, np.int64)
    if not len(rows):
        raise BadArgument("name", f"no event named like {name!r}")
    duration = trace.end_ns[rows] - trace.start_ns[rows]
    codes = _stack_codes(trace, rows)
    groups: dict[tuple[str, ...], list[float]] = defaultdict(lambda: [0, 0.0])
    with_code = codes >= 0
    for code in np.unique(codes[with_code]).tolist():
        mine = codes == code
        frames = tuple(f.strip() for f in trace.strings[int(code)].split(";") if f.strip())
        group = groups[frames]
        group[0] += int(mine.sum())
        group[1] += float(duration[mine].sum()) / 1000.0
    rest = np.flatnonzero(~with_code)
    walked = rest[np.argsort(-duration[rest], kind="stable")[:MAX_WALKED]]
    python = _PythonFrames(trace) if len(walked) else None
    found = python.of(rows[walked]) if python is not None else []
    for i, frames in zip(walked.tolist(), found, strict=True):
        if frames:
            group = groups[frames]
            group[0] += 1
            group[1] += float(duration[i]) / 1000.0
    ranked = sorted(groups.items(), key=lambda kv: -kv[1][1])
    stacks = [
        {
            "frames": list(frames[:16]),
            "user_frames": user_frames(frames)[:8],
            "calls": int(calls),
            "total_us": round(total, 3),
        }
        for frames, (calls, total) in ranked[:limit]
    ]
    return {
        "events": len(rows),
        "with_stack": int(sum(int(v[0]) for v in groups.values())),
        "stacks": stacks,
        "note": None if groups else "no stack: record the trace with with_stack=True",
    }


def under_frame(trace: Trace, rows: np.ndarray, frame: str) -> np.ndarray:
    """Which of `rows` run under a Python frame whose text holds `frame` (any case): in
    their own or their launcher's `Call stack`, or inside a matching python_function range
    on their thread."""
    needle = frame.lower()
    codes = trace.strings.codes_where(lambda text: needle in text.lower())
    hit = np.isin(_stack_codes(trace, rows), codes) if len(codes) else np.zeros(len(rows), bool)
    ev = trace.events
    python = np.flatnonzero(ev["kind"] == Kind.PYTHON_FUNCTION)
    if len(python) and len(codes):
        matching = python[np.isin(ev["name"][python], codes)]
        if len(matching):
            hit |= innermost_enclosing(trace, matching, rows) >= 0
    return hit
