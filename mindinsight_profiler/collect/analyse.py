"""Analyse what a `Profiler` collected and write the results into the run.

`analysis/report.json` is self-describing (schema version, options, source trace) so the
dashboard and the CLI can serve it without re-parsing; it is written atomically.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.analysis.operators.filters import operator_mask
from mindinsight_profiler.analysis.operators.shapes import shape_list
from mindinsight_profiler.analysis.operators.stats import OpTree, op_tree
from mindinsight_profiler.analysis.operators.tables import operator_table
from mindinsight_profiler.analysis.options import Options, resolve_device
from mindinsight_profiler.analysis.report import build_report, rows
from mindinsight_profiler.analysis.schema import report_builtins, to_report
from mindinsight_profiler.analysis.steps.step_trace import StepPoints
from mindinsight_profiler.collect.options import ProfilerOptions
from mindinsight_profiler.errors import InputError, ProfilerError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.store.atomic import write_json_atomic

REPORT_FILE = "analysis/report.json"
ADVICE_FILE = "analysis/advice.json"
#: Operator instances listed in the detail table (the slowest first).
MAX_DETAIL_ROWS = 10_000

log = logging.getLogger(__name__)


def _op_path(trace: Trace, tree: OpTree, node: int) -> str:
    names = []
    while node >= 0:
        names.append(trace.strings[int(trace.events["name"][tree.index[node]])])
        node = int(tree.parent[node])
    return "/".join(reversed(names))


def operator_details(
    trace: Trace, tree: OpTree, mask: np.ndarray, with_path: bool
) -> list[dict[str, Any]]:
    """The slowest operator instances (by device, else host self time), one row each."""
    ev = trace.events
    nodes = np.flatnonzero(mask)
    key = (
        tree.device_self_ns[nodes] if tree.device_self_ns[nodes].any() else tree.host_self_ns[nodes]
    )
    nodes = nodes[np.argsort(-key, kind="stable")[:MAX_DETAIL_ROWS]]
    out = []
    for n in nodes.tolist():
        i = int(tree.index[n])
        row: dict[str, Any] = {
            "name": trace.strings[int(ev["name"][i])],
            "start_us": int(ev["start_ns"][i]) / 1000.0,
            "host_total_us": int(tree.host_total_ns[n]) / 1000.0,
            "host_self_us": int(tree.host_self_ns[n]) / 1000.0,
            "device_self_us": int(tree.device_self_ns[n]) / 1000.0,
            "input_shape": shape_list(trace.strings[int(ev["input_dims"][i])])
            if ev["input_dims"][i] >= 0
            else None,
        }
        if with_path:
            row["path"] = _op_path(trace, tree, n)
        out.append(row)
    return out


def _probe(profiler_dir: Path, worker: str) -> dict[str, Any] | None:
    path = profiler_dir / f"{worker}.dataloader_probe.json"
    return dict(json.loads(path.read_text())) if path.exists() else None


#: Names the device for the performance model, as `--device-spec` does on the command line.
DEVICE_SPEC_ENV = "MINDINSIGHT_DEVICE_SPEC"


def analyse_run(profiler_dir: Path, options: ProfilerOptions) -> dict[str, Any]:
    """Report of the latest trace in `profiler_dir`, with the Profiler's operator filters."""
    runs = discover(profiler_dir)
    files = [f for run in runs for f in run.files]
    if not files:
        raise InputError(profiler_dir, "no trace was written (was any step profiled?)")
    latest = max(files, key=lambda f: (f.path.stat().st_mtime_ns, f.span))
    trace = read_trace(latest.path, latest.format, latest.worker)
    probe = _probe(profiler_dir, latest.worker)
    tree = op_tree(trace)
    # the training script is an edge: the environment is read here
    configured = Options(
        StepPoints.from_environ(os.environ), resolve_device(os.environ.get(DEVICE_SPEC_ENV))
    )
    # the report's declared contract first, then the Profiler's own keys on top of it
    report = report_builtins(
        to_report(build_report(trace, probe=probe, tree=tree, options=configured))
    )
    mask = operator_mask(
        trace, tree, options.subgraph, options.optypes_to_deal, options.optypes_not_deal
    )
    report["operators"] = rows(operator_table(trace, tree, rows_mask=mask))
    if options.is_detail:
        report["operator_details"] = operator_details(trace, tree, mask, options.is_show_op_path)
    report.update(
        worker=latest.worker,
        span=latest.span,
        trace_file=latest.path.name,
        options=options.to_json(),
        dataloader_probe=probe,
    )
    _write_advice(profiler_dir, report, trace)
    write_json_atomic(profiler_dir / REPORT_FILE, report)
    return report


def _write_advice(profiler_dir: Path, report: dict[str, Any], trace: Trace) -> None:
    """`analysis/advice.json` beside the report, and its headline in `report["advice"]`.

    Advice never fails the analysis itself.
    """
    from mindinsight_profiler.advisor import advise_report

    try:
        advice = advise_report(report, lambda: trace)
    except ProfilerError as exc:  # e.g. an unreadable rule file in a broken install
        log.warning("no advice: %s", exc)
        return
    write_json_atomic(profiler_dir / ADVICE_FILE, msgspec.to_builtins(advice))
    report["advice"] = {"findings": [f.id for f in advice.findings]}
    if advice.findings:
        top = advice.findings[0]
        report["advice"]["top"] = f"[{top.severity}] {top.title.en}"


def summary(report: dict[str, Any], profiler_dir: Path) -> str:
    """A few lines for the training log: steps, where time goes, top operators, next step."""
    steps = report["steps"]
    avg = steps["average_us"] or 1.0
    parts = sorted(report["breakdown_us"].items(), key=lambda kv: -kv[1])
    shares = " | ".join(f"{k} {100 * v / avg:.1f}%" for k, v in parts if v > 0)[:200]
    ops = ", ".join(
        f"{o['name']} {o['host_self_us'] / 1000:.1f} ms" for o in report["operators"][:3]
    )
    run = profiler_dir.parent
    advice = report.get("advice") or {}
    advice_line = (
        f"  advice: {advice['top']} (+{len(advice['findings']) - 1} more: mindinsight advise)\n"
        if advice.get("top")
        else ""
    )
    return (
        f"mindinsight_profiler: {steps['count']} steps of {report['worker']}, "
        f"average {avg / 1000:.2f} ms\n  {shares}\n  top operators: {ops}\n{advice_line}"
        f"  results: {profiler_dir / REPORT_FILE}\n"
        f"  view: mindinsight start --summary-base-dir {run.parent}"
    )
