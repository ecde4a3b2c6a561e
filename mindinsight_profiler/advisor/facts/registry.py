"""Named, typed, documented facts: the only inputs rules see.

A fact is computed once per run from the analysis results (the worker's report, and the
trace or the other ranks' reports when it needs them) by a function registered with
`@fact`. It returns its value, an `Observed` (value plus the evidence behind it), or None
when this input cannot tell (then it raises `Unavailable` with the reason, or returns None
and the fact's `needs` text is the reason). Rules whose facts are unavailable are listed as
"not evaluated" instead of being skipped silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.store.columns import is_mapped
from mindinsight_profiler.util.spill import spill_large

log = logging.getLogger(__name__)

Unit = Literal["ratio", "us", "ns", "count", "bytes", "percent", "bool", "text", "list", "number"]


class Unavailable(Exception):
    """This input cannot give the fact; the message says why (shown to the user)."""


@dataclass(frozen=True)
class Observed:
    """A fact's value and the evidence (steps, operators, ranks, time ranges) behind it."""

    value: Any
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class FactSpec:
    name: str
    unit: Unit
    doc: str
    needs: str
    fn: Callable[[Context], Any]


FACTS: dict[str, FactSpec] = {}


def fact(name: str, unit: Unit, doc: str, needs: str) -> Callable[[Callable], Callable]:
    """Register a fact function `fn(ctx) -> value | Observed | None` under `name`.

    `doc` says what the value means (with its unit); `needs` says what input provides it
    ("a GPU trace", "MindData queue files"), shown when it is missing.
    """

    def register(fn: Callable[[Context], Any]) -> Callable[[Context], Any]:
        if name in FACTS:
            raise ValueError(f"fact {name} registered twice")
        FACTS[name] = FactSpec(name, unit, doc, needs, fn)
        return fn

    return register


def step_share(name: str, of: str, needs: str) -> None:
    """Register `name`: fact `of` (microseconds per step) divided by the mean step time,
    0..1. Rules judge most times by their share of the step; one definition keeps every such
    share the same (None, so unavailable, when either figure is)."""

    def share(ctx: Context) -> float | None:
        got, average = ctx.value(of), ctx.value("step.average_us")
        return None if got is None or not average else float(got) / float(average)

    fact(name, "ratio", f"{of} divided by the mean step time (0..1).", needs)(share)


class _Memo(dict[str, Any]):
    """`Context.memo`: values stored with their large arrays spilled where the trace is
    mapped from files."""

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self._ctx = ctx

    def __setitem__(self, key: str, value: Any) -> None:
        trace = self._ctx.__dict__.get("trace")  # loaded already, or no large arrays
        if trace is not None and is_mapped(trace.start_ns):
            value = spill_large(value)
        super().__setitem__(key, value)


@dataclass
class Context:
    """What facts are computed from: the worker's report, and lazily its trace and run.

    `load_trace` returns the worker's Trace (memory-mapped from the cache); `load_run`
    returns the reports of every worker of the run (for cluster facts; this worker's
    included). Either may be None when the caller has no such input.
    """

    report: dict[str, Any]
    load_trace: Callable[[], Trace | None] | None = None
    load_run: Callable[[], list[dict[str, Any]]] | None = None
    _values: dict[str, Observed | None] = field(default_factory=dict)
    _reasons: dict[str, str] = field(default_factory=dict)

    @cached_property
    def trace(self) -> Trace | None:
        return self.load_trace() if self.load_trace else None

    @cached_property
    def run_reports(self) -> list[dict[str, Any]]:
        return self.load_run() if self.load_run else [self.report]

    @cached_property
    def memo(self) -> dict[str, Any]:
        """Scratch space for intermediate results that several facts share (op tree, ...).

        Kept for the whole advice: on a trace read from files (a large trace's spilled
        columns, a cached trace) its large arrays go to spill files too (`util.spill`), so
        that what every fact holds does not add up on the heap (10 GB trace: 0.7 GB)."""
        return _Memo(self)

    def get(self, name: str) -> Observed | None:
        """The fact's value and evidence, or None when unavailable (see `reason`)."""
        if name not in self._values:
            self._values[name] = self._compute(name)
        return self._values[name]

    def value(self, name: str) -> Any:
        """The fact's value, or None when unavailable."""
        got = self.get(name)
        return None if got is None else got.value

    def reason(self, name: str) -> str:
        return self._reasons.get(name, "")

    def _compute(self, name: str) -> Observed | None:
        spec = FACTS.get(name)
        if spec is None:
            self._reasons[name] = f"unknown fact {name}"
            return None
        try:
            out = spec.fn(self)
        except Unavailable as exc:
            self._reasons[name] = str(exc)
            return None
        except Exception as exc:  # a fact bug must not take the whole advice down
            log.warning("fact %s failed: %s", name, exc, exc_info=True)
            self._reasons[name] = "could not be computed (an internal error, logged)"
            return None
        if out is None:
            self._reasons[name] = f"needs {spec.needs}"
            return None
        return out if isinstance(out, Observed) else Observed(out)
