"""How a run shows itself in Jupyter: the overview's figures, a bar of the average step by
category (inline SVG: no JavaScript, so it survives a saved notebook) and the steps."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

#: The dashboard's colours of the breakdown categories (ui/src/charts), in report order.
COLOURS = {
    "kernel_us": "#4e79a7", "memcpy_us": "#f28e2b", "memset_us": "#e15759",
    "communication_us": "#76b7b2", "runtime_us": "#59a14f", "dataloader_us": "#edc948",
    "cpu_exec_us": "#b07aa1", "other_us": "#bab0ac",
}  # fmt: skip


def step_bar(average: dict[str, float], width: int = 480, height: int = 18) -> str:
    """An SVG bar of the average step split by category, with a legend of the non-zero ones."""
    total = sum(v for v in average.values() if v > 0)
    if total <= 0:
        return ""
    x, parts, legend = 0.0, [], []
    for key, colour in COLOURS.items():
        value = average.get(key, 0.0)
        if value <= 0:
            continue
        w = width * value / total
        label = html.escape(f"{key[:-3]}: {value / 1000:,.3f} ms ({value / total:.1%})")
        parts.append(
            f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" fill="{colour}">'
            f"<title>{label}</title></rect>"
        )
        legend.append(f'<span style="color:{colour}">&#9632;</span> {label}')
        x += w
    svg = f'<svg width="{width}" height="{height}" role="img">{"".join(parts)}</svg>'
    return f"<div>{svg}<div style='font-size:smaller'>{' &nbsp; '.join(legend)}</div></div>"


def run_html(summary: dict[str, Any], steps: pd.DataFrame) -> str:
    """The overview of one run for a notebook cell."""
    average = {k: float(v) for k, v in summary.items() if k in COLOURS}
    step_us = summary.get("average_step_us")
    head = (
        f"<b>{html.escape(str(summary.get('run')))}</b> · worker "
        f"{html.escape(str(summary.get('worker')))} · {html.escape(str(summary.get('framework')))}"
        f" on {html.escape(str(summary.get('device_type')))} · {summary.get('steps') or 0} steps"
    )
    if step_us:
        head += f" · average step {float(step_us) / 1000:,.3f} ms"
    if summary.get("mfu") is not None:
        head += f" · MFU {float(summary['mfu']):.1%}"
    table = steps.head(20).to_html(index=False, float_format=lambda v: f"{v:,.1f}")
    return f"<div><p>{head}</p>{step_bar(average)}{table}</div>"
