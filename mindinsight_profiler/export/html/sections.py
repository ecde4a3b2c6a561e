"""What each section of the HTML report shows, as plain data for the template.

Each builder reads the bundle's report (the dict the API's routes cut their answers from)
and returns the section's figures already formatted (`fmt`, the dashboard's rules), or
None when the input has no such data: the template then prints a one-line note instead.
The figures are the API's: the overview's are those of `server/routes/sections.py`
`overview` as `OverviewPage.vue` prints them (e.g. a breakdown part's percent is its time
over the average step, the memory peak the largest peak allocated, else reserved).
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.export.html import fmt, svg, tables
from mindinsight_profiler.export.html.texts import (
    BOTTLENECK,
    BREAKDOWN,
    NPU,
    PARTS,
    covered_text,
    lang_key,
    pick,
)

Figure = tuple[str, str, str]  # (test id, label, formatted value)


def _present(d: dict[str, Any], keys: list[str]) -> list[str]:
    return [k for k in keys if (d.get(k) or 0) > 0]


def memory_peak(report: dict[str, Any]) -> tuple[str, int] | None:
    """The overview's memory peak: the largest peak allocated (else reserved) of a device."""
    best: tuple[str, int] | None = None
    for d in (report.get("memory") or {}).get("devices") or []:
        peak = d.get("peak_allocated") or d.get("peak_reserved")
        if peak and (best is None or peak["bytes"] > best[1]):
            best = (str(d["device"]), peak["bytes"])
    return best


def overview(report: dict[str, Any], w: dict[str, str], lang: str) -> dict[str, Any] | None:
    steps = report.get("steps") or {}
    if not steps.get("count"):
        return None
    figures: list[Figure] = [
        ("steps", w["steps"], str(steps["count"])),
        ("avg-step", w["avg_step"], fmt.us(steps["average_us"])),
    ]
    perf = report.get("perf_model")
    if perf and perf["totals"].get("mfu") is not None:
        figures.append(("mfu", w["mfu"], fmt.share(perf["totals"]["mfu"])))
    if report.get("gpu"):
        figures.append(("utilization", w["utilization"], fmt.pct(report["gpu"]["utilization"])))
    wait = ((report.get("data_pipeline") or {}).get("data_wait") or {}).get("share")
    if wait is not None:
        figures.append(("data-wait", w["data_wait"], fmt.share(wait)))
    window = report.get("window") or {}
    if any(v > 0 for v in (window.get("share") or {}).values()):
        figures.append(("one-off", w["window_share"], fmt.share(window["window_share"])))
    peak = memory_peak(report)
    if peak:
        figures.append(("memory-peak", f"{w['memory_peak']} ({peak[0]})", fmt.nbytes(peak[1])))
    names = BREAKDOWN[lang_key(lang)]
    b = report.get("breakdown_us") or {}
    keys = _present(b, list(names))
    average = steps["average_us"]
    rows = [(k, names[k], fmt.us(b[k]), fmt.share(b[k] / average if average else None))
            for k in keys]  # fmt: skip
    all_steps = report.get("breakdown_per_step_us") or []
    per_step = all_steps[: tables.CHART_STEPS]
    colors = [svg.PALETTE[i % len(svg.PALETTE)] for i in range(len(keys))]
    series = [svg.Series(names[k], c, [r.get(k) or 0.0 for r in per_step])
              for k, c in zip(keys, colors, strict=True)]  # fmt: skip
    chart = svg.stacked_bars(steps["names"][: len(per_step)], series, w["time_axis"])
    legend = [(s.label, s.color) for s in series]
    return {"figures": figures, "covered": covered_text(steps.get("covered"), lang),
            "rows": rows, "chart": chart if per_step else None, "legend": legend,
            "chart_note": _chart_note(len(all_steps), w)}  # fmt: skip


def _chart_note(steps: int, w: dict[str, str]) -> str | None:
    """Said under a per-step chart that shows the first steps only."""
    return (
        w["chart_cap"].format(n=tables.CHART_STEPS, total=steps)
        if steps > tables.CHART_STEPS
        else None
    )


def ledger(
    report: dict[str, Any], advice: Advice, w: dict[str, str], lang: str
) -> dict[str, Any] | None:
    """The average step's parts (the advisor's ledger, as its bar shows it: shares of the
    parts' sum) and the findings' combined saving."""
    parts = advice.ledger_us or (report.get("ledger") or {}).get("average_us")
    if not parts:
        return None
    names = PARTS[lang_key(lang)]
    order = [p for p in names if p in parts] + [p for p in parts if p not in names]
    step = sum(parts[p] for p in order)
    if step <= 0:
        return None
    rows = [(p, names.get(p, p), svg.PART_COLORS.get(p, svg.OTHER_COLOR), fmt.us(parts[p]),
             fmt.share(parts[p] / step)) for p in order]  # fmt: skip
    bar = svg.hbar([(str(r[1]), r[2], parts[r[0]], f"{r[3]}, {r[4]}") for r in rows])
    combined = None
    if advice.combined_saving_us:
        combined = w["combined"].format(time=fmt.us(advice.combined_saving_us),
                                        share=fmt.share(advice.combined_saving_share))  # fmt: skip
    return {"step": fmt.us(step), "rows": rows, "bar": bar, "combined": combined}


def npu_steps(report: dict[str, Any], lang: str) -> dict[str, Any] | None:
    """Ascend's own step view (step_trace_time.csv) as the overview's card shows it: each
    figure's average and its share of the stage."""
    npu = report.get("npu")
    if not npu or not npu.get("average"):
        return None
    t, avg = NPU[lang_key(lang)], npu["average"]
    stage = avg.get("stage_us")
    keys = [k for k in t if k.endswith("_us")]
    rows = [(k, t[k], fmt.us(avg.get(k)), fmt.share(avg[k] / stage if stage else None))
            for k in keys]  # fmt: skip
    return {"title": t["title"], "of_stage": t["of_stage"], "rows": rows,
            "steps": len(npu.get("average_steps") or [])}  # fmt: skip


def step_trace(report: dict[str, Any], w: dict[str, str], lang: str) -> dict[str, Any] | None:
    s = report.get("step_trace")
    npu = npu_steps(report, lang)
    if not s or not s.get("steps"):
        return {"npu": npu, "fp": None, "table": None} if npu else None
    avg = s["average"]
    stages = [("iteration_interval_us", w["iteration_interval"]),
              ("fp_and_bp_us", w["fp_and_bp"]), ("tail_us", w["tail"])]  # fmt: skip
    rows = s["steps"][: tables.CHART_STEPS]
    series = [svg.Series(label, svg.PALETTE[i], [r.get(k) or 0.0 for r in rows])
              for i, (k, label) in enumerate(stages)]  # fmt: skip
    return {
        "npu": npu, "fp": s["fp_point"]["name"], "bp": s["bp_point"]["name"],
        "average": [(f"avg-{k}", f"{w['average']} · {label}", fmt.us(avg.get(k)))
                    for k, label in [("total_us", w["total"]), *stages]],
        "covered": covered_text(avg.get("covered"), lang),
        "chart": svg.stacked_bars([str(r["step"]) for r in rows], series, w["time_axis"]),
        "chart_note": _chart_note(len(s["steps"]), w),
        "legend": [(x.label, x.color) for x in series],
        "table": tables.step_trace_table(s, w),
    }  # fmt: skip


def data_pipeline(report: dict[str, Any], w: dict[str, str], lang: str) -> dict[str, Any] | None:
    d = report.get("data_pipeline")
    if not d:
        return None
    verdict = d.get("verdict")
    wait = d.get("data_wait") or {}
    loader = wait.get("loader_share")
    return {
        "verdict": BOTTLENECK[lang_key(lang)].get(verdict["bottleneck"], verdict["bottleneck"])
        if verdict else w["no_verdict"],
        "ok": bool(verdict) and verdict["bottleneck"] == "none",
        "rule": pick(verdict.get("rule"), lang) if verdict else "",
        "wait": fmt.us(wait.get("average_us")),
        "loader": fmt.share(loader) if loader is not None else None,
        "share": fmt.share(wait["share"]) if wait.get("share") is not None else None,
        "covered": covered_text(wait.get("covered"), lang),
        "queues": tables.queues_table(d["queues"], w) if d.get("queues") else None,
    }  # fmt: skip


def memory(report: dict[str, Any], w: dict[str, str]) -> dict[str, Any] | None:
    devices = (report.get("memory") or {}).get("devices") or []
    return {"table": tables.memory_table(devices, w)} if devices else None


def communication(report: dict[str, Any], w: dict[str, str], lang: str) -> dict[str, Any] | None:
    c = report.get("communication")
    dist = report.get("distributed")
    if not c and not dist:
        return None
    facts: list[tuple[str, str]] = []
    if dist:
        rank = dist.get("rank")
        facts += [(w["rank"], fmt.DASH if rank is None else str(rank)),
                  (w["backend"], str(dist.get("backend") or fmt.DASH))]  # fmt: skip
        if dist.get("world_size"):
            facts.append((w["world_size"], str(dist["world_size"])))
    steps = (c or {}).get("steps") or []
    if steps:
        n = len(steps)
        for key, label in (("communication_us", w["comm_total"]), ("exposed_communication_us",
                           w["exposed"]), ("overlapped_us", w["overlapped"])):  # fmt: skip
            facts.append((label, fmt.us(sum(s.get(key) or 0.0 for s in steps) / n)))
    return {
        "facts": facts,
        "collectives": tables.collectives_table(c["collectives"], w)
        if c and c.get("collectives") else None,
        "links": tables.links_table(c["links"], w) if c and c.get("links") else None,
    }  # fmt: skip


def roofline(report: dict[str, Any], w: dict[str, str], lang: str) -> dict[str, Any] | None:
    p = report.get("perf_model")
    if not p:
        return None
    t = p["totals"]
    figures = [("mfu", w["mfu"], fmt.share(t.get("mfu"))),
               ("hfu", w["hfu"], fmt.share(t.get("hfu"))),
               ("covered", w["covered_share"], fmt.share(t.get("covered_share"))),
               ("low-roof", w["low_roof"], fmt.share(t.get("low_roof_share"))),
               ("memory-bound", w["memory_bound"], fmt.share(t.get("memory_bound_share"))),
               ("gflops", w["gflops"], fmt.sig(t.get("gflops"), 4))]  # fmt: skip
    device = p["device"]
    rows = tables.top(p.get("operators") or [], "time_us")
    chart = None
    peaks = device.get("peak_tflops") or {}
    if rows and device.get("bandwidth_tbps") and peaks:
        time_by_dtype: dict[str, float] = {}
        for r in rows:
            time_by_dtype[r["dtype"]] = time_by_dtype.get(r["dtype"], 0.0) + r["time_us"]
        known = [d for d in time_by_dtype if d in peaks]
        dtype = max(known, key=lambda d: time_by_dtype[d]) if known else None
        peak = float(peaks[dtype] if dtype else max(peaks.values()))
        cats = sorted({r["category"] for r in rows})
        color = {c: svg.PALETTE[i % len(svg.PALETTE)] for i, c in enumerate(cats)}
        drawn = [
            r
            for r in rows[: tables.TOP_ROWS * 5]
            if (r.get("arithmetic_intensity") or 0) > 0 and (r.get("achieved_tflops") or 0) > 0
        ]
        points = [(r["name"], r["arithmetic_intensity"], r["achieved_tflops"], color[r["category"]])
                  for r in drawn]  # fmt: skip
        chart = {"svg": svg.roofline(points, peak, device["bandwidth_tbps"], w["intensity"],
                                     w["achieved"]), "dtype": dtype,
                 "legend": [(c, color[c]) for c in cats]}  # fmt: skip
    mfu_steps = [(str(s["name"]), fmt.share(s["mfu"])) for s in p.get("steps") or []]
    return {
        "device": device.get("name") or fmt.DASH,
        # reports cached before version 26 have no `unavailable_zh`: English then
        "unavailable": pick({"en": p.get("unavailable"), "zh": p.get("unavailable_zh")}, lang)
        if p.get("unavailable") else None,
        "figures": figures, "chart": chart,
        "steps": mfu_steps[: tables.STEP_ROWS],
        "table": tables.roofline_table(rows, w) if rows else None,
    }  # fmt: skip
