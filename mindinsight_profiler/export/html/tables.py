"""Tables of the report: columns like the dashboard's, cells formatted like its cells.

A table is plain data for the template: headers, rows of cells (`text`, the full text as
`title` when a long name was cut, `num` for right-aligned figures) and how many rows were
left out (the report caps every table; the workbook and the dashboard hold them all).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mindinsight_profiler.export.html import fmt

#: rows of the operator, kernel and roofline tables (the brief's "top 20")
TOP_ROWS = 20
#: rows of the per-step tables (steps beyond these are in the workbook)
STEP_ROWS = 60
#: steps drawn in a per-step chart (about 0.6 KB each)
CHART_STEPS = 240
#: a name longer than this is cut in the middle; the whole name is the cell's tooltip
NAME_CHARS = 160


@dataclass(frozen=True)
class Col:
    key: str
    label: str
    #: a `fmt.cell` kind, "name" for a trace-derived name, "figure" for a formatted figure
    kind: str = "text"


@dataclass(frozen=True)
class Cell:
    text: str
    title: str | None = None
    num: bool = False


@dataclass
class Table:
    cols: list[Col]
    rows: list[list[Cell]] = field(default_factory=list)
    more: int = 0  # rows left out


def make_cell(kind: str, value: Any) -> Cell:
    if kind == "name":
        name = "" if value is None else str(value)
        short = fmt.shorten(name, NAME_CHARS)
        return Cell(short, name if short != name else None)
    if kind == "figure":  # a figure formatted already (a value with its own unit)
        return Cell(str(value), None, True)
    return Cell(fmt.cell(kind, value), None, kind not in ("text", "bool"))


def make_table(cols: Sequence[Col], rows: Sequence[dict[str, Any]], cap: int) -> Table:
    """The first `cap` rows of `rows`, each cell formatted by its column's kind."""
    return Table(
        list(cols),
        [[make_cell(c.kind, r.get(c.key)) for c in cols] for r in rows[:cap]],
        max(0, len(rows) - cap),
    )


def top(rows: Sequence[dict[str, Any]] | None, *keys: str) -> list[dict[str, Any]]:
    """Rows sorted by the first of `keys` with any value, then the next (descending)."""
    found = list(rows or [])
    return sorted(found, key=lambda r: tuple(-(r.get(k) or 0) for k in keys))


def operators_table(report: dict[str, Any], w: dict[str, str]) -> Table | None:
    """Top operators by device self time (host self time where nothing ran on a device),
    with the Operators page's columns."""
    rows = report.get("operators") or []
    if not rows:
        return None
    on_device = any((r.get("device_self_us") or 0) > 0 for r in rows)
    keys = ("device_self_us", "host_self_us") if on_device else ("host_self_us",)
    cols = [Col("name", w["name"], "name"), Col("calls", w["calls"], "count"),
            Col("host_self_us", w["host_self"], "us"), Col("host_total_us", w["host_total"], "us"),
            Col("device_self_us", w["device_self"], "us"),
            Col("device_total_us", w["device_total"], "us")]  # fmt: skip
    if report.get("device_type") == "gpu":
        cols.append(Col("tc_self_ratio", w["tensor_cores"], "share"))
    return make_table(cols, top(rows, *keys), TOP_ROWS)


def kernels_table(report: dict[str, Any], w: dict[str, str]) -> Table | None:
    """Top kernels by total time, with the Kernels page's columns for the device."""
    rows = report.get("kernels") or []
    if not rows:
        return None
    cols = [Col("name", w["name"], "name"), Col("calls", w["calls"], "count"),
            Col("total_us", w["total"], "us"), Col("mean_us", w["mean"], "us"),
            Col("min_us", w["min"], "us"), Col("max_us", w["max"], "us")]  # fmt: skip
    if report.get("device_type") == "gpu":
        cols += [Col("tc_used", w["tc_used"], "bool"),
                 Col("blocks_per_sm", w["blocks_per_sm"], "number"),
                 Col("occupancy", w["occupancy"], "pct")]  # fmt: skip
    elif any(r.get("accelerator_core") for r in rows):
        cols += [Col("accelerator_core", w["core"], "name"), Col("op_type", w["op_type"], "name")]
    return make_table(cols, top(rows, "total_us"), TOP_ROWS)


def step_trace_table(section: dict[str, Any], w: dict[str, str]) -> Table:
    cols = [Col("step", w["step"], "name"), Col("total_us", w["total"], "us"),
            Col("iteration_interval_us", w["iteration_interval"], "us"),
            Col("fp_and_bp_us", w["fp_and_bp"], "us"), Col("tail_us", w["tail"], "us")]  # fmt: skip
    return make_table(cols, section.get("steps") or [], STEP_ROWS)


def queues_table(queues: list[dict[str, Any]], w: dict[str, str]) -> Table:
    cols = [Col("name", w["queue"], "name"), Col("capacity", w["capacity"], "count"),
            Col("samples", w["samples"], "count"), Col("empty_rate", w["empty_rate"], "share"),
            Col("full_rate", w["full_rate"], "share"),
            Col("average_size", w["average_size"], "number")]  # fmt: skip
    return make_table(cols, queues, TOP_ROWS)


def memory_table(devices: list[dict[str, Any]], w: dict[str, str]) -> Table:
    rows = [{"device": d.get("device"),
             "allocated": (d.get("peak_allocated") or {}).get("bytes"),
             "reserved": (d.get("peak_reserved") or {}).get("bytes"),
             "operator": (d.get("peak_allocated") or d.get("peak_reserved") or {}).get("operator")}
            for d in devices]  # fmt: skip
    cols = [Col("device", w["device"], "name"), Col("allocated", w["peak_allocated"], "bytes"),
            Col("reserved", w["peak_reserved"], "bytes"),
            Col("operator", w["at_operator"], "name")]  # fmt: skip
    return make_table(cols, rows, TOP_ROWS)


def collectives_table(rows: list[dict[str, Any]], w: dict[str, str]) -> Table:
    cols = [Col("name", w["name"], "name"), Col("calls", w["calls"], "count"),
            Col("total_us", w["comm_time"], "us"), Col("bytes", w["bytes"], "bytes"),
            Col("tool_wait_us", w["tool_wait"], "us")]  # fmt: skip
    return make_table(cols, top(rows, "total_us"), TOP_ROWS)


def links_table(rows: list[dict[str, Any]], w: dict[str, str]) -> Table:
    shown = [{**r, "bw": None if r.get("bandwidth") is None
              else f"{fmt.number(r['bandwidth'])} {r.get('unit') or ''}".strip()}
             for r in rows]  # fmt: skip
    cols = [Col("link", w["link"], "name"), Col("transport", w["transport"], "name"),
            Col("bw", w["bandwidth"], "figure"), Col("steps", w["steps"], "count")]  # fmt: skip
    return make_table(cols, shown, TOP_ROWS)


def roofline_table(rows: list[dict[str, Any]], w: dict[str, str]) -> Table:
    cols = [Col("name", w["name"], "name"), Col("dtype", "dtype", "name"),
            Col("category", w["category"], "name"), Col("calls", w["calls"], "count"),
            Col("time_us", w["comm_time"], "us"), Col("gflops_per_call", w["gflops_call"], "sig"),
            Col("achieved_tflops", w["achieved"], "sig"),
            Col("pct_of_roof", w["pct_of_roof"], "share"),
            Col("bound", w["bound"], "name")]  # fmt: skip
    return make_table(cols, top(rows, "time_us"), TOP_ROWS)
