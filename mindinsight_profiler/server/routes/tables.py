"""Operators and kernels: server-side sort, name search and paging of the report's tables.

Grouped by name, the rows are the cached report's; the other groupings (input shapes, call
stack, kernel launch), every operator type (the report keeps the top ten) and the per-call
instance table are computed once per process from the memory-mapped cached trace and kept
with it (`access.derived`). A page also carries the sums of its additive columns over all
matching rows, so a client can draw "top N and the rest" without fetching every row.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint

from mindinsight_profiler.analysis.operators.by_type import OPERATORS_TABLE, op_type_table
from mindinsight_profiler.analysis.operators.query import (
    SORTABLE,
    InstanceTable,
    instance_table,
    op_type_summary,
    query_instances,
)
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.analysis.report import grouped_tables
from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.routes.common import endpoint
from mindinsight_profiler.server.services import services

bp = Blueprint("tables", __name__)


def _bad(name: str, message: str) -> ApiError:
    return ApiError(400, "bad_parameter", f"{name}: {message}", parameter=name)


def additive(column: str) -> bool:
    """Columns whose sum over rows means something (times and counts, not means or ratios)."""
    return column == "calls" or (
        column.endswith("_us")
        and not column.startswith(("mean_", "min_", "max_", "start_", "offset_"))
    )


def _numeric(rows: list[dict[str, Any]]) -> set[str]:
    """The sortable columns: numeric in the first row, or empty there (None) and numbers
    in a later row (a kernel's occupancy is unknown for a memcpy) or empty in every row
    (a column this input lacks sorts as all equal rather than failing)."""
    if not rows:
        return set()
    numeric = {k for k, v in rows[0].items() if isinstance(v, (int, float))}
    unknown = {k for k, v in rows[0].items() if v is None}
    for r in rows[1:]:
        if not unknown:
            break
        known = {k for k in unknown if r.get(k) is not None}
        numeric |= {k for k in known if isinstance(r[k], (int, float))}
        unknown -= known
    return numeric | unknown


def page_rows(
    rows: list[dict[str, Any]], p: dict[str, Any], default_sort: str, key: str = "name"
) -> dict[str, Any]:
    """Filter by `search` (in `key`: a part in any case, or a "quoted" exact name), sort by
    a numeric column or by `key` (as text, any case), then one page: the one at `offset`,
    or with `focus` (a row's `key`, exactly) the one that holds the first such row (an
    advisor's evidence link lands on its row among the others)."""
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    sort = p.get("sort") or default_sort
    numeric = _numeric(rows)
    if rows and sort not in numeric | {key}:
        raise _bad("sort", f"must be one of {', '.join(sorted(numeric | {key}))}")
    matches = name_matcher(p.get("search"))
    if matches is not None:
        rows = [r for r in rows if matches(str(r.get(key, "")))]

    def value(r: dict[str, Any]) -> float:
        v = r.get(sort)
        return -math.inf if v is None else float(v)

    def text(r: dict[str, Any]) -> tuple[str, str]:
        return str(r.get(sort, "")).lower(), str(r.get(sort, ""))

    by = text if sort == key else value
    rows = sorted(rows, key=by, reverse=p["order"] == "desc")
    sums = {}
    for k in sorted(numeric):
        values = [r[k] for r in rows if r.get(k) is not None] if additive(k) else []
        if values:
            sums[k] = float(sum(values))
    offset = p["offset"]
    focused: dict[str, int | None] = {}
    if p.get("focus") is not None:  # the page that holds the row keyed so, and where
        at = next((i for i, r in enumerate(rows) if str(r.get(key, "")) == p["focus"]), None)
        if at is not None:
            offset = at - at % limit
        focused["focus_index"] = None if at is None else at - offset
    return {"sort": sort, "order": p["order"], "total": len(rows), "offset": offset,
            "limit": limit, "sums": sums, "rows": rows[offset : offset + limit],
            **focused}  # fmt: skip


def _grouped(target: access.Target, ops_by: str, kernels_by: str) -> tuple[list, list]:
    memo = access.derived(target, "grouped")
    key = f"{ops_by}|{kernels_by}"
    if key not in memo:
        memo[key] = grouped_tables(access.trace(target), ops_by, kernels_by)
    ops, kernels = memo[key]
    return ops, kernels


def _instances(target: access.Target) -> InstanceTable:
    memo = access.derived(target, "instances")
    if "table" not in memo:
        found = access.trace(target)
        memo["table"] = instance_table(found, op_tree(found))
    table: InstanceTable = memo["table"]
    return table


def _types(target: access.Target) -> tuple[str, list[dict[str, Any]]]:
    """Every operator type (the measure it is ranked by, rows): MindSpore's per-instance
    operator table where the input has one, as in the report, else the operator calls."""
    memo = access.derived(target, "types")
    if "rows" not in memo:
        found = access.trace(target)
        side = found.tables.get(OPERATORS_TABLE)
        if side is not None and len(side["name"]):
            t = op_type_table(found)
            keys = ("calls", "total_us", "mean_us", "percent")
            rows = [{"type": name, **{k: t[k][i] for k in keys}}
                    for i, name in enumerate(t["op_type"])]  # fmt: skip
            memo["by"], memo["rows"] = "total_ns", rows
        else:
            table = _instances(target)
            summary = op_type_summary(table, top=max(len(table.types), 1))
            memo["by"], memo["rows"] = summary["by"], summary["types"] if len(table) else []
    return memo["by"], memo["rows"]


def _instance_sort(sort: str | None) -> str:
    """Instance sort keys are `*_ns` columns; the rows' `*_us` names are accepted too."""
    key = sort or "device_self_ns"
    if key.endswith("_us"):
        key = key[:-3] + "_ns"
    if key not in SORTABLE:
        names = ", ".join(k for s in SORTABLE for k in (s, s[:-3] + "_us"))
        raise _bad("sort", f"must be one of {names}")
    return key


def _side_instances(target: access.Target) -> list[dict[str, Any]]:
    """Operator instances of an input that records them only as a table (legacy MindSpore
    AI Core: name, type, calls and total device time; no start, no host time)."""
    memo = access.derived(target, "side_instances")
    if "rows" not in memo:
        found = access.trace(target)
        side = found.tables.get(OPERATORS_TABLE)
        rows: list[dict[str, Any]] = []
        if side is not None and len(side["name"]):
            names = found.strings.lookup(side["name"])
            types = found.strings.lookup(side["op_type"])
            totals = (side["total_ns"] / 1000.0).tolist()
            for name, kind, calls, us in zip(names, types, side["calls"].tolist(), totals,
                                             strict=True):  # fmt: skip
                rows.append({"name": name, "type": kind, "calls": calls, "start_us": None,
                             "offset_us": None, "host_self_us": None, "host_total_us": None,
                             "device_self_us": us, "device_total_us": us})  # fmt: skip
        memo["rows"] = rows
    found_rows: list[dict[str, Any]] = memo["rows"]
    return found_rows


def _instance_page(target: access.Target, p: dict[str, Any]) -> dict[str, Any]:
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    sort = _instance_sort(p.get("sort"))
    types = [t for t in p["type"].split(",") if t] if p.get("type") else None
    if not len(_instances(target)) and _side_instances(target):
        rows = _side_instances(target)
        if types is not None:
            rows = [r for r in rows if r["type"] in types]
        return page_rows(rows, {**p, "sort": sort[:-3] + "_us"}, "device_self_us")
    try:
        page = query_instances(_instances(target), sort, p["order"] == "desc", p.get("search"),
                               types, None, p["offset"], limit)  # fmt: skip
    except ValueError as exc:
        raise _bad("limit", str(exc)) from None
    # Where each call starts on the timeline (whose times count from the trace's origin).
    zero_us = access.origin_ns(target) / 1000.0
    for row in page["rows"]:
        row["offset_us"] = row["start_us"] - zero_us
    return {"sort": p.get("sort") or sort, "order": p["order"], "limit": limit, **page}


@endpoint(bp, "/runs/<run>/operators", schemas.OperatorQuery, schemas.TablePage)
def operators(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Operators by name, input shapes, call stack or type, or one row per call; paged."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    group = p["group_by"]
    if p.get("type") and group != "instance":
        raise _bad("type", "only with group_by=instance")
    if p.get("focus") and group == "instance":
        raise _bad("focus", "not with group_by=instance (a call has no key)")
    out: dict[str, Any] = {**target.where(), "group_by": group}
    if group == "instance":
        return {**out, **_instance_page(target, p)}
    if group == "type":
        by, rows = _types(target)
        return {**out, "by": by, **page_rows(rows, p, "total_us", key="type")}
    if group == "name":
        rows = access.report(target)["operators"]
    else:
        rows = _grouped(target, group, "name")[0]
    return {**out, **page_rows(rows, p, "device_self_us")}


@endpoint(bp, "/runs/<run>/kernels", schemas.KernelQuery, schemas.KernelPage)
def kernels(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Device kernels by name, or by name + operator + launch configuration; paged."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    group = p["group_by"]
    if group == "name":
        rows = access.report(target)["kernels"]
    else:
        rows = _grouped(target, "name", group)[1]
    return {**target.where(), "group_by": group, **page_rows(rows, p, "total_us")}
