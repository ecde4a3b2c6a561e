"""The headline figures of a report: average step, steps, breakdown shares, MFU, data wait,
memory peak, communication. The Markdown summary and the workbook's Summary sheet both list
these, each read from one place of the JSON report (named in `source`), so either can be
checked against the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.export.columns import CATEGORY_NAMES


@dataclass(frozen=True)
class Figure:
    """One headline figure: `value` in the unit of `fmt` (see export.columns), and its
    share of the average step (0-1) where that means something."""

    key: str
    en: str
    zh: str
    value: float | int | str
    fmt: str
    share: float | None = None
    note: str | None = None  # where it was measured (a device, the steps averaged)

    def label(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def device_name(report: dict[str, Any]) -> str:
    """The device as the report names it: the GPU's own name, the performance model's,
    else the device type."""
    gpu, perf = report.get("gpu"), report.get("perf_model")
    if gpu and gpu.get("devices") and gpu["devices"][0].get("name"):
        return str(gpu["devices"][0]["name"])
    if perf and perf["device"].get("name"):
        return str(perf["device"]["name"])
    return str(report.get("device_type") or "unknown").upper()


def memory_peak(report: dict[str, Any]) -> tuple[str, int] | None:
    """(where, bytes) of the largest peak, an accelerator's before the host's; a device
    that records only reserved memory (an Ascend component) counts with that. `where`
    names the device and which total it is."""
    section = report.get("memory")
    found = []
    for d in section["devices"] if section else []:
        kind = "allocated" if d.get("peak_allocated") else "reserved"
        peak = d.get(f"peak_{kind}")
        if peak:
            accel = not d["device"].startswith("CPU")
            found.append((accel, int(peak["bytes"]), f"{d['device']}, {kind}"))
    if not found:
        return None
    _, nbytes, where = max(found)
    return where, nbytes


def _step_figures(r: dict[str, Any], avg: float) -> list[Figure]:
    out = [Figure("average_step_us", "Average step", "平均迭代耗时", avg, "us"),
           Figure("steps", "Steps", "迭代数", r["steps"]["count"], "int")]  # fmt: skip
    total = sum(r["breakdown_us"].values())
    base = avg or total
    for key, (en, zh) in CATEGORY_NAMES.items():
        value = r["breakdown_us"][key]
        if value > 0:
            out.append(Figure(f"breakdown.{key}", en, zh, value, "us",
                              value / base if base else None))  # fmt: skip
    return out


def figures(bundle: ReportBundle) -> list[Figure]:
    """The headline figures this report has (a figure the input cannot give is left out)."""
    r = bundle.report
    avg = float(r["steps"]["average_us"] or 0.0)
    out = _step_figures(r, avg) if r["steps"]["count"] else []
    perf = r.get("perf_model")
    mfu = perf["totals"].get("mfu") if perf and perf.get("totals") else None
    if perf and mfu is not None:
        out.append(Figure("mfu", "MFU", "MFU", mfu, "ratio", note=perf["device"]["name"]))
    wait = (r.get("data_pipeline") or {}).get("data_wait")
    if wait and wait.get("average_us") is not None:
        out.append(Figure("data_wait_us", "Data wait per step", "每迭代数据等待",
                          wait["average_us"], "us", wait.get("share")))  # fmt: skip
    peak = memory_peak(r)
    if peak is not None:
        out.append(Figure("memory_peak_bytes", "Memory peak", "内存峰值", peak[1], "bytes",
                          note=peak[0]))  # fmt: skip
    comm = r.get("communication")
    average = comm["average"] if comm else None
    if average and average.get("communication_us") is not None:
        step = average.get("step_us")
        exposed = average.get("exposed_communication_us")
        out.append(Figure("communication_us", "Communication per step", "每迭代通信",
                          average["communication_us"], "us",
                          average["communication_us"] / step if step else None))  # fmt: skip
        if exposed is not None:
            out.append(Figure("exposed_communication_us", "Exposed communication per step",
                              "每迭代未掩盖通信", exposed, "us",
                              exposed / step if step else None))  # fmt: skip
    advice = bundle.advice
    out.append(Figure("findings", "Findings", "发现", len(advice.findings), "int"))
    if advice.combined_saving_us:
        out.append(Figure("combined_saving_us", "Findings together could save",
                          "所有发现合计可节省", advice.combined_saving_us, "us",
                          advice.combined_saving_share))  # fmt: skip
    return out
