"""Facts: the data pipeline (PyTorch DataLoader waits, MindData queues and pipeline ops).

MindData facts follow MindInsight's definitions (its proposer is what MindSpore users
compare with): queue counts as `MinddataAnalyser.analyse_queue_summary` counts them, the
step interval from the profiler's own average row, CPU use as 100 - idle. Every fact is
unavailable, never 0, when its input is missing, so a rule says "not evaluated".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import (
    host_range_mask,
    is_dataloader_name,
    is_step_name,
)

#: At most this many slow DataLoader calls are attached as evidence.
TOP_CALLS = 10
_NO_LOADER = "needs DataLoader events in a PyTorch trace"
_SINGLE, _MULTI = "_SingleProcessDataLoaderIter", "_MultiProcessingDataLoaderIter"


def _section(ctx: Context) -> dict[str, Any]:
    return ctx.report.get("data_pipeline") or {}


def _data_wait(ctx: Context) -> dict[str, Any]:
    """The PyTorch data-wait section, only when the trace has DataLoader calls.

    Without them the section's share is 0 by construction (nothing was measured), and a
    MindSpore section's wait is GetNext's, which the MindData queue facts judge instead.
    """
    section = _section(ctx).get("data_wait")
    if not section or section.get("share") is None or _section(ctx)["framework"] != "pytorch":
        raise Unavailable(_NO_LOADER)
    _loader_calls(ctx)
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


def _loader_calls(ctx: Context) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Start, end (ns) and name of every `DataLoader.__next__` range (memoised)."""
    if "data.loader_calls" not in ctx.memo:
        trace = ctx.trace
        if trace is None:
            raise Unavailable(_NO_LOADER)
        idx = np.flatnonzero(trace.names_matching(is_dataloader_name) & host_range_mask(trace))
        if len(idx) == 0:
            raise Unavailable(_NO_LOADER)
        ev = trace.events
        names = trace.strings.lookup(ev["name"][idx])
        ctx.memo["data.loader_calls"] = (ev["start_ns"][idx], ev["end_ns"][idx], names)
    out: tuple[np.ndarray, np.ndarray, list[str]] = ctx.memo["data.loader_calls"]
    return out


@fact(
    "data.loader_iterator",
    "text",
    "Which DataLoader iterator the trace shows: 'single_process' (_SingleProcessDataLoaderIter, "
    "num_workers=0: batches are loaded in the training process), 'multi_process' "
    "(_MultiProcessingDataLoaderIter) or 'other' (DataPipes, custom iterators).",
    "DataLoader events in a PyTorch trace",
)
def loader_iterator(ctx: Context) -> Observed:
    _, _, names = _loader_calls(ctx)
    # A loader re-created with other settings mid-trace: the single-process one is the finding.
    kind, name = "other", names[0]
    for k, marker in (("multi_process", _MULTI), ("single_process", _SINGLE)):
        hit = next((n for n in names if marker in n), None)
        if hit is not None:
            kind, name = k, hit
    label = f"DataLoader iterator {name} ({len(names)} calls)"
    return Observed(kind, (Evidence(kind="metric", label=label, page="timeline", name=name),))


@fact(
    "data.loader_call_max_us",
    "us",
    "Duration of the slowest DataLoader __next__ call (one batch fetch), microseconds; "
    "evidence: the slowest calls with their time ranges.",
    "DataLoader events in a PyTorch trace",
)
def loader_call_max_us(ctx: Context) -> Observed:
    start, end, names = _loader_calls(ctx)
    dur = end - start
    trace = ctx.trace
    assert trace is not None  # _loader_calls needs it
    # The host's ProfilerStep ranges (the report's steps may end on the device's clock).
    ps = np.flatnonzero(trace.names_matching(is_step_name))
    ps = ps[np.argsort(trace.events["start_ns"][ps])]
    step_start, step_end = trace.events["start_ns"][ps], trace.events["end_ns"][ps]
    step_names = [n.removeprefix("ProfilerStep#") for n in trace.strings.lookup(trace.name[ps])]
    items = []
    for i in np.argsort(-dur, kind="stable")[:TOP_CALLS].tolist():
        k = int(np.searchsorted(step_start, start[i], side="right")) - 1
        inside = 0 <= k < len(step_names) and end[i] <= step_end[k]
        step = step_names[k] if inside else None
        items.append(
            Evidence(
                kind="time_range",
                label=f"DataLoader __next__ {dur[i] / 1e3:,.0f} us"
                + (f" in step {step}" if step else ""),
                page="timeline",
                value=float(dur[i]) / 1e3,
                unit="us",
                step=step,
                name=names[i],
                start_ns=int(start[i]),
                end_ns=int(end[i]),
            )
        )
    return Observed(float(dur.max()) / 1e3, tuple(items))


@fact(
    "data.iteration_interval_us",
    "us",
    "MindSpore step trace: average iteration interval (step start to the first forward op: "
    "waiting for data and launching the graph), microseconds. As MindInsight reads it: the "
    "profiler's own average row when the file has one, else the average of the step rows.",
    "a MindSpore (Ascend/GPU) step trace",
)
def iteration_interval_us(ctx: Context) -> Observed:
    if not str(ctx.report.get("format", "")).startswith("mindspore"):
        # In PyTorch eager the time before the first forward op always includes the host's
        # batch fetch and copies; the 0.5 ms graph+sink threshold does not apply there, and
        # data.wait_share measures the wait itself.
        raise Unavailable("needs a MindSpore step trace (graph and dataset-sink mode)")
    st = ctx.report.get("step_trace") or {}
    if not st.get("steps"):
        raise Unavailable("needs a MindSpore step trace (step_trace_raw_*_detail_time.csv)")
    origin = int(st.get("origin_ns") or 0)
    items = tuple(
        Evidence(
            kind="step",
            label=f"iteration interval of step {s['step']}",
            page="step_trace",
            value=float(s["iteration_interval_us"]),
            unit="us",
            step=str(s["step"]),
            start_ns=origin + int(s["start_us"] * 1e3),
            end_ns=origin + int(s["fp_us"] * 1e3),
        )
        for s in sorted(st["steps"], key=lambda s: -s["iteration_interval_us"])
    )
    written = ((ctx.trace.meta if ctx.trace else {}) or {}).get("step_trace_profiler_average_ns")
    if written and "iteration_interval" in written:
        return Observed(written["iteration_interval"] / 1e3, items)
    return Observed(float(st["average"]["iteration_interval_us"]), items)


_QUEUE_FILES = {
    "host_queue": "host queue (device_queue_profiling or dataset_iterator_profiling file)",
    "chip_queue": "chip queue (GetNext: minddata_aicpu or minddata_getnext_profiling file)",
}


def _queue(ctx: Context, name: str) -> dict[str, Any]:
    for q in _section(ctx).get("queues") or []:
        if q.get("name") == name and q.get("samples"):
            return dict(q)
    raise Unavailable(f"needs the MindData {_QUEUE_FILES[name]}")


def _queue_evidence(q: dict[str, Any], label: str) -> tuple[Evidence, ...]:
    text = f"{label}: empty in {q['empty']} of {q['samples']} batches"
    rate = float(q["empty_rate"])
    return (Evidence("queue", text, "data_pipeline", rate, "ratio", name=q["name"]),)


for _name, _label in (("host_queue", "host queue"), ("chip_queue", "chip (GetNext) queue")):

    def _empty(ctx: Context, name: str = _name, label: str = _label) -> Observed:
        q = _queue(ctx, name)
        return Observed(int(q["empty"]), _queue_evidence(q, label))

    def _samples(ctx: Context, name: str = _name) -> int:
        return int(_queue(ctx, name)["samples"])

    def _share(ctx: Context, name: str = _name) -> float:
        q = _queue(ctx, name)
        return int(q["empty"]) / int(q["samples"])

    _needs = f"the MindData {_label}"
    _short = _name.split("_")[0]
    fact(
        f"data.{_short}_queue_empty",
        "count",
        f"Batches at which the MindData {_label} was empty (size 0).",
        _needs,
    )(_empty)
    fact(
        f"data.{_short}_queue_batches",
        "count",
        f"Batches (samples) of the MindData {_label}.",
        _needs,
    )(_samples)
    fact(
        f"data.{_short}_queue_empty_share",
        "ratio",
        f"Share (0..1) of batches at which the MindData {_label} was empty.",
        _needs,
    )(_share)


@fact(
    "data.pipeline_slow_ops",
    "list",
    "MindData pipeline ops flagged as bottlenecks by MindInsight's queue-usage rule, as "
    "'<OpType>_<id>' (empty when the pipeline keeps up); evidence: each op with its "
    "output-queue usage and the advice for its type.",
    "MindData pipeline profiling (minddata_pipeline_raw / pipeline_profiling)",
)
def pipeline_slow_ops(ctx: Context) -> Observed:
    section = _section(ctx)
    ops, verdict = section.get("ops"), section.get("pipeline_verdict")
    if not ops or verdict is None:
        raise Unavailable("needs MindData pipeline profiling (pipeline_profiling_*.json)")
    if verdict.get("bottleneck") == "consumer":
        return Observed([])
    advice = {s.split(":", 1)[0]: s.split(":", 1)[1].strip() for s in verdict["suggestions"]}
    names, items = [], []
    for op in ops:
        if not op["flagged"]:
            continue
        name = f"{op['op_type']}_{op['op_id']}"
        names.append(name)
        items.append(
            Evidence(
                kind="pipeline_op",
                label=f"{name}: {advice.get(name, op['reason'])}",
                page="data_pipeline",
                value=op["queue_usage"],
                unit="ratio",
                name=name,
            )
        )
    return Observed(names, tuple(items))


@fact(
    "data.cpu_active_pct",
    "percent",
    "Average CPU use of the whole machine while MindData ran, percent (0..100), as "
    "MindInsight defines it: 100 minus the idle share (so I/O wait counts as busy). "
    "Samples in which the sampler recorded nothing (every share 0) are left out.",
    "MindData CPU sampling (minddata_cpu_utilization_*.json)",
)
def cpu_active_pct(ctx: Context) -> Observed:
    trace = ctx.trace
    t = None if trace is None else trace.tables.get("minddata_cpu")
    if trace is None or t is None or len(t["series"]) == 0:
        raise Unavailable("needs MindData CPU sampling (minddata_cpu_utilization_*.json)")
    series = np.array(trace.strings.lookup(t["series"]), dtype=object)
    shares = ("user", "sys", "io", "idle")
    by: dict[str, dict[int, float]] = {k: {} for k in shares}
    for k in shares:
        pick = series == f"device.{k}_utilization"
        by[k] = dict(zip(t["sample"][pick].tolist(), t["value"][pick].tolist(), strict=True))
    samples = [s for s in by["idle"] if any(by[k].get(s, 0.0) > 0 for k in shares)]
    if not samples:
        raise Unavailable("the MindData CPU sampling recorded no machine-wide idle share")
    active = 100.0 - float(np.mean([by["idle"][s] for s in samples]))
    parts = {k: float(np.mean([by[k].get(s, 0.0) for s in samples])) for k in shares}
    label = (
        f"machine CPU {active:.0f} % busy over {len(samples)} samples (user {parts['user']:.0f}, "
        f"sys {parts['sys']:.0f}, iowait {parts['io']:.0f}, idle {parts['idle']:.0f} %)"
    )
    return Observed(
        active,
        (Evidence(kind="metric", label=label, page="data_pipeline", value=active, unit="percent"),),
    )
