"""Per-rank summaries: the cluster views and the advisor's cluster facts need nothing more.

On real multi-rank runs, `cluster_summary`, `worker_stages` and the advice of every worker
are compared computed from full reports and from `rank_summary`s; and a summary's size is
shown not to follow the number of events.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mindinsight_profiler.advisor import advise_report
from mindinsight_profiler.analysis.cluster.rank_summary import SUMMARY_KEYS, rank_summary
from mindinsight_profiler.analysis.cluster.stages import worker_stages
from mindinsight_profiler.analysis.cluster.summary import cluster_summary
from mindinsight_profiler.analysis.schema import report_builtins, report_for
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

RUNS = (
    "hta/trace_filter",
    "ascend_pytorch/level0",
    "ascend_pytorch/level1",
    "mindspore_legacy/cluster_propose",
)

#: Rules on cluster facts (the facts that read the other ranks).
CLUSTER_RULES = {
    "collective_wait", "parallel_comm_share", "pipeline_receive_share",
    "pipeline_stage_comm_share", "pipeline_stage_flops", "rank_compute_imbalance",
    "rank_iteration_interval", "slow_link", "slow_rank", "slow_rank_flops",
}  # fmt: skip


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("summary-ws"))


def _reports(path: Path, ws: Workspace) -> list[dict[str, Any]]:
    run = discover(path)[0]
    out = []
    for worker in run.workers:
        f = run.select(worker)
        report, _ = analyse_file(f.source, ws, None, f.format, f.worker)
        out.append(report_for(report, f.worker, f.span))
    return out


@pytest.mark.parametrize("rel", RUNS)
def test_cluster_views_equal_from_summaries(rel: str, ws: Workspace) -> None:
    reports = _reports(shared(rel), ws)
    assert len(reports) >= 2
    summaries = [rank_summary(r) for r in reports]
    for s in summaries:
        assert tuple(s) == SUMMARY_KEYS
        assert s["rank"] is None or isinstance(s["rank"], int)
    full = cluster_summary(reports)
    assert full["ranks"] and full["collectives"]  # every run here has collectives
    assert cluster_summary(summaries) == full
    assert worker_stages(summaries) == worker_stages(reports)
    # the summaries cross process boundaries as JSON: the answer survives the round trip
    assert cluster_summary(json.loads(json.dumps(summaries))) == full


@pytest.mark.parametrize("rel", ("hta/trace_filter", "mindspore_legacy/cluster_propose"))
def test_advice_equal_from_summaries(rel: str, ws: Workspace) -> None:
    """Every worker's advice, cluster facts included, with summaries as the other ranks."""
    run = discover(shared(rel))[0]
    reports = _reports(shared(rel), ws)
    summaries = [rank_summary(r) for r in reports]
    for report in reports:
        f = run.select(report["worker"])

        def trace(f: Any = f) -> Any:
            return load_trace(f.source, ws, None, f.format, f.worker)

        from_reports = advise_report(report, trace, lambda: reports)
        from_summaries = advise_report(report, trace, lambda: summaries)
        assert msgspec.to_builtins(from_summaries) == msgspec.to_builtins(from_reports)
        evaluated = {c.id for c in from_reports.checked} | {f.id for f in from_reports.findings}
        assert len(evaluated & CLUSTER_RULES) >= 2, evaluated  # the comparison covers them


def _with_extra_ops(source: Path, dest: Path, extra: int) -> Path:
    """The real trace plus `extra` distinct tiny CPU ops inside its first step."""
    with gzip.open(source, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    step = next(e for e in events if str(e.get("name", "")).startswith("ProfilerStep#"))
    t0 = float(step["ts"])
    for k in range(extra):
        events.append({"ph": "X", "cat": "cpu_op", "name": f"extra_op_{k}", "pid": 999,
                       "tid": 999, "ts": t0 + 10 + 2 * k, "dur": 1, "args": {}})  # fmt: skip
    with gzip.open(dest, "wt") as f:
        json.dump(doc, f)
    return dest


def test_summary_size_does_not_follow_events(tmp_path: Path) -> None:
    source = shared("hta/trace_filter/sampled_rank-0.json.gz")
    small = _with_extra_ops(source, tmp_path / "small.json.gz", 0)
    big = _with_extra_ops(source, tmp_path / "big.json.gz", 20_000)
    r_small, r_big = (report_builtins(analyse_file(p)[0]) for p in (small, big))
    s_small, s_big = rank_summary(r_small), rank_summary(r_big)
    size = {k: len(json.dumps(v)) for k, v in (("rs", r_small), ("rb", r_big),
                                                ("ss", s_small), ("sb", s_big))}  # fmt: skip
    assert size["rb"] > 5 * size["rs"]  # the report grew with the 20,000 new operators
    assert abs(size["sb"] - size["ss"]) < 0.05 * size["ss"]  # the summary did not
    assert s_big["steps"] == s_small["steps"]
    assert s_big["communication"] == s_small["communication"]
    # what it may grow with: the steps and the collective calls
    assert len(s_small["steps"]["durations_us"]) == s_small["steps"]["count"]
    calls = sum(len(c["durations_us"]) for c in s_small["communication"]["collectives"])
    assert calls == sum(c["calls"] for c in s_small["communication"]["collectives"])


def test_summary_copies_and_cuts(ws: Workspace) -> None:
    (report,) = _reports(shared("ascend_pytorch/level1"), ws)[:1]
    summary = rank_summary(report)
    assert summary["gpu"] is not None and set(summary["gpu"]) == {
        "utilization", "sm_efficiency", "occupancy"}  # fmt: skip
    assert set(summary["step_trace"]) == {"fp_point", "bp_point", "average"}
    assert summary["rank"] == report["distributed"]["rank"] == 0
    summary["communication"]["steps"].clear()  # a summary never aliases the (cached) report
    assert report["communication"]["steps"]
