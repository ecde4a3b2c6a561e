"""Whether the profiled window can support steady-state judgements at all.

Steady-state rules read a window as a sample of training: idle device time, launch rates,
host time no operator covers, a DataLoader's share of the step. Three kinds of window make
every such figure a statement about the capture, not the run:
- `sampled`: events were dropped after recording (a sampled or filtered trace). Kineto
  numbers operators and annotations with one counter (`External id`), so in a complete
  trace nearly every recorded id follows its predecessor; when most ids skip, the gaps hold
  the dropped work, and "idle" or "untracked" time is where it was. On the expert set's
  complete traces 97-100 % of ids follow their predecessor; on HTA's sampled trace 37 %.
- `fragment`: a handful of events in the steps (a fixture cut by hand, or a capture that
  missed the work); under `MIN_EVENTS` there is nothing a step's time can be attributed to.
- `toy`: the device works under `TOY_DEVICE_US` per step. Per-operation host overhead
  then dominates by construction (a 1-layer test model's step is its launches) and no
  saving is worth a user's time; real training steps keep a device busy for milliseconds.
Traces with neither operator ids nor device work (step-trace files only) are not judged
here: their rules read the files, not the events.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import sorted_distinct

#: Below this share of operator ids that follow their predecessor, events were dropped.
MIN_ADJACENT_IDS = 0.5
#: Fewer operator ids than this say nothing about sampling.
MIN_IDS = 20
#: Fewer timed events than this in all the steps together: a fragment.
MIN_EVENTS = 50
#: Device work per step below this (microseconds): a test-sized workload.
TOY_DEVICE_US = 100.0

_TIMED = (*OP_TREE_KINDS, Kind.PYTHON_FUNCTION, Kind.RUNTIME, *DEVICE_KINDS)


@dataclass(frozen=True)
class WindowLimit:
    """Why a window cannot be judged in steady state: its kind and a sentence with figures."""

    kind: str  # sampled, fragment, toy
    reason: str
    reason_zh: str  # the same sentence with the same figures, for the zh notice


def _in_steps(trace: Trace, steps: Steps, mask: np.ndarray) -> np.ndarray:
    ev = trace.events
    start = ev["start_ns"]
    return mask & (start >= steps.start_ns[0]) & (start < steps.end_ns[-1])


def _sampled(trace: Trace, steps: Steps) -> WindowLimit | None:
    ev = trace.events
    ids = ev["ext_id"][_in_steps(trace, steps, is_kind(ev["kind"], OP_TREE_KINDS))]
    ids = sorted_distinct(ids[ids >= 0])
    if len(ids) < MIN_IDS:
        return None
    adjacent = float(np.mean(np.diff(ids) == 1))
    if adjacent >= MIN_ADJACENT_IDS:
        return None
    present = len(ids) / float(ids[-1] - ids[0] + 1)
    return WindowLimit(
        "sampled",
        f"events were dropped from this trace (sampled or filtered): only {adjacent:.0%} of "
        f"its {len(ids):,} operator ids follow their predecessor (a complete trace: over 95 %), "
        f"and {present:.1%} of the ids in their range are present",
        f"该 trace 的事件经过采样或过滤：{len(ids):,} 个算子 ID 中只有 {adjacent:.0%} 紧接前一个"
        f"（完整的 trace 超过 95 %），其范围内的 ID 只有 {present:.1%} 存在",
    )


def _fragment(trace: Trace, steps: Steps) -> WindowLimit | None:
    ev = trace.events
    timed = _in_steps(trace, steps, is_kind(ev["kind"], _TIMED))
    count = int(np.count_nonzero(timed)) - (len(steps) if steps.from_profiler_steps else 0)
    if count <= 0 or count >= MIN_EVENTS:
        return None
    return WindowLimit(
        "fragment",
        f"the {len(steps)} profiled step(s) hold only {count} events besides the step "
        f"markers: a cut-out fixture or a capture that missed the work",
        f"采集的 {len(steps)} 个迭代中除迭代标记外只有 {count} 个事件：是截取的片段，"
        f"或采集时漏掉了实际工作",
    )


def _toy(trace: Trace, steps: Steps) -> WindowLimit | None:
    ev = trace.events
    device = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS))
    if not len(device):
        return None
    busy = iv.union(ev["start_ns"][device], ev["end_ns"][device])
    per_step_us = iv.overlap_per_window(busy, steps.start_ns, steps.end_ns) / 1000.0
    mean = float(per_step_us.mean())
    if mean >= TOY_DEVICE_US or mean <= 0:
        return None
    step_us = float(steps.duration_ns.mean()) / 1000.0
    return WindowLimit(
        "toy",
        f"the device works {mean:,.0f} us per step of {step_us:,.0f} us: a test-sized "
        f"workload, whose step is per-operation overhead by construction",
        f"设备在每个 {step_us:,.0f} us 的迭代中只工作 {mean:,.0f} us：属于测试规模的负载，"
        f"其迭代时间本就主要是逐个算子的开销",
    )


def window_limit(trace: Trace, steps: Steps) -> WindowLimit | None:
    """The first reason (sampled, fragment, toy) the window cannot be judged, or None."""
    if not len(steps):
        return None
    for check in (_sampled, _fragment, _toy):
        found = check(trace, steps)
        if found is not None:
            return found
    return None
