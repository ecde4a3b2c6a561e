"""Operators and kernels: server-side sort, name search and paging of the report's tables.

Grouped by name, the rows are the cached report's; the other groupings (input shapes, call
stack, kernel launch) and the per-call instance table are computed once per process from
the memory-mapped cached trace and kept with it (`access.derived`).
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint

from mindinsight_profiler.analysis.op_query import (
    SORTABLE,
    InstanceTable,
    instance_table,
    query_instances,
)
from mindinsight_profiler.analysis.ops import op_tree
from mindinsight_profiler.analysis.report import grouped_tables
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.app import services
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.routes.common import endpoint

bp = Blueprint("tables", __name__)


def _bad(name: str, message: str) -> ApiError:
    return ApiError(400, "bad_parameter", f"{name}: {message}", parameter=name)


def page_rows(
    rows: list[dict[str, Any]], p: dict[str, Any], default_sort: str, key: str = "name"
) -> dict[str, Any]:
    """Filter by `search` (in `key`, any case), sort by a numeric column, then one page."""
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    sort = p.get("sort") or default_sort
    numeric = {k for r in rows[:1] for k, v in r.items() if isinstance(v, (int, float))}
    if rows and sort not in numeric:
        raise _bad("sort", f"must be one of {', '.join(sorted(numeric))}")
    if p.get("search"):
        needle = p["search"].lower()
        rows = [r for r in rows if needle in str(r.get(key, "")).lower()]

    def value(r: dict[str, Any]) -> float:
        v = r.get(sort)
        return -math.inf if v is None else float(v)

    rows = sorted(rows, key=value, reverse=p["order"] == "desc")
    offset = p["offset"]
    return {"sort": sort, "order": p["order"], "total": len(rows), "offset": offset,
            "limit": limit, "rows": rows[offset : offset + limit]}  # fmt: skip


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


def _instance_page(target: access.Target, p: dict[str, Any]) -> dict[str, Any]:
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    sort = p.get("sort") or "device_self_ns"
    if sort not in SORTABLE:
        raise _bad("sort", f"must be one of {', '.join(SORTABLE)}")
    types = [t for t in p["type"].split(",") if t] if p.get("type") else None
    try:
        page = query_instances(_instances(target), sort, p["order"] == "desc", p.get("search"),
                               types, None, p["offset"], limit)  # fmt: skip
    except ValueError as exc:
        raise _bad("limit", str(exc)) from None
    return {"sort": sort, "order": p["order"], "limit": limit, **page}


@endpoint(bp, "/runs/<run>/operators", schemas.OperatorQuery, schemas.Page)
def operators(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Operators by name, input shapes, call stack or type, or one row per call; paged."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    group = p["group_by"]
    if p.get("type") and group != "instance":
        raise _bad("type", "only with group_by=instance")
    out: dict[str, Any] = {**target.where(), "group_by": group}
    if group == "instance":
        return {**out, **_instance_page(target, p)}
    if group == "type":
        types = access.report(target).get("op_types") or {"types": []}
        return {**out, **page_rows(types["types"], p, "total_us", key="type")}
    if group == "name":
        rows = access.report(target)["operators"]
    else:
        rows = _grouped(target, group, "name")[0]
    return {**out, **page_rows(rows, p, "device_self_us")}


@endpoint(bp, "/runs/<run>/kernels", schemas.KernelQuery, schemas.Page)
def kernels(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Device kernels by name, or by name + operator + launch configuration; paged."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    group = p["group_by"]
    if group == "name":
        rows = access.report(target)["kernels"]
    else:
        rows = _grouped(target, "name", group)[1]
    return {**target.where(), "group_by": group, **page_rows(rows, p, "total_us")}
