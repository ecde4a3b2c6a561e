"""Run diff: what got slower or faster between two runs (or workers), and by how much.

Works on two reports (the cached, JSON-ready results), so comparing two large runs costs
no re-analysis. Rows are matched by name; a row only in one run counts as 0 in the other.
Sorted by the absolute change, largest first, so the answer to "what changed" is on top.
"""

from __future__ import annotations

from typing import Any

#: (section, time field) compared per named row.
_TABLES = {
    "operators": ("device_self_us", "host_self_us"),
    "kernels": ("total_us",),
}


def _change(name: str, before: float, after: float) -> dict[str, Any]:
    return {
        "name": name,
        "before_us": before,
        "after_us": after,
        "delta_us": after - before,
        "ratio": (after / before) if before else None,
    }


def _rows(
    a: list[dict[str, Any]], b: list[dict[str, Any]], field: str, top: int
) -> list[dict[str, Any]]:
    before = {r["name"]: float(r[field] or 0.0) for r in a}
    after = {r["name"]: float(r[field] or 0.0) for r in b}
    changes = [
        _change(n, before.get(n, 0.0), after.get(n, 0.0)) for n in before.keys() | after.keys()
    ]
    changes.sort(key=lambda c: (-abs(c["delta_us"]), c["name"]))
    return changes[:top]


def diff_reports(a: dict[str, Any], b: dict[str, Any], top: int = 20) -> dict[str, Any]:
    """Per step (average and each category), operator and kernel: before, after, change."""
    steps = _change("step", a["steps"]["average_us"], b["steps"]["average_us"])
    categories = [
        _change(c, a["breakdown_us"].get(c, 0.0), b["breakdown_us"].get(c, 0.0))
        for c in a["breakdown_us"]
    ]
    categories.sort(key=lambda c: -abs(c["delta_us"]))
    out: dict[str, Any] = {"step": steps, "breakdown": categories}
    for section, fields in _TABLES.items():
        out[section] = {
            f: _rows(a.get(section) or [], b.get(section) or [], f, top) for f in fields
        }
    return out
