"""The `window` section: one-off work the profiled window holds (analysis/steps/window.py).

Microseconds; shares are of the profiled steps' total time (0-1); `per_step_us` rows follow
`steps.names`, columns `kinds`.
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record


class WindowEvent(Record, frozen=True, kw_only=True):
    """The longest event of a kind: where to look on the timeline (absolute ns)."""

    name: str
    start_ns: int
    end_ns: int
    us: float


class WindowLimit(Record, frozen=True, kw_only=True):
    """Why the window cannot support steady-state judgements (analysis/steps/window_limits.py)."""

    kind: Literal["sampled", "fragment", "toy"]
    reason: str  # one sentence with the figures
    reason_zh: str  # the same in Chinese, with the same figures


class Window(Record, frozen=True, kw_only=True):
    kinds: list[str]  # compile, initialisation, capture, warmup
    per_step_us: list[list[float]]
    total_us: dict[str, float]  # in the steps
    share: dict[str, float]  # of the steps' time
    window_share: float  # all kinds together
    longest: dict[str, WindowEvent]  # kinds that occur
    steady_steps: list[int]  # steps with under 1 % of their time in one-off work
    limit: WindowLimit | None  # set when steady-state rules cannot judge this window
