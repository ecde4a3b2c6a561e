"""Facts: steps and the step-time breakdown (every format has them)."""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.registry import Context, Observed, fact
from mindinsight_profiler.advisor.labels import CATEGORIES_ZH, label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES


def step_evidence(
    report: dict[str, Any],
    values_us: list[float] | None = None,
    key: str = "step",
    top: int = 0,
    **params: str,
) -> tuple[Evidence, ...]:
    """One `step` evidence item per step (time range for the timeline), optionally valued.

    `key` names the label (advisor/labels.py), which takes the step's name and `params`.

    With `top`, only the `top` steps of largest value are kept.
    """
    steps = report.get("steps") or {}
    names = steps.get("names") or []
    starts = steps.get("start_ns") or [None] * len(names)
    durations = steps.get("durations_us") or []
    items = []
    for i, name in enumerate(names):
        start = starts[i] if i < len(starts) else None
        end = None if start is None else int(start + durations[i] * 1000)
        value = values_us[i] if values_us is not None and i < len(values_us) else None
        items.append((value, i, name, start, end))
    if top:
        items = sorted(items, key=lambda t: -(t[0] or 0.0))[:top]
    return tuple(
        Evidence(
            kind="step",
            **label(key, step=name, **params),
            page="timeline",
            value=value,
            unit="us" if value is not None else None,
            step=str(name),
            start_ns=start,
            end_ns=end,
        )
        for value, _, name, start, end in items
    )


def _steps(ctx: Context) -> dict[str, Any] | None:
    steps = ctx.report.get("steps") or {}
    return steps if steps.get("count") else None


@fact("step.count", "count", "Number of steps analysed.", "at least one step")
def step_count(ctx: Context) -> int | None:
    steps = _steps(ctx)
    return None if steps is None else int(steps["count"])


@fact("step.average_us", "us", "Average step duration, microseconds.", "at least one step")
def step_average_us(ctx: Context) -> float | None:
    steps = _steps(ctx)
    return None if steps is None else float(steps["average_us"])


@fact(
    "step.durations_us",
    "list",
    "Duration of each step, microseconds (evidence: every step).",
    "at least one step",
)
def step_durations(ctx: Context) -> Observed | None:
    steps = _steps(ctx)
    if steps is None:
        return None
    values = [float(v) for v in steps["durations_us"]]
    return Observed(values, step_evidence(ctx.report, values, "step"))


def _breakdown_share(category: str) -> None:
    def us(ctx: Context) -> Observed | None:
        steps = _steps(ctx)
        breakdown = ctx.report.get("breakdown_us")
        if steps is None or not breakdown or category not in breakdown:
            return None
        per_step = [row.get(category, 0.0) for row in ctx.report.get("breakdown_per_step_us") or []]
        evidence = step_evidence(ctx.report, per_step, "breakdown_step", category=category,
                                 category_zh=CATEGORIES_ZH.get(category, category))  # fmt: skip
        return Observed(float(breakdown[category]), evidence)

    def share(ctx: Context) -> float | None:
        got = ctx.get(f"breakdown.{category}_us")
        average = ctx.value("step.average_us")
        if got is None or not average:
            return None
        return float(got.value) / average

    fact(
        f"breakdown.{category}_us",
        "us",
        f"Average per-step time attributed to {category} by the priority breakdown "
        "(kernel > memcpy > memset > communication > runtime > dataloader > cpu_exec > "
        "other), microseconds.",
        "a step-time breakdown",
    )(us)
    fact(
        f"breakdown.{category}_share",
        "ratio",
        f"breakdown.{category}_us divided by the average step time (0..1).",
        "a step-time breakdown",
    )(share)


for _category in CATEGORIES:
    _breakdown_share(_category)
