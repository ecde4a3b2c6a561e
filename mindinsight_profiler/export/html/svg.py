"""The report's charts as inline SVG, drawn in Python (no script, no chart library).

Every element goes through `el`, which escapes each attribute value and text child with
`markupsafe.escape` (only `Markup` made here passes unescaped), so a step or operator name
from the trace can never close a tag, open a script or leave the SVG. Tooltips are `<title>`
children: browsers show them on hover, and they print as nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from mindinsight_profiler.export.html import fmt

#: ECharts' default palette, the dashboard's chart colours in the same order
PALETTE = ("#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452",
           "#9a60b4", "#ea7ccc")  # fmt: skip
#: the ledger's part colours (`PART_COLORS`, ui/src/components/advisor/ledger.ts)
PART_COLORS = {
    "device_compute": "#4e79a7", "exposed_copies": "#f28e2b", "exposed_communication": "#ff9da7",
    "data_wait": "#59a14f", "sync_wait": "#e15759", "host_launch": "#76b7b2",
    "host_compute": "#edc948", "untracked": "#b07aa1",
}  # fmt: skip
OTHER_COLOR = "#9c755f"


def el(tag: str, attrs: dict[str, object] | None = None, *children: object) -> Markup:
    """`<tag attrs>children</tag>`, every value and text escaped (Markup children kept)."""
    parts = [f' {k.replace("_", "-")}="{escape(str(v))}"' for k, v in (attrs or {}).items()]
    inner = "".join(str(escape(c)) for c in children if c is not None)
    return Markup(f"<{tag}{''.join(parts)}>{inner}</{tag}>")


def _n(x: float) -> str:
    """A coordinate with two decimals at most (smaller files, same picture)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Series:
    label: str
    color: str
    values: Sequence[float]


def nice_step(span: float, ticks: int = 5) -> float:
    """A 1-2-5 step giving about `ticks` intervals over `span`."""
    raw = span / ticks if span > 0 else 1.0
    base = 10 ** math.floor(math.log10(raw))
    return next(m * base for m in (1, 2, 5, 10) if m * base >= raw)


def duration_ticks(top_us: float) -> tuple[list[float], str, float]:
    """Axis ticks in µs and the unit they read in (s, ms or µs), like the dashboard's
    `durationAxis`: one unit for the whole axis, chosen by its largest value."""
    unit, scale = ("s", 1e6) if top_us >= 1e6 else ("ms", 1e3) if top_us >= 1e3 else ("µs", 1.0)
    step = nice_step(top_us / scale) * scale
    count = max(1, math.ceil(top_us / step - 1e-9))
    return [i * step for i in range(count + 1)], unit, scale


def _decade(k: int) -> str:
    """A log axis' tick: 0.001 to 10000 written out, 1e-5 and 1e6 beyond."""
    return f"{10.0**k:g}" if -3 <= k <= 4 else f"1e{k}"


def _tick_label(value: float, scale: float) -> str:
    return f"{value / scale:.6g}"


def stacked_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    axis_name: str,
    tip: Callable[[float], str] = fmt.us,
    width: int = 760,
    height: int = 260,
) -> Markup:
    """Bars stacked per category (a step), a duration axis with its unit, a tooltip per
    segment naming the category, the series and its formatted value."""
    left, right, top, bottom = 64, 12, 14, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    totals = [sum(s.values[i] for s in series) for i in range(len(categories))]
    ticks, unit, scale = duration_ticks(max(totals, default=0.0) or 1.0)
    y_max = ticks[-1]
    out: list[Markup] = []
    for t in ticks:
        y = top + plot_h - plot_h * t / y_max
        out.append(el("line", {"x1": left, "x2": width - right, "y1": _n(y), "y2": _n(y),
                               "class": "grid"}))  # fmt: skip
        out.append(el("text", {"x": left - 6, "y": _n(y + 4), "text-anchor": "end"},
                      _tick_label(t, scale)))  # fmt: skip
    out.append(el("text", {"x": 12, "y": _n(top + plot_h / 2), "class": "axis-name",
                           "transform": f"rotate(-90 12 {_n(top + plot_h / 2)})",
                           "text-anchor": "middle"}, f"{axis_name} ({unit})"))  # fmt: skip
    slot = plot_w / max(len(categories), 1)
    bar_w = max(min(slot * 0.6, 48), 1.0)
    every = max(1, math.ceil(len(categories) * 40 / plot_w))  # labels at least 40 px apart
    for i, name in enumerate(categories):
        x = left + slot * i + (slot - bar_w) / 2
        base = 0.0
        for s in series:
            v = s.values[i]
            if v > 0:
                y0 = top + plot_h - plot_h * (base + v) / y_max
                h = plot_h * v / y_max
                out.append(el("rect", {"x": _n(x), "y": _n(y0), "width": _n(bar_w),
                                       "height": _n(max(h, 0.5)), "fill": s.color},
                              el("title", {}, f"{name} · {s.label}: {tip(v)}")))  # fmt: skip
            base += v
        if i % every == 0:
            out.append(el("text", {"x": _n(x + bar_w / 2), "y": height - bottom + 16,
                                   "text-anchor": "middle"}, fmt.shorten(name, 12)))  # fmt: skip
    out.append(el("line", {"x1": left, "x2": width - right, "y1": top + plot_h,
                           "y2": top + plot_h, "class": "axis"}))  # fmt: skip
    return el("svg", {"viewBox": f"0 0 {width} {height}", "class": "chart", "role": "img",
                      "aria-label": axis_name}, *out)  # fmt: skip


def hbar(
    parts: Sequence[tuple[str, str, float, str]], width: int = 760, height: int = 34
) -> Markup:
    """One horizontal bar cut into `(label, color, value, tooltip)` parts (the ledger)."""
    total = sum(p[2] for p in parts) or 1.0
    x = 0.0
    out: list[Markup] = []
    for label, color, value, tip in parts:
        w = width * value / total
        if w > 0:
            out.append(el("rect", {"x": _n(x), "y": 0, "width": _n(w), "height": height,
                                   "fill": color}, el("title", {}, f"{label}: {tip}")))  # fmt: skip
        x += w
    return el("svg", {"viewBox": f"0 0 {width} {height}", "class": "chart hbar",
                      "preserveAspectRatio": "none", "role": "img"}, *out)  # fmt: skip


def roofline(
    points: Sequence[tuple[str, float, float, str]],
    peak_tflops: float,
    bandwidth_tbps: float,
    axis_x: str,
    axis_y: str,
    width: int = 760,
    height: int = 320,
) -> Markup:
    """Operators as `(name, FLOP/byte, TFLOP/s, colour)` on log-log axes under the roof:
    bandwidth x intensity up to the ridge, then the peak."""
    left, right, top, bottom = 64, 16, 14, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [p[1] for p in points if p[1] > 0] or [1.0]
    ys = [p[2] for p in points if p[2] > 0] or [peak_tflops]
    ridge = peak_tflops / bandwidth_tbps
    x_lo = 10 ** math.floor(math.log10(min(min(xs), ridge / 10)))
    x_hi = 10 ** math.ceil(math.log10(max(max(xs), ridge * 10)))
    y_lo = 10 ** math.floor(math.log10(min(min(ys), bandwidth_tbps * x_lo)))
    y_hi = 10 ** math.ceil(math.log10(max(max(ys), peak_tflops) * 1.01))

    def px(x: float) -> float:
        return left + plot_w * math.log10(x / x_lo) / math.log10(x_hi / x_lo)

    def py(y: float) -> float:
        return top + plot_h - plot_h * math.log10(y / y_lo) / math.log10(y_hi / y_lo)

    out: list[Markup] = []
    for k in range(round(math.log10(x_lo)), round(math.log10(x_hi)) + 1):
        out.append(el("line", {"x1": _n(px(10**k)), "x2": _n(px(10**k)), "y1": top,
                               "y2": top + plot_h, "class": "grid"}))  # fmt: skip
        out.append(el("text", {"x": _n(px(10**k)), "y": height - bottom + 16,
                               "text-anchor": "middle"}, _decade(k)))  # fmt: skip
    for k in range(round(math.log10(y_lo)), round(math.log10(y_hi)) + 1):
        out.append(el("line", {"x1": left, "x2": width - right, "y1": _n(py(10**k)),
                               "y2": _n(py(10**k)), "class": "grid"}))  # fmt: skip
        out.append(el("text", {"x": left - 6, "y": _n(py(10**k) + 4), "text-anchor": "end"},
                      _decade(k)))  # fmt: skip
    roof = f"M{_n(px(x_lo))},{_n(py(bandwidth_tbps * x_lo))} L{_n(px(ridge))},{_n(py(peak_tflops))}"
    roof += f" L{_n(px(x_hi))},{_n(py(peak_tflops))}"
    out.append(el("path", {"d": roof, "class": "roof"}))
    for name, x, y, color in points:
        if x > 0 and y > 0:
            tip = f"{name}: {fmt.sig(x)} FLOP/B, {fmt.sig(y)} TFLOP/s"
            out.append(el("circle", {"cx": _n(px(x)), "cy": _n(py(y)), "r": 4, "fill": color},
                          el("title", {}, tip)))  # fmt: skip
    out.append(el("text", {"x": _n(left + plot_w / 2), "y": height - 6, "class": "axis-name",
                           "text-anchor": "middle"}, axis_x))  # fmt: skip
    out.append(el("text", {"x": 12, "y": _n(top + plot_h / 2), "class": "axis-name",
                           "transform": f"rotate(-90 12 {_n(top + plot_h / 2)})",
                           "text-anchor": "middle"}, axis_y))  # fmt: skip
    return el("svg", {"viewBox": f"0 0 {width} {height}", "class": "chart", "role": "img",
                      "aria-label": axis_y}, *out)  # fmt: skip
