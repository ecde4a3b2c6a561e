"""The `ledger` section: each step's time attributed once, to one cause.

Producer: `analysis.steps.ledger.step_ledger` through `analysis.sections`. Microseconds;
`per_step_us` rows follow `steps.names` and sum to each step's duration; `compute_*` split
the device_compute part by the category of work that launched it.
"""

from __future__ import annotations

from mindinsight_profiler.analysis.schema.base import Record


class Ledger(Record, frozen=True, kw_only=True):
    """Parts of each step (see analysis/steps/ledger.py for what each part means)."""

    parts: list[str]
    per_step_us: list[list[float]]
    average_us: dict[str, float]  # over the steps from `averaged_from`
    compute_parts: list[str]
    compute_per_step_us: list[list[float]]
    compute_average_us: dict[str, float]
    averaged_from: int
    # "events": the profiled events' ranges; "step_trace": MindSpore's step points, for runs
    # whose steps hold no profiled event (analysis/steps/step_trace_ledger.py);
    # "events+step_trace": the steps without events from the step points, the others events
    source: str = "events"
