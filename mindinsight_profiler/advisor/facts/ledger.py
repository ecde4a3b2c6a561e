"""Facts: the step ledger's parts (the report's `ledger` section), per average step.

A rule that judges one cause of lost time should judge the time the ledger gives that cause,
not a measure that overlaps others: the plugin's Runtime share, for example, includes the
host blocked in a pageable device-to-host copy (a synchronisation, the ledger's sync_wait),
and read as launch overhead it told users to fuse kernels where a `.item()` was the cause.
"""

from __future__ import annotations

from mindinsight_profiler.advisor.facts.registry import Context, Unavailable, fact
from mindinsight_profiler.analysis.steps.ledger import PARTS


def _part_fact(part: str) -> None:
    @fact(
        f"ledger.{part}_us",
        "us",
        f"The step ledger's {part} part (docs/definitions.md#step-ledger): microseconds of "
        "the average step attributed to it, each instant to one cause only.",
        "at least one step",
    )
    def part_us(ctx: Context) -> float:
        ledger = ctx.report.get("ledger")
        if not ledger:
            raise Unavailable("needs at least one step")
        return float(ledger["average_us"].get(part) or 0.0)


for _part in PARTS:
    _part_fact(_part)


@fact(
    "ledger.data_wait_measured_us",
    "us",
    "ledger.data_wait_us when the steps did wait for data (over 0): the saving of a finding "
    "about the data pipeline (MindData queues read no step time of their own).",
    "steps that waited for data",
)
def data_wait_measured_us(ctx: Context) -> float:
    wait = ctx.value("ledger.data_wait_us") or 0.0  # None: no steps, no ledger
    if wait <= 0:
        raise Unavailable("needs steps that waited for data (the ledger's data wait is 0)")
    return wait
