"""Compare our report with the PyTorch profiler plugin's views (golden file or live plugin).

Tolerance: 0.1 % of the reference value or 1 us for times (the plugin rounds to whole us),
0.01 for figures the plugin rounds to two decimals; rows matched by name, in any order.
"""

from __future__ import annotations

from typing import Any

CATEGORY = {
    "Kernel": "kernel",
    "Memcpy": "memcpy",
    "Memset": "memset",
    "Communication": "communication",
    "Runtime": "runtime",
    "DataLoader": "dataloader",
    "CPU Exec": "cpu_exec",
    "Other": "other",
}
OP_FIELDS = {
    "calls": "calls",
    "device_self_duration": "device_self_us",
    "device_total_duration": "device_total_us",
    "host_self_duration": "host_self_us",
    "host_total_duration": "host_total_us",
}


def close(ref: float, got: float, abs_tol: float = 1.0, rel: float = 0.001) -> bool:
    return abs(ref - got) <= max(abs_tol, rel * abs(ref))


def compare_overview(performance: list[dict[str, Any]], report: dict[str, Any]) -> list[str]:
    errors = []
    avg = performance[0]
    if not close(avg["value"], report["steps"]["average_us"]):
        errors.append(f"average step {avg['value']} != {report['steps']['average_us']}")
    for child in avg["children"]:
        got = report["breakdown_us"][CATEGORY[child["name"]]]
        if not close(child["value"], got):
            errors.append(f"{child['name']}: {child['value']} != {got}")
    return errors


def compare_gpu(summary: list[dict[str, Any]], report: dict[str, Any]) -> list[str]:
    ref = {d["title"]: d["value"] for d in summary}
    gpu = report["gpu"]["devices"][0]
    errors = []
    for title, key in (
        ("GPU Utilization", "utilization"),
        ("Est. SM Efficiency", "sm_efficiency"),
        ("Est. Achieved Occupancy", "occupancy"),
    ):
        want = float(ref[title].rstrip(" %"))
        if not close(want, gpu[key], abs_tol=0.01):
            errors.append(f"{title}: {want} != {gpu[key]}")
    return errors


def compare_operators(
    rows: list[dict[str, Any]], operators: list[dict[str, Any]], by_input: bool = False
) -> list[str]:
    def key(row: dict[str, Any]) -> str:
        shape = row.get("input_shape", "")  # the plugin's text, or our parsed lists
        return row["name"] + (
            "###" + (shape if isinstance(shape, str) else str(shape)) if by_input else ""
        )

    ours = {key(o): o for o in operators}
    errors = []
    if set(ours) != {key(r) for r in rows}:
        errors.append(f"operator rows differ: {sorted(set(ours) ^ {key(r) for r in rows})[:5]}")
    for r in rows:
        o = ours.get(key(r))
        if o is None:
            continue
        for ref_key, our_key in OP_FIELDS.items():
            if not close(r[ref_key], o[our_key]):
                errors.append(f"{r['name']}.{ref_key}: {r[ref_key]} != {o[our_key]}")
        if (r["tc_eligible"] == "Yes") != o["tc_eligible"]:
            errors.append(f"{r['name']}.tc_eligible: {r['tc_eligible']} != {o['tc_eligible']}")
        if r["has_call_stack"] != o["has_call_stack"]:
            errors.append(f"{r['name']}.has_call_stack differs")
    return errors


def compare_kernels(table: dict[str, Any], report: dict[str, Any]) -> list[str]:
    cols = [c["name"] for c in table["columns"]]
    ours = {k["name"]: k for k in report["kernels"]}
    errors = []
    if len(ours) != len(table["rows"]):
        errors.append(f"{len(ours)} kernels, plugin has {len(table['rows'])}")
    for row in table["rows"]:
        ref = dict(zip(cols, row, strict=True))
        k = ours.get(ref["Name"])
        if k is None:
            errors.append(f"missing kernel {ref['Name'][:60]}")
            continue
        pairs = [
            ("Calls", "calls", 0.5),
            ("Total Duration (us)", "total_us", 1.0),
            ("Mean Duration (us)", "mean_us", 1.0),
            ("Max Duration (us)", "max_us", 1.0),
            ("Min Duration (us)", "min_us", 1.0),
            ("Mean Blocks Per SM", "blocks_per_sm", 0.01),
            ("Mean Est. Achieved Occupancy (%)", "occupancy", 0.01),
        ]
        for ref_key, our_key, tol in pairs:
            if not close(ref[ref_key], k[our_key], abs_tol=tol):
                errors.append(f"{ref['Name'][:50]}.{ref_key}: {ref[ref_key]} != {k[our_key]}")
        if (ref["Tensor Cores Used"] == "Yes") != k["tc_used"]:
            errors.append(f"{ref['Name'][:50]}: tensor cores differ")
    return errors
