"""The report's sections, registered in one place: what each is, how it is built, which
dashboard page shows it and which input formats can have it.

`build_report` builds the sections in this order (the report's key order); the server tells
the dashboard which pages a run has from `pages_for`; so a new section is its analysis
module, its builder here and one `SectionSpec` line, and a new page one `PageSpec` line.
Builders share what several need (steps, breakdown, operator tree, step trace) through
`ReportInputs`, which computes each once, on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

import msgspec
import numpy as np

from mindinsight_profiler.analysis.communication.parallel import parallel_section
from mindinsight_profiler.analysis.communication.section import communication_section
from mindinsight_profiler.analysis.data_pipeline.section import data_pipeline_section
from mindinsight_profiler.analysis.gpu import gpu_summary
from mindinsight_profiler.analysis.input_warnings import input_warnings
from mindinsight_profiler.analysis.memory.section import memory_section
from mindinsight_profiler.analysis.operators.aicpu import aicpu_section
from mindinsight_profiler.analysis.operators.dynamic_shape import dynamic_shape_section
from mindinsight_profiler.analysis.operators.modules import module_section
from mindinsight_profiler.analysis.operators.query import op_types_section
from mindinsight_profiler.analysis.operators.stats import OpTree, op_tree
from mindinsight_profiler.analysis.operators.tables import kernel_table, operator_table, rows
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.perf.mindspore_flops import mindspore_flops
from mindinsight_profiler.analysis.perf.op_work import OpWork, op_work
from mindinsight_profiler.analysis.perf.section import perf_model_section
from mindinsight_profiler.analysis.steps.boundaries import Steps, averaged_from, find_steps
from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES, Breakdown, step_breakdown
from mindinsight_profiler.analysis.steps.covered import steps_covered
from mindinsight_profiler.analysis.steps.ledger import COMPUTE_PARTS, step_ledger
from mindinsight_profiler.analysis.steps.ledger import PARTS as LEDGER_PARTS
from mindinsight_profiler.analysis.steps.npu_section import npu_section
from mindinsight_profiler.analysis.steps.step_trace import step_trace_section
from mindinsight_profiler.analysis.steps.window import KINDS as WINDOW_KINDS
from mindinsight_profiler.analysis.steps.window import profiled_window
from mindinsight_profiler.analysis.steps.window_limits import window_limit
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.heap import release_free_memory

T = TypeVar("T")


def released(value: T) -> T:
    """`value`, once the memory its analysis freed is handed back to the OS: the section
    that asked for it then works on top of what is live, not of freed pages glibc kept
    (hundreds of MB on a trace of millions of events, see util.heap)."""
    release_free_memory()
    return value


@dataclass
class ReportInputs:
    """What the section builders read: the trace, the caller's options, and the analyses
    several sections share (each computed once, when a builder first asks for it)."""

    trace: Trace
    top: int | None = None
    probe: dict[str, Any] | None = None
    fp_point: str | None = None
    bp_point: str | None = None
    options: Options = DEFAULT_OPTIONS
    given_tree: OpTree | None = None

    @cached_property
    def steps(self) -> Steps:
        return find_steps(self.trace)

    @cached_property
    def breakdown(self) -> Breakdown:
        return released(step_breakdown(self.trace, self.steps))

    @cached_property
    def tree(self) -> OpTree:
        return self.given_tree if self.given_tree is not None else released(op_tree(self.trace))

    @cached_property
    def work(self) -> OpWork:
        """Work of every operator call (the performance model and the ledger share it)."""
        return released(op_work(self.trace))

    @cached_property
    def first(self) -> int:
        """Index of the first step the averages cover (MindSpore leaves out the first)."""
        return averaged_from(self.trace, len(self.steps))

    @cached_property
    def step_trace(self) -> dict[str, Any] | None:
        return step_trace_section(
            self.trace, self.fp_point, self.bp_point, self.options.points, self.first
        )

    def cut(self, table: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return table[: self.top] if self.top else table


def _steps(x: ReportInputs) -> dict[str, Any]:
    steps = x.steps
    durations = (steps.duration_ns / 1000.0).tolist()
    return {
        "count": len(steps),
        "names": steps.names,
        "from_profiler_steps": steps.from_profiler_steps,
        "start_ns": steps.start_ns.tolist(),
        "durations_us": durations,
        "averaged_from": x.first,
        "average_us": float(np.mean(durations[x.first :])) if durations else 0.0,
        "covered": steps_covered(steps.names, steps.names[x.first :], steps.names[: x.first]),
    }


def _breakdown_us(x: ReportInputs) -> dict[str, float]:
    avg = x.breakdown.average_ns(x.first)
    return {c: avg[c] / 1000.0 for c in CATEGORIES}


def _breakdown_per_step_us(x: ReportInputs) -> list[dict[str, float]]:
    return [
        {c: v / 1000.0 for c, v in zip(CATEGORIES, row, strict=True)}
        for row in x.breakdown.per_step_ns.tolist()
    ]


def _ledger(x: ReportInputs) -> dict[str, Any] | None:
    if not len(x.steps):
        return None
    ledger = step_ledger(x.trace, x.steps, x.work)

    def us(rows: np.ndarray) -> list[list[float]]:
        return (rows / 1000.0).tolist()

    def average(rows: np.ndarray, names: tuple[str, ...]) -> dict[str, float]:
        kept = rows[x.first :] if len(rows) > x.first else rows[:0]
        mean = kept.mean(axis=0) / 1000.0 if len(kept) else np.zeros(len(names))
        return {n: float(v) for n, v in zip(names, mean.tolist(), strict=True)}

    return {
        "parts": list(LEDGER_PARTS),
        "per_step_us": us(ledger.per_step_ns),
        "average_us": average(ledger.per_step_ns, LEDGER_PARTS),
        "compute_parts": list(COMPUTE_PARTS),
        "compute_per_step_us": us(ledger.compute_ns),
        "compute_average_us": average(ledger.compute_ns, COMPUTE_PARTS),
        "averaged_from": x.first,
        "source": ledger.source,
    }


def _window(x: ReportInputs) -> dict[str, Any] | None:
    if not len(x.steps):
        return None
    window = profiled_window(x.trace, x.steps)
    limit = window_limit(x.trace, x.steps)
    total_ns = float(x.steps.duration_ns.sum())
    per_kind = window.per_step_ns.sum(axis=0)
    in_window = window.per_step_ns.sum(axis=1)
    return {
        "kinds": list(WINDOW_KINDS),
        "per_step_us": (window.per_step_ns / 1000.0).tolist(),
        "total_us": {k: float(v) / 1000.0 for k, v in zip(WINDOW_KINDS, per_kind, strict=True)},
        "share": {
            k: float(v) / total_ns if total_ns else 0.0
            for k, v in zip(WINDOW_KINDS, per_kind, strict=True)
        },
        "window_share": float(per_kind.sum()) / total_ns if total_ns else 0.0,
        "longest": {
            k: {"name": name, "start_ns": a, "end_ns": b, "us": (b - a) / 1000.0}
            for k, (name, a, b) in window.longest.items()
        },
        "steady_steps": np.flatnonzero(in_window < 0.01 * x.steps.duration_ns).tolist(),
        "limit": None
        if limit is None
        else {
            "kind": limit.kind,
            "reason": limit.reason,
            "reason_zh": limit.reason_zh,
        },
    }


def _gpu(x: ReportInputs) -> dict[str, Any] | None:
    steps = x.steps
    return (
        gpu_summary(x.trace, int(steps.start_ns[0]), int(steps.end_ns[-1])) if len(steps) else None
    )


def _memory(x: ReportInputs) -> dict[str, Any] | None:
    """The memory section without the per-allocation columns (large; served on request)."""
    section = memory_section(x.trace)
    if section is not None:
        for device in section["devices"]:
            pairs = device.get("pairs")
            if isinstance(pairs, dict):
                device["pairs"] = {"count": pairs.get("count"), "live": pairs.get("live")}
    return section


def _builtins(struct: object) -> Any:
    """A section an analysis returns as a struct, as the plain data the report holds."""
    return None if struct is None else msgspec.to_builtins(struct)


@dataclass(frozen=True)
class SectionSpec:
    """One report section: its key, its builder, and which of the shared analyses of
    `ReportInputs` it reads (`SHARED`: each is dropped once the last section that reads it
    is built)."""

    key: str
    build: Callable[[ReportInputs], Any]
    uses: frozenset[str] = frozenset()


#: The large analyses sections share (`ReportInputs` properties): on a trace of 20 M events
#: the operator tree and the per-call work are hundreds of MB each, so they are built in an
#: order that needs one at a time (`BUILD_ORDER`) and dropped after their last reader.
SHARED = ("breakdown", "work", "tree")


_TREE = frozenset({"tree"})

#: The analysed sections, in the report's key order (after its identity keys).
SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("steps", _steps),
    SectionSpec("breakdown_us", _breakdown_us, uses=frozenset({"breakdown"})),
    SectionSpec("breakdown_per_step_us", _breakdown_per_step_us, uses=frozenset({"breakdown"})),
    SectionSpec("ledger", _ledger, uses=frozenset({"work"})),
    SectionSpec("window", _window),
    SectionSpec("gpu", _gpu),
    SectionSpec("npu", lambda x: npu_section(x.trace, x.steps, x.first)),
    SectionSpec("op_types", lambda x: op_types_section(x.trace, x.tree), uses=_TREE),
    SectionSpec("step_trace", lambda x: x.step_trace),
    SectionSpec(
        "data_pipeline",
        lambda x: data_pipeline_section(x.trace, x.probe, (x.steps, x.breakdown)),
        uses=frozenset({"breakdown"}),
    ),
    SectionSpec("memory", _memory),
    SectionSpec("communication", lambda x: communication_section(x.trace, x.steps.names, x.first)),
    SectionSpec("modules", lambda x: module_section(x.trace, x.tree), uses=_TREE),
    SectionSpec("operators", lambda x: x.cut(rows(operator_table(x.trace, x.tree))), uses=_TREE),
    SectionSpec("kernels", lambda x: x.cut(rows(kernel_table(x.trace, x.tree))), uses=_TREE),
    SectionSpec("aicpu", lambda x: aicpu_section(x.trace)),
    SectionSpec("dynamic_shape", lambda x: dynamic_shape_section(x.trace)),
    SectionSpec(
        "perf_model",
        lambda x: perf_model_section(x.trace, x.steps, x.first, x.options.device, x.work),
        uses=frozenset({"work"}),
    ),
    SectionSpec("mindspore_flops", lambda x: _builtins(mindspore_flops(x.trace))),
    SectionSpec("distributed", lambda x: x.trace.meta.get("distributed_info")),
    SectionSpec("parallel", lambda x: parallel_section(x.trace, x.step_trace)),
    SectionSpec("warnings", lambda x: input_warnings(x.trace)),
)


@dataclass(frozen=True)
class PageSpec:
    """A dashboard page of a run: the sections it shows, and the input formats that can
    have it (None: every format). The dashboard's menu lists the pages of a run's formats."""

    name: str
    sections: tuple[str, ...] = ()
    formats: frozenset[str] | None = None


#: The pages of a run, in menu order (`ui/src/router.ts` has one route per name).
PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", ("steps", "breakdown_us", "gpu", "npu", "op_types")),
    PageSpec("step-trace", ("step_trace",)),
    PageSpec("operators", ("operators", "op_types", "aicpu", "dynamic_shape")),
    PageSpec("kernels", ("kernels",)),
    PageSpec("roofline", ("perf_model", "mindspore_flops")),
    PageSpec("data-pipeline", ("data_pipeline",)),
    PageSpec("memory", ("memory",)),
    PageSpec("communication", ("communication",)),
    PageSpec("cluster", ("communication", "parallel")),
    # `nn.Module` times come from PyTorch's `with_stack` events: no MindSpore input has them.
    PageSpec("modules", ("modules",), frozenset({FormatTag.KINETO, FormatTag.ASCEND_PT})),
    PageSpec("diff"),
    PageSpec("timeline"),
)


def pages_for(formats: Iterable[str]) -> list[str]:
    """The pages a run whose inputs have these formats can show, in menu order."""
    have = set(formats)
    return [p.name for p in PAGES if p.formats is None or have & p.formats]
