"""The plain summary for terminals, chat and CI logs (like bigTpuProfile's summary.txt):
who and where, the headline figures, the top findings, the top operators and kernels, and
where to look next. GitHub renders it as Markdown; as plain text it reads the same, so
it goes into a CI job's log or summary unchanged.

Every name that comes from the trace is escaped (`cell`): a pipe cannot split a table
row, a newline cannot end one, a backtick or an HTML tag is shown, not interpreted, and a
very long name is cut.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from typing import Any

from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.export.findings import first_action, text
from mindinsight_profiler.export.headline import Figure, device_name, figures

#: Rows of the top tables and findings shown.
TOP = 5
#: Longest name kept in a table cell (characters, before escaping).
MAX_NAME = 80

_SPECIAL = re.compile(r"([\\`*\[\]<>|#~])")
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def cell(value: object, limit: int = MAX_NAME) -> str:
    """`value` as one line of Markdown text that renders as itself: whitespace runs (new
    lines included) become one space, a long text is cut with "...", and Markdown and HTML
    characters are backslash-escaped (an underscore inside a word is left as it is)."""
    flat = " ".join(str(value).split())
    if len(flat) > limit:
        flat = flat[: limit - 3] + "..."
    return _LONE_UNDERSCORE.sub(r"\\_", _SPECIAL.sub(r"\\\1", flat))


def fmt_us(us: float) -> str:
    """A duration in ms (two decimals), as the summary shows every time."""
    return f"{us / 1000:,.2f} ms"


def fmt_share(share: float | None) -> str:
    return "" if share is None else f"{share:.1%}"


def fmt_bytes(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:,.2f} {unit}"
    return f"{n:,.0f} B"


def figure_value(f: Figure) -> str:
    """A headline figure as the summary writes it."""
    if f.fmt == "us":
        return fmt_us(float(f.value))
    if f.fmt == "ratio":
        return fmt_share(float(f.value))
    if f.fmt == "bytes":
        return fmt_bytes(float(f.value))
    return f"{f.value:,}" if isinstance(f.value, int) else str(f.value)


def table(header: Sequence[str], rows: Iterable[Sequence[str]], right: set[int]) -> list[str]:
    """A GitHub table; columns in `right` are right-aligned (numbers)."""
    rule = ["---:" if i in right else "---" for i in range(len(header))]
    return ["| " + " | ".join(r) + " |" for r in (header, rule, *rows)]


_L = {
    "en": {"title": "Performance summary", "figure": "Figure", "value": "Value",
           "share": "Share of step", "findings": "Top findings", "none": "No findings.",
           "sev": "Severity", "finding": "Finding", "saving": "Saving (ms/step)",
           "action": "First action", "ops": "Top operators (by device self time)",
           "kernels": "Top kernels (by total time)", "op": "Operator", "kernel": "Kernel",
           "calls": "Calls", "dev": "Device self (ms)", "host": "Host self (ms)",
           "total": "Total (ms)", "mean": "Mean (us)", "where": "Where to look",
           "more": "{n} more: `mindinsight advise`", "together": "together they could save",
           "run": "run", "high": "high", "medium": "medium", "low": "low", "step": "step",
           "device": "device", "source": "source"},
    "zh": {"title": "性能摘要", "figure": "指标", "value": "数值", "share": "占迭代比例",
           "findings": "主要发现", "none": "没有发现问题。", "sev": "严重程度",
           "finding": "发现", "saving": "可节省 (ms/迭代)", "action": "首要建议",
           "ops": "耗时最多的算子 (按设备自身耗时)", "kernels": "耗时最多的计算核 (按总耗时)",
           "op": "算子", "kernel": "计算核", "calls": "调用次数", "dev": "设备自身 (ms)",
           "host": "主机自身 (ms)", "total": "总耗时 (ms)", "mean": "平均 (us)",
           "where": "下一步看哪里", "more": "另有 {n} 条：见 `mindinsight advise`",
           "together": "合计可节省", "run": "运行", "high": "高", "medium": "中", "low": "低",
           "step": "迭代",
           "device": "设备", "source": "来源"},
}  # fmt: skip


def _identity(b: ReportBundle, t: dict[str, str]) -> list[str]:
    r = b.report
    parts = [f"{t['run']} {cell(b.run)}", f"worker {cell(b.worker)}"]
    if b.span:
        parts.append(f"span {cell(b.span)}")
    parts += [f"{t['device']} {cell(device_name(r))} ({r.get('device_type')})",
              f"{r.get('framework')} / {r.get('format')}",
              f"mindinsight_profiler {b.version}, {b.generated_at}"]  # fmt: skip
    return [" · ".join(parts), "", f"{t['source']}: {cell(b.source, 200)}"]


def _figures(b: ReportBundle, t: dict[str, str], lang: str) -> list[str]:
    rows = [(cell(f.label(lang)) + (f" ({cell(f.note)})" if f.note else ""), figure_value(f),
             fmt_share(f.share)) for f in figures(b)]  # fmt: skip
    return table((t["figure"], t["value"], t["share"]), rows, {1, 2})


def _findings(b: ReportBundle, t: dict[str, str], lang: str) -> list[str]:
    found = b.advice.findings
    out = [f"## {t['findings']} ({len(found)})", ""]
    if not found:
        return [*out, t["none"]]
    if b.advice.combined_saving_us:
        out += [f"{t['together']} {fmt_us(b.advice.combined_saving_us)}/{t['step']} "
                f"({fmt_share(b.advice.combined_saving_share)})", ""]  # fmt: skip
    rows = []
    for i, f in enumerate(found[:TOP], 1):
        saving = f"{f.estimated_saving_us / 1000:,.2f}" if f.estimated_saving_us else ""
        action = cell(first_action(f, lang) or "", 160)
        title = f"{cell(text(f.title, lang))} (`{f.id}`)"
        rows.append((str(i), t.get(f.severity, f.severity), title, saving,
                     fmt_share(f.saving_share), action))  # fmt: skip
    out += table(("#", t["sev"], t["finding"], t["saving"], t["share"], t["action"]), rows,
                 {0, 3, 4})  # fmt: skip
    if len(found) > TOP:
        out += ["", "... " + t["more"].format(n=len(found) - TOP)]
    return out


def _top(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: -(r.get(key) or 0.0))[:TOP]


def _operators(b: ReportBundle, t: dict[str, str]) -> list[str]:
    rows = [(cell(r["name"]), f"{r['calls']:,}", f"{r['device_self_us'] / 1000:,.2f}",
             f"{r['host_self_us'] / 1000:,.2f}")
            for r in _top(b.report["operators"], "device_self_us")]  # fmt: skip
    if not rows:
        return []
    head = (t["op"], t["calls"], t["dev"], t["host"])
    return ["", f"## {t['ops']}", "", *table(head, rows, {1, 2, 3})]


def _kernels(b: ReportBundle, t: dict[str, str]) -> list[str]:
    rows = [(cell(r["name"]), f"{r['calls']:,}", f"{r['total_us'] / 1000:,.2f}",
             f"{r['mean_us']:,.1f}") for r in _top(b.report["kernels"], "total_us")]  # fmt: skip
    if not rows:
        return []
    head = (t["kernel"], t["calls"], t["total"], t["mean"])
    return ["", f"## {t['kernels']}", "", *table(head, rows, {1, 2, 3})]


def _where(b: ReportBundle, lang: str) -> list[str]:
    """The dashboard pages and commands the findings point to."""
    pages: list[str] = []
    for f in b.advice.findings:
        for e in f.evidence:
            if e.page not in pages:
                pages.append(e.page)
    src, worker = (shlex.quote(" ".join(v.replace("`", "").split())) for v in (b.source, b.worker))
    zh = lang == "zh"
    folder = "<运行所在的文件夹>" if zh else "<folder of the run>"
    lines = [
        f"- {'看板' if zh else 'Dashboard'}: `mindinsight start --summary-base-dir {folder}`, "
        + ("页面" if zh else "pages") + ": "
        + ", ".join(p.replace("_", "-") for p in (pages or ["overview", "timeline"])),
        f"- {'每条发现的证据' if zh else 'Each finding with its evidence'}: "
        f"`mindinsight advise {src} --worker {worker} -v`",
        f"- {'全部表格' if zh else 'Every table'}: "
        f"`mindinsight report {src} --worker {worker} --format xlsx`",
    ]  # fmt: skip
    return lines


def render_markdown(bundle: ReportBundle, lang: str = "en") -> str:
    """Headline figures, top findings and where to look, as Markdown."""
    t = _L["zh" if lang == "zh" else "en"]
    out = [f"# {t['title']}: {cell(bundle.run)} / {cell(bundle.worker)}", "",
           *_identity(bundle, t), "", *_figures(bundle, t, lang), "",
           *_findings(bundle, t, lang), *_operators(bundle, t), *_kernels(bundle, t),
           "", f"## {t['where']}", "", *_where(bundle, lang)]  # fmt: skip
    return "\n".join(out) + "\n"
