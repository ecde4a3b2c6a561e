"""Plain-text rendering of a report, in the style of torch's `key_averages().table()`."""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.analysis.operators.shapes import compact_shape
from mindinsight_profiler.formats.spec import FormatTag

_LABELS = {
    "kernel": "Kernel",
    "memcpy": "Memcpy",
    "memset": "Memset",
    "communication": "Communication",
    "runtime": "Runtime",
    "dataloader": "DataLoader",
    "cpu_exec": "CPU Exec",
    "other": "Other",
}


def _fmt_us(us: float) -> str:
    if abs(us) >= 1e6:
        return f"{us / 1e6:.3f}s"
    if abs(us) >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _table(headers: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    line = "-" * (sum(widths) + 2 * (len(widths) - 1))

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [line, fmt(headers), line, *(fmt(r) for r in rows), line]


def _clip(name: str, n: int = 60) -> str:
    return name if len(name) <= n else name[: n - 3] + "..."


def render(report: dict[str, Any], top: int = 20) -> str:
    """The report as text: steps, breakdown, GPU summary, top operators, top kernels."""
    out: list[str] = []
    steps = report["steps"]
    avg = steps["average_us"]
    how = (
        "ProfilerStep ranges"
        if steps["from_profiler_steps"]
        else "no ProfilerStep ranges: one step over the trace"
    )
    first = int(steps.get("averaged_from") or 0)
    over = f" of steps {steps['names'][first]}-{steps['names'][-1]}" if first else ""
    out.append(
        f"{report.get('source')}: {steps['count']} steps ({how}), average{over} {_fmt_us(avg)}"
    )
    out.append("")
    rows = []
    for key, label in _LABELS.items():
        value = report["breakdown_us"][key]
        rows.append([label, _fmt_us(value), f"{100 * value / avg:.2f}%" if avg else "-"])
    out += ["Step time breakdown (average per step)", *_table(["Category", "Time", "Share"], rows)]
    gpu = report.get("gpu")
    if gpu:
        kind = "NPU" if report.get("format") == FormatTag.ASCEND_PT else "GPU"
        out += ["", f"{kind} summary"]
        for d in gpu["devices"]:
            out.append(
                f"  {kind} {d['device']} {d.get('name') or ''}: "
                f"utilization {_pct(d['utilization'])}, "
                f"est. SM efficiency {_pct(d['sm_efficiency'])}, "
                f"est. achieved occupancy {_pct(d['occupancy'])}"
            )
    out += _perf(report.get("perf_model"), min(top, 10))
    ops = report["operators"][:top]
    out += [
        "",
        f"Top {len(ops)} operators by device self time"
        if gpu
        else f"Top {len(ops)} operators by host self time",
    ]
    by_input = any("input_shape" in o for o in ops)  # --group-by name_input
    out += _table(
        ["Name", *(["Input Shapes"] if by_input else []), "Calls", "Host Self", "Host Total",
         "Device Self", "Device Total"],
        [
            [_clip(o["name"], 40 if by_input else 60),
             *([_clip(compact_shape(o.get("input_shape") or []), 50)] if by_input else []),
             str(o["calls"]), _fmt_us(o["host_self_us"]),
             _fmt_us(o["host_total_us"]), _fmt_us(o["device_self_us"]),
             _fmt_us(o["device_total_us"])]
            for o in ops
        ],
        left=2 if by_input else 1,
    )  # fmt: skip
    kernels = report["kernels"][:top]
    if kernels:
        out += ["", f"Top {len(kernels)} kernels by total time"]
        out += _table(
            ["Name", "Calls", "Total", "Mean", "Min", "Max", "Blocks/SM", "Occupancy %"],
            [
                [_clip(k["name"]), str(k["calls"]), _fmt_us(k["total_us"]),
                 _fmt_us(k["mean_us"]), _fmt_us(k["min_us"]), _fmt_us(k["max_us"]),
                 _num(k["blocks_per_sm"]), _num(k["occupancy"])]
                for k in kernels
            ],
        )  # fmt: skip
    return "\n".join(out) + "\n"


def _share(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}%"


def _perf(model: dict[str, Any] | None, top: int) -> list[str]:
    """MFU, the device it is measured against, and the costliest shapes on the roofline."""
    if not model:
        return []
    t = model["totals"]
    device = model["device"]["name"] or "unknown device"
    out = ["", f"Performance model ({device}; docs/perf-model.md)"]
    if model["unavailable"]:
        out.append(f"  no peak figures: {model['unavailable']}")
    out.append(
        f"  MFU {_share(t['mfu'])}, HFU {_share(t['hfu'])}; {t['gflops']:,.1f} GFLOP counted, "
        f"covering {_share(t['covered_share'])} of {t['time_base']} time; "
        f"below 20% of roof: {_share(t['low_roof_share'])}"
    )
    rows = model["shapes"][:top]
    if rows:
        out += _table(
            ["Operator (by input shapes)", "Calls", "Time", "GFLOP/call", "TFLOPS", "% of roof",
             "Bound"],
            [
                [_clip(r["name"] + " " + r["input_shapes"], 70), str(r["calls"]),
                 _fmt_us(r["time_us"]), f"{r['gflops_per_call']:.3g}", _num(r["achieved_tflops"]),
                 _share(r["pct_of_roof"]), r["bound"] or "-"]
                for r in rows
            ],
        )  # fmt: skip
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}%"


def _num(v: float | None) -> str:
    """Two decimals, or '-' for a figure the input format does not provide."""
    return "-" if v is None else f"{v:.2f}"
