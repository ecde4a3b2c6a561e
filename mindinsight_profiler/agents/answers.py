"""What each MCP tool answers, as plain data: small by default, paged where it can be long.

Every figure is the report's or the advice's own (`analyse`/`advise --format json`), so an
agent, the CLI and the dashboard agree. Long lists are cut to a page with the total and
the next offset; per-call arrays (durations of every collective call, memory curves) are
left out, and the tools that return rows say how to get the next ones.
"""

from __future__ import annotations

from typing import Any

import msgspec

from mindinsight_profiler.agents.catalog import Catalog
from mindinsight_profiler.analysis.cluster.view import cluster_view, collective_rows
from mindinsight_profiler.analysis.diff import diff_reports
from mindinsight_profiler.analysis.operators.tables import KERNEL_GROUPS, OPERATOR_GROUPS
from mindinsight_profiler.analysis.report import grouped_tables
from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.errors import BadArgument
from mindinsight_profiler.pipeline.advice import run_reports

#: The largest page a tool returns; answers stay under `MAX_ANSWER_BYTES` of JSON.
MAX_LIMIT = 200
MAX_ANSWER_BYTES = 64 * 1024


def _page(rows: list[dict[str, Any]], offset: int, limit: int) -> dict[str, Any]:
    if offset < 0:
        raise BadArgument("offset", "must be 0 or more")
    if not 1 <= limit <= MAX_LIMIT:
        raise BadArgument("limit", f"must be 1 to {MAX_LIMIT}")
    page = rows[offset : offset + limit]
    following = offset + len(page)
    return {
        "total": len(rows),
        "offset": offset,
        "rows": page,
        "next_offset": following if following < len(rows) else None,
    }


def list_runs(catalog: Catalog) -> dict[str, Any]:
    """The runs under the base folder: name, workers, input formats."""
    runs = [
        {
            "run": r.name,
            "workers": r.workers,
            "formats": sorted({str(f.format) for f in r.files}),
        }
        for r in catalog.runs()
    ]
    return {"runs": runs[:MAX_LIMIT], "total": len(runs)}


def _top(rows: list[dict[str, Any]], key: str, n: int, fields: tuple[str, ...]) -> list[Any]:
    ranked = sorted(rows, key=lambda r: -(r.get(key) or 0.0))[:n]
    return [{f: r.get(f) for f in fields} for r in ranked]


def run_overview(catalog: Catalog, run: str, worker: str | None = None) -> dict[str, Any]:
    """Steps, the average step by category, MFU, the top operators and kernels."""
    r = catalog.report(run, worker)
    steps = r["steps"]
    device = r["device_type"] != "cpu"
    op_key = "device_self_us" if device else "host_self_us"
    totals = (r.get("perf_model") or {}).get("totals") or {}
    return {
        "run": run,
        "worker": r["worker"],
        "format": r["format"],
        "framework": r["framework"],
        "device_type": r["device_type"],
        "steps": {k: steps[k] for k in ("count", "names", "average_us", "durations_us")},
        "average_step_breakdown_us": r["breakdown_us"],
        "mfu": totals.get("mfu"),
        "top_operators": _top(r["operators"], op_key, 5, ("name", "calls", op_key)),
        "top_kernels": _top(r["kernels"], "total_us", 5, ("name", "calls", "total_us")),
        "warnings": [w["message"] for w in r.get("warnings") or []][:20],
    }


def advise(
    catalog: Catalog, run: str, worker: str | None = None, limit: int = 10
) -> dict[str, Any]:
    """Ranked findings (id, severity, title, saving) with how much evidence each has."""
    advice = catalog.advice(run, worker)
    findings = [
        {
            "id": f.id,
            "severity": f.severity,
            "category": f.category,
            "title": f.title.en,
            "message": f.message.en,
            "estimated_saving_us": f.estimated_saving_us,
            "saving_share": f.saving_share,
            "actions": [a.en for a in f.actions],
            "evidence_ids": [f"{f.id}#{i}" for i in range(len(f.evidence))][:20],
        }
        for f in advice.findings
    ]
    page = _page(findings, 0, limit)
    return {
        "run": run,
        "findings": page["rows"],
        "total": page["total"],
        "combined_saving_us": advice.combined_saving_us,
        "combined_saving_share": advice.combined_saving_share,
        "ledger_us": advice.ledger_us,
        "window_limit": advice.window_limit.en if advice.window_limit else None,
        "how_to_cite": "cite a finding by its id; explain_finding gives its evidence",
    }


def explain_finding(
    catalog: Catalog, run: str, finding_id: str, worker: str | None = None
) -> dict[str, Any]:
    """One finding in full: message, actions, facts and every piece of evidence (steps,
    operators, kernels, time ranges to open with timeline_window)."""
    advice = catalog.advice(run, worker)
    for f in advice.findings:
        if f.id == finding_id:
            out: dict[str, Any] = msgspec.to_builtins(f)
            out["evidence"] = [{"evidence_id": f"{f.id}#{i}", **e}
                               for i, e in enumerate(out["evidence"])]  # fmt: skip
            return out
    ids = ", ".join(f.id for f in advice.findings) or "none"
    raise BadArgument("finding_id", f"no finding {finding_id!r} in run {run!r}; findings: {ids}")


def table(
    catalog: Catalog,
    run: str,
    what: str,
    worker: str | None = None,
    group_by: str = "name",
    sort: str | None = None,
    search: str | None = None,
    offset: int = 0,
    limit: int = 20,
) -> dict[str, Any]:
    """Operators or kernels (`what`), grouped, filtered by name, sorted (descending), paged."""
    groups = OPERATOR_GROUPS if what == "operators" else KERNEL_GROUPS
    if group_by not in groups:
        raise BadArgument("group_by", f"must be one of {', '.join(groups)}")
    report = catalog.report(run, worker)
    if group_by == "name":
        rows = report[what]
    else:
        ops_by, kernels_by = (group_by, "name") if what == "operators" else ("name", group_by)
        ops, kernels = grouped_tables(catalog.trace(run, worker), ops_by, kernels_by)
        rows = ops if what == "operators" else kernels
    numeric = sorted({k for r in rows[:1] for k, v in r.items() if isinstance(v, (int, float))})
    default = "device_self_us" if what == "operators" else "total_us"
    if what == "operators" and report["device_type"] == "cpu":
        default = "host_self_us"
    sort = sort or default
    if rows and sort not in numeric:
        raise BadArgument("sort", f"must be one of {', '.join(numeric)}")
    matches = name_matcher(search)
    if matches is not None:
        rows = [r for r in rows if matches(str(r.get("name", "")))]
    rows = sorted(rows, key=lambda r: -(r.get(sort) or 0.0))
    return {"run": run, "group_by": group_by, "sort": sort, **_page(rows, offset, limit)}


def section(catalog: Catalog, run: str, name: str, worker: str | None = None) -> dict[str, Any]:
    """A report section, without its per-call arrays and long curves."""
    report = catalog.report(run, worker)
    data = report.get(name)
    if data is None:
        return {"run": run, name: None, "reason": f"this input has no {name} section"}
    if name == "step_trace":
        data = {**data, "steps": [{k: v for k, v in s.items() if k != "collectives"}
                                  for s in data["steps"][:MAX_LIMIT]]}  # fmt: skip
    elif name == "memory":
        data = {"devices": [{k: v for k, v in d.items() if k not in ("curve", "pairs")}
                            for d in data["devices"]]}  # fmt: skip
        for d in data["devices"]:
            d["operators"] = (d.get("operators") or [])[:20]
    elif name == "communication":
        data = {
            **data,
            "steps": data["steps"][:MAX_LIMIT],
            "collectives": [
                {k: v for k, v in c.items() if k != "durations_us"}
                for c in data["collectives"][:MAX_LIMIT]
            ],
            "links": data["links"][:MAX_LIMIT],
        }
    elif name == "data_pipeline":
        data = {k: v for k, v in data.items() if k != "cpu"}
    elif name == "perf_model":  # the costliest rows of each table; the rest via the API
        top = lambda rows: sorted(rows or [], key=lambda r: -(r.get("time_us") or 0.0))[:15]  # noqa: E731
        data = {
            **{k: v for k, v in data.items() if not k.endswith("_zh")},
            "operators": top(data.get("operators")),
            "kernels": top(data.get("kernels")),
            "shapes": top(data.get("shapes")),
            "steps": (data.get("steps") or [])[:50],
            "unknown": (data.get("unknown") or [])[:15],
            "note": "operators, kernels and shapes: the 15 costliest rows of each",
        }
    return {"run": run, name: data}


def cluster(catalog: Catalog, run: str) -> dict[str, Any]:
    """Every rank compared: step time, exposed communication, the slowest rank, waits."""
    found = catalog.run(run)
    summaries = run_reports(found, catalog.workspace, catalog.options)
    view = cluster_view(found.name, [s["worker"] for s in summaries], summaries)
    collectives = collective_rows(view)[:MAX_LIMIT]
    return {
        "run": run,
        "ranks": view["ranks"][:MAX_LIMIT],
        "rank_count": len(view["ranks"]),
        "slowest": view["slowest"],
        "collectives": collectives,
        "outliers": view["outliers"][:50],
    }


def diff_runs(catalog: Catalog, before: str, after: str, top: int = 10) -> dict[str, Any]:
    """Before/after of two runs: the average step, each category, operators and kernels."""
    if not 1 <= top <= 50:
        raise BadArgument("top", "must be 1 to 50")
    return diff_reports(catalog.report(before), catalog.report(after), top)
