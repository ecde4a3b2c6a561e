"""Facts: MindSpore's data side: the step interval, MindData queues, pipeline ops, CPU use.

They follow MindInsight's definitions (its proposer is what MindSpore users compare with):
queue counts as `MinddataAnalyser.analyse_queue_summary` counts them, the step interval from
the profiler's own average row, CPU use as 100 - idle. Every fact is unavailable, never 0,
when its input is missing, so a rule says "not evaluated".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import PIPELINE_REASONS_ZH, label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.data_pipeline.minddata_rules import MIN_QUEUE_SAMPLES

#: How far (percentage points) user+sys+io+idle of a CPU sample may be from 100 (rounding).
CPU_SUM_TOLERANCE = 5.0


def _section(ctx: Context) -> dict[str, Any]:
    return ctx.report.get("data_pipeline") or {}


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
            **label("interval_step", step=s["step"]),
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
        if q.get("name") != name:
            continue
        if name == "host_queue":  # judged after its first batch (minddata_rules module doc)
            if q["steady_samples"] < MIN_QUEUE_SAMPLES:
                raise Unavailable(
                    f"the MindData host queue has {q['steady_samples']} batch(es) after the "
                    f"first (taken as the pipeline starts): too few to judge (at least "
                    f"{MIN_QUEUE_SAMPLES})"
                )
            n, empty = q["steady_samples"], q["steady_empty"]
            return dict(q, samples=n, empty=empty, empty_rate=empty / n)
        if q.get("samples"):
            return dict(q)
    raise Unavailable(f"needs the MindData {_QUEUE_FILES[name]}")


def _queue_evidence(q: dict[str, Any]) -> tuple[Evidence, ...]:
    text = label(f"{q['name']}_empty", empty=q["empty"], samples=q["samples"])
    rate = float(q["empty_rate"])
    return (Evidence("queue", **text, page="data_pipeline", value=rate, unit="ratio",
                     name=q["name"]),)  # fmt: skip


for _name, _label in (("host_queue", "host queue"), ("chip_queue", "chip (GetNext) queue")):

    def _empty(ctx: Context, name: str = _name, label: str = _label) -> Observed:
        q = _queue(ctx, name)
        return Observed(int(q["empty"]), _queue_evidence(q))

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
        f"Batches at which the MindData {_label} was empty (size 0); the host queue's after "
        "its first (taken as the pipeline starts), judged on 3 batches or more.",
        _needs,
    )(_empty)
    fact(
        f"data.{_short}_queue_batches",
        "count",
        f"Batches (samples) of the MindData {_label} (the host queue's after its first).",
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
    "'<OpType>_<id>' (empty when the pipeline keeps up, including when the queue that "
    "feeds training stays filled; ops sampled under 3 times are not judged); evidence: "
    "each op with its output-queue usage and the advice for its type.",
    "MindData pipeline profiling (minddata_pipeline_raw / pipeline_profiling)",
)
def pipeline_slow_ops(ctx: Context) -> Observed:
    section = _section(ctx)
    ops, verdict = section.get("ops"), section.get("pipeline_verdict")
    if not ops or verdict is None:
        raise Unavailable("needs MindData pipeline profiling (pipeline_profiling_*.json)")
    if verdict.get("bottleneck") == "consumer":
        return Observed([])
    advice = {s["op"]: s for s in verdict["suggestions"]}
    names, items = [], []
    for op in ops:
        if not op["flagged"]:
            continue
        name = f"{op['op_type']}_{op['op_id']}"
        names.append(name)
        items.append(
            Evidence(
                kind="pipeline_op",
                **label(
                    "pipeline_op",
                    name=name,
                    advice=advice[name]["en"] if name in advice else op["reason"],
                    advice_zh=advice[name]["zh"]
                    if name in advice
                    else PIPELINE_REASONS_ZH.get(op["reason"], op["reason"]),
                ),
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
    "Samples in which the sampler recorded nothing (every share 0) are left out, and so are "
    "samples whose user+sys+io+idle is not 100 % (+-5): unavailable when none is left.",
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
    recorded = [s for s in by["idle"] if any(by[k].get(s, 0.0) > 0 for k in shares)]
    if not recorded:
        raise Unavailable("the MindData CPU sampling recorded no machine-wide idle share")
    # user + sys + io + idle is the whole machine: a sample far from 100 % is not a reading
    sums = {s: sum(by[k].get(s, 0.0) for k in shares) for s in recorded}
    samples = [s for s in recorded if abs(sums[s] - 100.0) <= CPU_SUM_TOLERANCE]
    if not samples:
        low, high = min(sums.values()), max(sums.values())
        raise Unavailable(
            f"the MindData CPU sampling is not consistent: user+sys+io+idle add to "
            f"{low:.0f}-{high:.0f} %, not 100 %"
        )
    active = 100.0 - float(np.mean([by["idle"][s] for s in samples]))
    parts = {k: float(np.mean([by[k].get(s, 0.0) for s in samples])) for k in shares}
    text = label("machine_cpu", active=active, samples=len(samples), **parts)
    return Observed(
        active,
        (Evidence(kind="metric", **text, page="data_pipeline", value=active, unit="percent"),),
    )
