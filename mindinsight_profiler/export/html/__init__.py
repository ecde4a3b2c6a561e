"""The self-contained HTML report: one file, every section, charts inline as SVG.

The file needs nothing but a browser: no script, no stylesheet, font or image to fetch (the
CSS is inlined from `templates/report.css`, the charts are SVG drawn by `svg.py`), so it
opens offline, from a ticket or a CI artefact. It is safe to open whatever the trace holds:
the template is rendered by Jinja2 with autoescaping on, and the SVG is built element by
element with every value escaped (`svg.el`), so operator, kernel, step and file names show
as text and never as markup. Trace-derived data is only ever passed to the template as
values, never as template source (a name like `{{ 7*7 }}` prints as itself).

The figures are the dashboard's, formatted by the dashboard's rules (`fmt`: durations with
two decimals in the unit that keeps 3-4 significant digits, shares with one decimal, half
away from zero as JavaScript's `toFixed`); tables are capped (`tables.TOP_ROWS`), the rest
being in the workbook and on the dashboard.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from mindinsight_profiler.export.bundle import EXPORT_SCHEMA_VERSION, ReportBundle
from mindinsight_profiler.export.html import findings, sections, tables
from mindinsight_profiler.export.html.texts import lang_key, words

#: the sections in the order they appear, each a `<section data-section="...">`
SECTIONS = (
    "overview", "ledger", "step_trace", "operators", "kernels", "data_pipeline", "memory",
    "communication", "roofline", "window", "advice",
)  # fmt: skip


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("mindinsight_profiler.export.html", "templates"),
        autoescape=True,  # every {{ value }} is escaped; only svg.el's Markup passes as is
        undefined=jinja2.StrictUndefined,  # a misspelt field fails the tests, not silently
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _device(report: dict[str, Any]) -> str:
    """The device as the report names it: the GPUs' names, else the performance model's
    device, else the device type."""
    names = [d.get("name") for d in (report.get("gpu") or {}).get("devices") or []]
    names = [n for n in dict.fromkeys(names) if n]
    if names:
        return ", ".join(names)
    perf = (report.get("perf_model") or {}).get("device") or {}
    return str(perf.get("name") or report.get("device_type") or "–")


def _when(iso: str) -> str:
    """An ISO 8601 UTC time as people read it: "2026-11-26 01:37:35 UTC"."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def context(bundle: ReportBundle, lang: str = "en") -> dict[str, Any]:
    """Everything the template shows (each section None when the input has none of it)."""
    r, w = bundle.report, words(lang)
    data: dict[str, Any] = {
        "overview": sections.overview(r, w, lang),
        "ledger": sections.ledger(r, bundle.advice, w, lang),
        "step_trace": sections.step_trace(r, w, lang),
        "operators": tables.operators_table(r, w),
        "kernels": tables.kernels_table(r, w),
        "data_pipeline": sections.data_pipeline(r, w, lang),
        "memory": sections.memory(r, w),
        "communication": sections.communication(r, w, lang),
        "roofline": sections.roofline(r, w, lang),
        "window": findings.window(r, bundle.advice, w, lang),
        "advice": findings.findings(bundle.advice, w, lang),
    }
    header = [
        ("run", bundle.run), ("worker", bundle.worker), ("span", bundle.span),
        ("framework", str(r.get("framework") or "–")), ("format", str(r.get("format") or "–")),
        ("device", _device(r)), ("generated", _when(bundle.generated_at)), ("tool", bundle.version),
        ("report_version", f"{r.get('report_version')} / export {EXPORT_SCHEMA_VERSION}"),
        ("source", bundle.source),  # last: a long path gets the whole row
    ]  # fmt: skip
    return {
        "lang": "zh-CN" if lang_key(lang) == "zh" else "en",
        "w": w,
        "title": f"{w['title']}: {bundle.run} · {bundle.worker}",
        "header": [(k, w[k], v or "–") for k, v in header],
        "sections": [(k, w[f"s_{k}"]) for k in SECTIONS],
        "version": bundle.version,
        "data": data,
    }


def render_html(bundle: ReportBundle, lang: str = "en") -> str:
    """One HTML document with every section, its charts inline (no external asset)."""
    return _environment().get_template("report.html.j2").render(context(bundle, lang))
