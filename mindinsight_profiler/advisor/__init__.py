"""The advisor: rules in `rules/` evaluated on facts computed from a run's analysis.

`advise_report` is the pure entry point (report in, `Advice` out); the pipeline stores its
result beside the cached analysis and the CLI and server present it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from mindinsight_profiler.advisor.engine import advise
from mindinsight_profiler.advisor.facts import Context
from mindinsight_profiler.advisor.model import Advice, Finding
from mindinsight_profiler.advisor.rules import load_rules
from mindinsight_profiler.model.trace import Trace

__all__ = ["Advice", "Finding", "advise_report", "load_rules"]


def advise_report(
    report: dict[str, Any],
    load_trace: Callable[[], Trace | None] | None = None,
    load_run: Callable[[], list[dict[str, Any]]] | None = None,
    rules_dirs: Iterable[str | Path] = (),
) -> Advice:
    """Evaluate the built-in rules (and those in `rules_dirs`) on one worker's analysis."""
    ctx = Context(report, load_trace, load_run)
    return advise(load_rules(rules_dirs), ctx, report.get("source"), report.get("worker"))
