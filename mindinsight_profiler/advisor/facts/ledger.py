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
