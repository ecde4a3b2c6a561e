"""Turn raw measurements into the table, the ratios and the target verdicts.

Pure functions over plain dicts (the same dicts written to ``results/*.json``), so a
saved result can be re-reported or compared later without re-running anything.
"""

from __future__ import annotations

from typing import Any

Record = dict[str, Any]

OURS_COLD, OURS_WARM, BARE, TB, HTA = "ours_cold", "ours_warm", "bare_decode", "tb_plugin", "hta"

# The targets from README.md, checked on the largest replicated input (issue 21: a cold
# analysis of x15, 1.1 M events, in 2 s and 400 MB on the 2-core machine; before, 6 s, 1 GB).
TARGET_COLD_WALL_S = 2.0
TARGET_COLD_RSS_MB = 400.0
TARGET_SPEEDUP = 10.0
TARGET_OVER_BARE = 6.0
TARGET_WARM_S = 0.5
# Linear: the cost of one more event on the largest inputs at most this much above its
# cost on the smallest (see ``linearity``).
TARGET_LINEARITY = 1.2


def find(records: list[Record], tool: str, input_label: str) -> Record | None:
    """The fastest successful run of ``tool`` on the input, else its first (failed) run."""
    runs = [r for r in records if r["tool"] == tool and r["input"] == input_label]
    ok = [r for r in runs if r["ok"]]
    if ok:
        return min(ok, key=lambda r: r["wall_s"])
    return runs[0] if runs else None


def ok_wall(record: Record | None) -> float | None:
    return record["wall_s"] if record is not None and record["ok"] else None


def status(record: Record) -> str:
    if record["timed_out"]:
        return "TIMEOUT"
    if record["returncode"] != 0:
        lines = [line for line in record["stderr_tail"].splitlines() if line.strip()]
        return f"FAIL rc={record['returncode']}: {(lines[-1] if lines else '')[:70]}"
    note = "ok"
    failed = (record.get("driver") or {}).get("failed")
    if failed:
        note += f" ({len(failed)} analyses failed: {', '.join(failed)})"
    if record["max_processes"] > 1:
        note += f" [tree: {record['max_processes']} procs, {record['tree_peak_rss_mb']:.0f} MB]"
    return note


def format_table(records: list[Record]) -> str:
    header = f"{'tool':<12} {'input':<16} {'events':>10} {'wall s':>8} {'peak RSS MB':>12}  status"
    lines = [header, "-" * len(header)]
    for r in records:
        events = f"{r['events']:,}" if r.get("events") else "?"
        lines.append(
            f"{r['tool']:<12} {r['input']:<16} {events:>10} {r['wall_s']:>8.2f} "
            f"{r['peak_rss_mb']:>12.0f}  {status(r)}"
        )
    return "\n".join(lines)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 2)


def input_summary(records: list[Record], label: str) -> dict[str, Any]:
    """Ratios for one input: speed-ups over the anchors, cost over the bare decode."""
    cold = find(records, OURS_COLD, label)
    cold_wall = ok_wall(cold)
    events = next((r["events"] for r in records if r["input"] == label and r.get("events")), None)
    per_mev = None
    if cold_wall is not None and events:
        per_mev = round(cold_wall / (events / 1e6), 3)
    return {
        "input": label,
        "events": events,
        "ours_cold_s": cold_wall,
        # the whole process tree (reader helpers, the forked report half) when it had several
        "ours_cold_rss_mb": _tree_peak(cold) if cold and cold["ok"] else None,
        "ours_warm_s": ok_wall(find(records, OURS_WARM, label)),
        "speedup_vs_tb_plugin": ratio(ok_wall(find(records, TB, label)), cold_wall),
        "speedup_vs_hta": ratio(ok_wall(find(records, HTA, label)), cold_wall),
        "ours_over_bare_decode": ratio(cold_wall, ok_wall(find(records, BARE, label))),
        "ours_s_per_million_events": per_mev,
    }


def linearity(summaries: list[dict[str, Any]]) -> float | None:
    """How much dearer an event gets as inputs grow: 1.0 is linear, above it superlinear.

    With three or more replicated inputs: the marginal cost per event between the two
    largest over that between the two smallest, so start-up cost (imports, interpreter)
    cancels out. With two, the plain cost per event of the larger over the smaller, where
    start-up cost flatters the larger, so a value above 1 is still a real warning.
    """
    points = sorted(
        (s["events"], s["ours_cold_s"])
        for s in summaries
        if s["input"].startswith("x") and s["events"] and s["ours_cold_s"] is not None
    )
    if len(points) < 2:
        return None
    if len(points) == 2:
        (e0, w0), (e1, w1) = points
        return ratio(w1 / e1, w0 / e0)
    (e0, w0), (e1, w1) = points[0], points[1]
    (e2, w2), (e3, w3) = points[-2], points[-1]
    first, last = (w1 - w0) / (e1 - e0), (w3 - w2) / (e3 - e2)
    return ratio(last, first) if first > 0 else None


def _tree_peak(record: Record) -> float:
    """Peak RSS of a run: its own, or the sampled sum over its process tree when larger."""
    return float(max(record["peak_rss_mb"], record.get("tree_peak_rss_mb") or 0.0))


def _passes(value: float | None, limit: float, at_least: bool) -> bool | None:
    if value is None:
        return None
    return value >= limit if at_least else value <= limit


def verdicts(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Each README target: the measured value on the largest replicated input, and pass/fail."""
    replicated = [s for s in summaries if s["input"].startswith("x") and s["events"]]
    if not replicated:
        return {}
    big = max(replicated, key=lambda s: s["events"])
    # (name, measured value, limit, True when the value must be at least the limit)
    rows = [
        (f"cold wall <= {TARGET_COLD_WALL_S} s", big["ours_cold_s"], TARGET_COLD_WALL_S, False),
        (
            f"cold peak RSS <= {TARGET_COLD_RSS_MB:.0f} MB",
            big["ours_cold_rss_mb"],
            TARGET_COLD_RSS_MB,
            False,
        ),
        (
            f"speed-up vs tb_plugin >= {TARGET_SPEEDUP}x",
            big["speedup_vs_tb_plugin"],
            TARGET_SPEEDUP,
            True,
        ),
        (f"speed-up vs hta >= {TARGET_SPEEDUP}x", big["speedup_vs_hta"], TARGET_SPEEDUP, True),
        (
            f"ours / bare decode <= {TARGET_OVER_BARE}x",
            big["ours_over_bare_decode"],
            TARGET_OVER_BARE,
            False,
        ),
        (f"warm reopen <= {TARGET_WARM_S} s", big["ours_warm_s"], TARGET_WARM_S, False),
        (f"linearity <= {TARGET_LINEARITY}", linearity(summaries), TARGET_LINEARITY, False),
    ]
    checks = {
        name: {"value": value, "limit": limit, "pass": _passes(value, limit, at_least)}
        for name, value, limit, at_least in rows
    }
    return {"input": big["input"], "checks": checks}


def missed(verdict: dict[str, Any]) -> list[str]:
    """The targets measured and missed (a target not measured, e.g. without the anchors,
    is not a miss)."""
    return [
        name
        for name, check in verdict.get("checks", {}).items()
        if check["value"] is not None and check["pass"] is False
    ]


def format_summaries(summaries: list[dict[str, Any]], verdict: dict[str, Any]) -> str:
    def show(value: float | None, suffix: str = "") -> str:
        return "n/a" if value is None else f"{value}{suffix}"

    lines = [
        f"{'input':<16} {'vs tb':>7} {'vs hta':>7} {'ours/bare':>9} {'warm s':>7} "
        f"{'cold s/Mev':>10}"
    ]
    for s in summaries:
        lines.append(
            f"{s['input']:<16} {show(s['speedup_vs_tb_plugin'], 'x'):>7} "
            f"{show(s['speedup_vs_hta'], 'x'):>7} {show(s['ours_over_bare_decode'], 'x'):>9} "
            f"{show(s['ours_warm_s']):>7} {show(s['ours_s_per_million_events']):>10}"
        )
    lines.append(f"linearity (1.0 = linear, see report.linearity): {show(linearity(summaries))}")
    if verdict:
        note = (
            "" if verdict["input"] == "x15" else " (the targets are set for x15: indicative only)"
        )
        lines.append(f"targets on {verdict['input']}{note}:")
        for name, check in verdict["checks"].items():
            mark = {True: "PASS", False: "FAIL", None: "n/a "}[check["pass"]]
            lines.append(f"  {mark}  {name}: {show(check['value'])}")
    return "\n".join(lines)
