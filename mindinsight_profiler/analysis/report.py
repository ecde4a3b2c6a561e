"""The overview report of one worker: its identity, then every registered section.

A plain, JSON-ready dict (microseconds, percentages) that the CLI prints, the cache stores
and the server serves; it is the contract checked against the reference plugin's data. The
sections and their order are those of `analysis.sections.SECTIONS`.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.analysis.operators.stats import OpTree, op_tree
from mindinsight_profiler.analysis.operators.tables import kernel_table, operator_table, rows
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.sections import SECTIONS, SHARED, ReportInputs, SectionSpec
from mindinsight_profiler.formats.registry import spec_of
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.forked import Forked
from mindinsight_profiler.util.heap import release_free_memory

__all__ = ["REPORT_VERSION", "build_report", "device_type", "grouped_tables", "rows"]

#: Sections built in a forked child on large traces, while this process builds the others:
#: the two halves share nothing costly but the steps (found before the fork), and each
#: takes about half of the analysis time (the performance model's per-call work feeds the
#: ledger and the model; the operator tree feeds the operator tables here).
CHILD_SECTIONS = frozenset({"ledger", "window", "perf_model", "memory"})
#: From this many events the child saves more than its start costs (a few milliseconds)...
FORK_MIN_EVENTS = 200_000
#: ... and up to this many the two working sets held at once stay small: beyond, memory
#: is what binds (a 10 GB trace's stage working set is most of a GB), so one process works.
FORK_MAX_EVENTS = 4_000_000

#: Bump when the report gains or changes fields: cached reports of other versions are rebuilt.
#: 11: MindSpore's operator-type rows write `type` first, in the order of `OpTypeRow`.
#: 15: `dynamic_shape` (MindSpore's dynamic_shape_info_*.json).
#: 16: legacy MindSpore folders read their msprof `PROF_*` device timelines (same shape, new
#: content): reports cached before are rebuilt.
#: 17: `warnings`: files skipped or partly read (analysis.input_warnings).
#: 18: `perf_model` (FLOPs, bytes, roofline and MFU: analysis.perf) and `mindspore_flops`.
#: 19: `ledger` (each step's time attributed once: analysis.steps.ledger).
#: 20: `window` (compilation, initialisation, capture, warm-up in the window).
#: 21: `window` also holds MindSpore CPU graph-compile gaps (no compile event is recorded) and
#: `window.limit` (sampled, fragment or toy windows: analysis.steps.window_limits); the
#: ledger's sync_wait includes launches of device-to-host copies into pageable memory;
#: MindData queues leave out their first batch and op queues need 3 samples; communication
#: from host collectives (gloo ranges on a CPU run: source `host`).
#: 22: `ledger.source`; runs timed only by MindSpore's step trace get their ledger from it
#: (analysis.steps.step_trace_ledger) instead of being all untracked.
#: 23: `window.limit.reason_zh` (the zh notice carries the same figures as the English one).
#: 24: data-pipeline verdicts and MindData suggestions in en and zh (`Text`).
#: 25: averages say which steps they cover (`steps.covered` and each average's `covered`).
#: 26: the perf model's explanations in zh too: `perf_model.unavailable_zh`,
#: `perf_model.device.reason_zh` and `warnings_zh`, `perf_model.unknown[].reason_zh` (same
#: names and figures as the English).
REPORT_VERSION = 26


def grouped_tables(
    trace: Trace, operators_by: str = "name", kernels_by: str = "name"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Operator and kernel rows under another grouping (input shapes, call stacks, launch)."""
    tree = op_tree(trace)
    return (
        rows(operator_table(trace, tree, operators_by)),
        rows(kernel_table(trace, tree, kernels_by)),
    )


def framework(fmt: object) -> str:
    """The framework that wrote an input format (for badges and grouping in the dashboard)."""
    spec = spec_of(str(fmt))
    return spec.framework if spec is not None else "unknown"


def device_type(trace: Trace) -> str:
    """`gpu`, `npu` or `cpu`: what the reader saw, else whether the trace holds device work."""
    named = str(trace.meta.get("device_type") or "").lower()
    if named:
        return "npu" if named in ("npu", "ascend") else named
    return "gpu" if bool(is_kind(trace.events["kind"], DEVICE_KINDS).any()) else "cpu"


def build_report(
    trace: Trace,
    top: int | None = None,
    probe: dict[str, Any] | None = None,
    fp_point: str | None = None,
    bp_point: str | None = None,
    tree: OpTree | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> dict[str, Any]:
    """Analyse a trace into the overview report (tables cut to `top` rows when given).

    `probe` is the Profiler's DataLoader probe file of this worker, when there is one;
    `fp_point`/`bp_point` override the step trace's points (else those of `options`, else
    found automatically); `options.device` names the device the performance model measures
    against (else the trace's own). `tree`: the operator tree, when the caller has it already.
    """
    inputs = ReportInputs(trace, top, probe, fp_point, bp_point, options, tree)
    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "source": trace.meta.get("source"),
        "format": trace.meta.get("format"),
        "framework": framework(trace.meta.get("format")),
        "device_type": device_type(trace),
    }
    events = len(trace.events["start_ns"])
    built = _sections(inputs, FORK_MIN_EVENTS <= events <= FORK_MAX_EVENTS)
    report.update((section.key, built[section.key]) for section in SECTIONS)
    return report


#: The order sections are built in (the report keeps `SECTIONS`' order): the readers of each
#: large shared analysis (`sections.SHARED`) one after another, so that one is held at a
#: time. Sections not named here are built last, in their own order.
BUILD_ORDER = (
    "steps", "breakdown_us", "breakdown_per_step_us", "data_pipeline",  # the breakdown
    "ledger", "perf_model",  # the per-call work
    "window", "gpu", "npu", "step_trace", "memory", "communication",
    "op_types", "modules", "operators", "kernels",  # the operator tree
)  # fmt: skip


def _build(inputs: ReportInputs, sections: list[SectionSpec]) -> dict[str, Any]:
    rank = {key: i for i, key in enumerate(BUILD_ORDER)}
    todo = sorted(sections, key=lambda s: rank.get(s.key, len(rank)))  # stable: rest in order
    out = {}
    for i, section in enumerate(todo):
        out[section.key] = section.build(inputs)
        later = set().union(*(s.uses for s in todo[i + 1 :]))
        dropped = [n for n in SHARED if n in inputs.__dict__ and n not in later]
        for name in dropped:  # its last reader is built: hundreds of MB on a large trace
            del inputs.__dict__[name]
        # The pages this stage freed go back to the OS: on a trace of millions of events each
        # stage frees hundreds of MB that glibc would keep resident under the next stage's
        # own working set (util.heap).
        release_free_memory()
    return out


def _sections(inputs: ReportInputs, large: bool) -> dict[str, Any]:
    """Every section's value; on a large trace `CHILD_SECTIONS` are built in a forked child
    meanwhile (util.forked: the same values, computed here when the child cannot be)."""
    if large:
        _ = inputs.steps, inputs.first  # shared by both halves: found once, before the fork
    child = [s for s in SECTIONS if s.key in CHILD_SECTIONS]
    forked = Forked(lambda: _build(inputs, child), use=large)
    built = _build(inputs, [s for s in SECTIONS if s.key not in CHILD_SECTIONS])
    built.update(forked.result())
    return built
