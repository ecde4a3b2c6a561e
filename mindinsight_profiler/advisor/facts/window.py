"""Facts: what share of the profiled window is one-off work (the report's `window` section).

Compilation, initialisation, graph capture and warm-up do not recur in steady state, so a
window made mostly of them says little about training: the window rules say so, and the
engine keeps steady-state rules off such a window (`advisor.engine`, rule `steady_state`).
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

NEEDS = "steps in the trace"


def _window(ctx: Context) -> dict[str, Any]:
    window = ctx.report.get("window")
    if not window:
        raise Unavailable("needs at least one step")
    return dict(window)


def _evidence(window: dict[str, Any], kinds: tuple[str, ...]) -> tuple[Evidence, ...]:
    out = []
    for kind in kinds:
        event = window["longest"].get(kind)
        if event:
            out.append(Evidence(
                kind="time_range", page="timeline", value=event["us"], unit="us",
                start_ns=event["start_ns"], end_ns=event["end_ns"],
                **label("window_event", kind=kind, name=event["name"], ms=event["us"] / 1000),
            ))  # fmt: skip
    return tuple(out)


@fact("window.share", "ratio", "Share (0..1) of the profiled steps' time in one-off work: "
      "compilation, initialisation, graph capture and warm-up (analysis/steps/window.py); "
      "evidence: the longest such events.", NEEDS)  # fmt: skip
def window_share(ctx: Context) -> Observed:
    window = _window(ctx)
    return Observed(float(window["window_share"]), _evidence(window, tuple(window["kinds"])))


def _kind_fact(kind: str, what: str) -> None:
    @fact(f"window.{kind}_share", "ratio", f"Share (0..1) of the profiled steps' time in {what}; "
          "evidence: its longest event.", NEEDS)  # fmt: skip
    def share(ctx: Context) -> Observed:
        window = _window(ctx)
        return Observed(float(window["share"][kind]), _evidence(window, (kind,)))

    @fact(f"window.{kind}_us", "us", f"Time of the profiled steps in {what}, microseconds "
          "(all steps together: it does not recur).", NEEDS)  # fmt: skip
    def total(ctx: Context) -> float:
        return float(_window(ctx)["total_us"][kind])


@fact("window.limit", "text", "Why the window cannot support steady-state judgements: "
      "'sampled' (events were dropped), 'fragment' (a handful of events), 'toy' (the device "
      "works under 0.1 ms per step), or 'none' (analysis/steps/window_limits.py); "
      "steady-state rules are not evaluated unless it is 'none'.", NEEDS)  # fmt: skip
def window_limit(ctx: Context) -> str:
    limit = _window(ctx).get("limit")
    return str(limit["kind"]) if limit else "none"


@fact("window.limit_reason", "text", "The window limit's reason, one sentence with its "
      "figures ('' when the window can be judged).", NEEDS)  # fmt: skip
def window_limit_reason(ctx: Context) -> str:
    limit = _window(ctx).get("limit")
    return str(limit["reason"]) if limit else ""


@fact("window.limit_reason_zh", "text", "window.limit_reason in Chinese, with the same "
      "figures ('' when the window can be judged).", NEEDS)  # fmt: skip
def window_limit_reason_zh(ctx: Context) -> str:
    limit = _window(ctx).get("limit")
    return str(limit.get("reason_zh") or "") if limit else ""


_kind_fact("compile", "compilation (torch.compile / Dynamo / Inductor / Triton)")
_kind_fact("initialisation", "initialisation (context set-up, module loads, first launches)")
_kind_fact("capture", "CUDA/HIP graph capture")
_kind_fact("warmup", "ranges the program names as warm-up")
