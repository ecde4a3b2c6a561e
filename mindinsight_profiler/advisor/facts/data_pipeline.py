"""Facts: the data pipeline (PyTorch DataLoader waits, MindData queues and pipeline ops)."""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence


def _data_wait(ctx: Context) -> dict[str, Any]:
    section = (ctx.report.get("data_pipeline") or {}).get("data_wait")
    if not section or section.get("share") is None:
        raise Unavailable("needs DataLoader events in a PyTorch trace")
    return dict(section)


@fact(
    "data.wait_share",
    "ratio",
    "Share of the step (0..1) the training loop waits for the next batch and nothing runs "
    "on the device: the exposed DataLoader time of the priority breakdown.",
    "DataLoader events in a PyTorch trace",
)
def wait_share(ctx: Context) -> Observed:
    section = _data_wait(ctx)
    per_step = section.get("exposed_per_step_us") or section.get("per_step_us")
    return Observed(
        float(section["share"]), step_evidence(ctx.report, per_step, "data wait in step")
    )


@fact(
    "data.wait_us",
    "us",
    "Average exposed data wait per step, microseconds (data.wait_share x step.average_us).",
    "DataLoader events in a PyTorch trace",
)
def wait_us(ctx: Context) -> float | None:
    share, average = ctx.value("data.wait_share"), ctx.value("step.average_us")
    return None if share is None or average is None else share * average
