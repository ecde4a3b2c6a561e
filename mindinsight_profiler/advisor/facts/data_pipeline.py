"""Facts: the PyTorch data pipeline (DataLoader waits and calls); MindData is in minddata.py.

Every fact is unavailable, never 0, when the trace has no DataLoader events, so a rule says
"not evaluated" on inputs that cannot tell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.labels import label
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
    return Observed(float(section["share"]), step_evidence(ctx.report, per_step, "data_wait_step"))


@fact(
    "data.wait_us",
    "us",
    "Average exposed data wait per step, microseconds (data.wait_share x step.average_us).",
    "DataLoader events in a PyTorch trace",
)
def wait_us(ctx: Context) -> float | None:
    share, average = ctx.value("data.wait_share"), ctx.value("step.average_us")
    return None if share is None or average is None else share * average


@fact(
    "data.wait_share_typical",
    "ratio",
    "Median over steps of each step's exposed data wait divided by that step's duration: "
    "the share in a typical step. A one-off step many times the others (a preempted or "
    "garbage-collecting step) dilutes data.wait_share, the share of the mean step, although "
    "the loop waits as long in every step.",
    "DataLoader events in a PyTorch trace",
)
def wait_share_typical(ctx: Context) -> float | None:
    section = _data_wait(ctx)
    per_step = section.get("exposed_per_step_us") or section.get("per_step_us") or []
    durations = (ctx.report.get("steps") or {}).get("durations_us") or []
    pairs = zip(per_step, durations, strict=False)
    shares = [float(w) / float(d) for w, d in pairs if d and w is not None]
    return float(np.median(shares)) if shares else None


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
    text = label("loader_iterator", name=name, calls=len(names))
    return Observed(kind, (Evidence(kind="metric", **text, page="timeline", name=name),))


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
                **label("loader_next_step" if step else "loader_next", us=dur[i] / 1e3, step=step),
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
    "data.loader_ready_rate",
    "ratio",
    "Share (0..1) of batch fetches at which the DataLoader already had a batch ready, as the "
    "Profiler's DataLoader probe saw its queue (Profiler.wrap(loader)); a wait despite ready "
    "batches is the batch's transfer into the training process, not its loading.",
    "the Profiler's DataLoader probe (a multi-process loader wrapped with Profiler.wrap)",
)
def loader_ready_rate(ctx: Context) -> float:
    queues = _section(ctx).get("queues") or []
    loader = next((q for q in queues if q.get("name") == "loader_queue"), None)
    if not loader or not loader.get("samples"):
        raise Unavailable("needs the Profiler's DataLoader probe of a multi-process loader")
    return 1.0 - float(loader["empty"]) / float(loader["samples"])
