"""What the profiled window holds besides steady-state training.

A trace is a window onto a job, and the window often opens too early: CUDA/ROCm context
creation and first kernel launches (module loads), `torch.compile` compilation, CUDA-graph
capture and warm-up steps. Their time is real but does not recur, so read as steady state it
turns into false advice ("launch overhead", "the device is idle", "use CUDA graphs"). This
finds them in the trace, so that the advisor can say when the window itself is the problem
and keep its steady-state rules off a window that is mostly one-off work.

Kinds, in priority order (a moment belongs to the first that covers it):
- `compile`: torch.compile / Dynamo / AOTAutograd / Inductor / Triton compile ranges
  (`dynamo_timed` spans, `entire_frame_compile`, `compile_file`, `backend_compile`...);
  on a MindSpore CPU run, which records no compile event, the operator-free gap before a
  graph's first operator when it is far longer than any recurring gap (MindSpore compiles
  a cell's graph on its first call, and nothing runs meanwhile);
- `initialisation`: one-time runtime calls (device and context set-up, module loads, the
  first `cudaFree`) and launches that start a kernel's first run (lazy module loading),
  when they take 1 ms or more;
- `capture`: CUDA/HIP graph capture, from `*StreamBeginCapture` to `*StreamEndCapture` on
  the same thread, and graph instantiation;
- `warmup`: ranges the program itself names as warm-up (`...|warmup|...`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import host_range_mask
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind
from mindinsight_profiler.model.trace import Trace

KINDS = ("compile", "initialisation", "capture", "warmup")
#: A one-time call shorter than this is not worth naming.
MIN_INIT_NS = 1_000_000

_COMPILE = re.compile(
    r"\(dynamo_timed\)|^(dynamo|entire_frame_compile|compile_file|backend_compile|"
    r"create_aot_dispatcher_function|compile_fx|async_compile\.wait|inductor_compile|"
    r"TorchDynamo Cache Lookup|triton_compile|_compile\.compile_inner)\b"
)
_INIT_CALLS = re.compile(
    r"^(cuda|hip)(DeviceGetStreamPriorityRange|GetDeviceCount|SetDevice|GetDeviceProperties)$|"
    r"^cu(Init|DevicePrimaryCtxRetain|CtxCreate\w*|ModuleLoad\w*|LibraryLoad\w*)$|"
    r"^hipModuleLoad\w*$"
)
#: Calls that set things up only the first time they are made (cudaFree(0) creates the
#: context; later calls free memory, which is the allocator's business).
_FIRST_TIME_CALLS = re.compile(r"^(cuda|hip)(Free|StreamCreate\w*|FuncGetAttributes)$")
_LAUNCH = re.compile(r"^(cuda|hip|cu)LaunchKernel\w*$|^hipExtModuleLaunchKernel$")
_WARMUP = re.compile(r"warm[-_ ]?up", re.IGNORECASE)
#: A MindSpore graph-compile gap lasts at least this long (ns) ...
MIN_COMPILE_GAP_NS = 50_000_000
#: ... and this many times the longest gap that precedes an operator seen before.
COMPILE_GAP_RATIO = 10.0


@dataclass(frozen=True)
class Window:
    """Per step (rows) ns of each kind; `ranges` the time each kind covers in the trace."""

    per_step_ns: np.ndarray  # (steps, len(KINDS))
    ranges: dict[str, iv.Ranges]
    longest: dict[str, tuple[str, int, int]]  # kind -> (name, start, end) of its longest event


def _first_of_each_name(trace: Trace, events: np.ndarray) -> np.ndarray:
    """Of `events`, the earliest of each name (ties: the first in the trace)."""
    ev = trace.events
    order = events[np.argsort(ev["start_ns"][events], kind="stable")]
    _, first = np.unique(ev["name"][order], return_index=True)
    return order[first]


def _init_events(trace: Trace) -> np.ndarray:
    ev = trace.events
    runtime = np.flatnonzero(ev["kind"] == Kind.RUNTIME)
    long = runtime[(ev["end_ns"][runtime] - ev["start_ns"][runtime]) >= MIN_INIT_NS]
    if not len(long):
        return long
    first_call = set(_first_of_each_name(trace, runtime).tolist())
    # a launch that starts the first run of its kernel (lazy module loading)
    kernels = np.flatnonzero((ev["kind"] == Kind.KERNEL) & (ev["caller"] >= 0))
    first_launch = set(ev["caller"][_first_of_each_name(trace, kernels)].tolist())
    keep = [
        e for e, name in zip(long.tolist(), trace.strings.lookup(ev["name"][long]), strict=True)
        if _INIT_CALLS.match(name)
        or (_LAUNCH.match(name) and e in first_launch)
        or (_FIRST_TIME_CALLS.match(name) and e in first_call)
    ]  # fmt: skip
    return np.array(keep, dtype=np.int64)


def _graph_compile_gaps(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """MindSpore CPU runs: the operator-free gaps before a graph's first operator that are
    far longer than any gap of the recurring steps (see the module doc)."""
    ev = trace.events
    none = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    if trace.meta.get("framework") != "mindspore" or np.isin(ev["kind"], DEVICE_KINDS).any():
        return none
    ops = np.flatnonzero(ev["kind"] == Kind.CPU_OP)
    if len(ops) < 3:
        return none
    ops = ops[np.argsort(ev["start_ns"][ops], kind="stable")]
    start, reach = ev["start_ns"][ops], np.maximum.accumulate(ev["end_ns"][ops])
    gap = start[1:] - reach[:-1]
    first = np.zeros(len(ops), dtype=bool)
    first[np.unique(ev["name"][ops], return_index=True)[1]] = True
    recurring = gap[~first[1:]]
    longest = int(recurring.max()) if len(recurring) else 0
    hit = first[1:] & (gap >= MIN_COMPILE_GAP_NS) & (gap >= COMPILE_GAP_RATIO * longest)
    return reach[:-1][hit], start[1:][hit]


def _capture_ranges(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    ev = trace.events
    begin = trace.names_matching(lambda s: s.endswith("StreamBeginCapture"))
    end = trace.names_matching(lambda s: s.endswith("StreamEndCapture"))
    starts, ends = [], []
    for b in np.flatnonzero(begin).tolist():
        same = np.flatnonzero(
            end & (ev["track"] == ev["track"][b]) & (ev["start_ns"] >= ev["start_ns"][b])
        )
        if len(same):
            starts.append(int(ev["start_ns"][b]))
            ends.append(int(ev["end_ns"][same].min()))
    inst = np.flatnonzero(trace.names_matching(lambda s: s.endswith("GraphInstantiate")))
    return (
        np.concatenate([np.array(starts, np.int64), ev["start_ns"][inst]]),
        np.concatenate([np.array(ends, np.int64), ev["end_ns"][inst]]),
    )


def _events(trace: Trace) -> dict[str, np.ndarray | tuple[np.ndarray, np.ndarray]]:
    host = host_range_mask(trace)
    ev = trace.events
    compiles = np.flatnonzero(host & trace.names_matching(lambda s: bool(_COMPILE.search(s))))
    gap_start, gap_end = _graph_compile_gaps(trace)
    compile_ranges: np.ndarray | tuple[np.ndarray, np.ndarray] = compiles
    if len(gap_start):
        compile_ranges = (
            np.concatenate([ev["start_ns"][compiles], gap_start]),
            np.concatenate([ev["end_ns"][compiles], gap_end]),
        )
    return {
        "compile": compile_ranges,
        "initialisation": _init_events(trace),
        "capture": _capture_ranges(trace),
        "warmup": np.flatnonzero(host & trace.names_matching(lambda s: bool(_WARMUP.search(s)))),
    }


def one_off_ranges(trace: Trace) -> iv.Ranges:
    """Every range of one-off work (compile, initialisation, capture, warm-up) in the trace,
    merged: for facts that judge steady-state calls and must leave these out."""
    ev = trace.events
    starts, ends = [], []
    for found in _events(trace).values():
        if isinstance(found, tuple):
            starts.append(found[0])
            ends.append(found[1])
        else:
            starts.append(ev["start_ns"][found])
            ends.append(ev["end_ns"][found])
    return iv.union(np.concatenate(starts), np.concatenate(ends))


def profiled_window(trace: Trace, steps: Steps) -> Window:
    """Where the window holds one-off work, per kind (see module doc)."""
    ev = trace.events
    per_step = np.zeros((len(steps), len(KINDS)), dtype=np.int64)
    ranges: dict[str, iv.Ranges] = {}
    longest: dict[str, tuple[str, int, int]] = {}
    taken = iv.EMPTY
    for j, (kind, found) in enumerate(_events(trace).items()):
        if isinstance(found, tuple):
            start, end = found
            name = "graph capture" if kind == "capture" else "graph compile (no operator runs)"
        else:
            start, end = ev["start_ns"][found], ev["end_ns"][found]
            name = ""
        if len(start):
            k = int(np.argmax(end - start))
            label = name or trace.strings[int(ev["name"][found[k]])]
            longest[kind] = (label, int(start[k]), int(end[k]))
        mine = iv.subtract(iv.union(start, end), taken)
        ranges[kind] = mine
        taken = iv.union(
            np.concatenate([taken.start, mine.start]), np.concatenate([taken.end, mine.end])
        )
        if len(steps):
            per_step[:, j] = iv.overlap_per_window(mine, steps.start_ns, steps.end_ns)
    return Window(per_step, ranges, longest)
