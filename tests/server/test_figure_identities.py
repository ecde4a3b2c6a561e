"""The API's figures that several pages show are one figure: identities across endpoints,
for every run of ../shared/data (the browser reads them from the pages in
tests/e2e/test_consistency.py; docs/dashboard.md lists the field each page reads).

The server reads ../shared/data in place (it writes only to its workspace, a temporary
folder); analysing all of it takes well under a minute here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import SHARED_DATA
from tests.server.service import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not available: {SHARED_DATA} (../shared/data)")
    found = Server(SHARED_DATA, tmp_path_factory.mktemp("identities-ws"))
    found.start("--reload-interval", "0")
    try:
        runs = found.wait_settled(timeout=900)
        assert len(runs) >= 30, [r["name"] for r in runs]  # every folder of ../shared/data
        yield found
    finally:
        found.stop()


def close(a: float | None, b: float | None, rel: float = 1e-9) -> bool:
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def api(server: Server, run: str, page: str, worker: str | None = None, **q: str) -> Any:
    query = "&".join(f"{k}={quote(v)}" for k, v in {"worker": worker, **q}.items() if v)
    return server.get(f"/api/v1/runs/{run}/{page}" + (f"?{query}" if query else ""))


def worker_problems(server: Server, rid: str, worker: str, ov: dict[str, Any]) -> list[str]:
    """One worker's figures against its overview."""
    steps, out = ov["steps"], []
    first, names, avg = steps["averaged_from"], steps["names"], steps["average_us"]
    covered = steps["covered"]
    if covered["left_out"] != names[:first] or covered["count"] != steps["count"] - first:
        out.append(f"steps.covered {covered} is not steps {first}.. of {names}")
    if steps["count"] and not close(avg, sum(steps["durations_us"][first:]) / covered["count"]):
        out.append(f"average {avg} is not the mean of the covered steps")
    parts = sum(ov["breakdown_us"].values())
    if steps["count"] and not close(parts, avg, 1e-6):
        out.append(f"breakdown parts sum to {parts}, the average step is {avg}")
    trace = api(server, rid, "step-trace", worker)["data"]
    if trace:
        a = trace["average"]
        if not close(a["total_us"], avg) or a["covered"] != covered:
            out.append(f"step trace average {a['total_us']} ({a['covered']}) != {avg} ({covered})")
        stages = a["iteration_interval_us"] + a["fp_and_bp_us"] + a["tail_us"]
        if not close(stages, a["total_us"], 1e-6):
            out.append(f"step trace stages sum to {stages}, its total is {a['total_us']}")
        if ov["step_stages"] and ov["step_stages"]["average"] != a:
            out.append("the overview's step stages are not the step trace's average")
    comm = api(server, rid, "communication", worker)["data"]
    if comm:
        if comm["covered"]["count"] != len(comm["average_steps"]):
            out.append(f"communication covered {comm['covered']} != {comm['average_steps']}")
        # never a step the overview leaves out (compilation): at most fewer, if untimed
        if set(comm["average_steps"]) & set(names[:first]):
            out.append(f"communication averages {comm['average_steps']}, not {names[first:]}")
        # over the overview's steps, the overview's figure (the files may time fewer)
        comm_step = comm["average"]["step_us"]
        same_steps = comm["average_steps"] == names[first:] and comm_step is not None
        if same_steps and not close(comm_step, avg):
            out.append(f"communication average step {comm_step} != {avg}")
    pipeline = api(server, rid, "data-pipeline", worker)["data"]
    if ov["data_pipeline"] and pipeline and pipeline["data_wait"]:
        mine, theirs = ov["data_pipeline"]["data_wait"], pipeline["data_wait"]
        if any(mine[k] != theirs[k] for k in ("average_us", "covered", "share")):
            out.append(f"data wait: overview {mine} != data pipeline {theirs}")
    perf = api(server, rid, "perf-model", worker)["data"]
    if (
        ov["perf"]
        and perf
        and (ov["perf"]["mfu"], covered) != (perf["totals"]["mfu"], perf["covered"])
    ):
        out.append(f"MFU: overview {ov['perf']['mfu']} != roofline {perf['totals']['mfu']}")
    ledger = api(server, rid, "advice", worker)["advice"].get("ledger_us")
    if ledger and not close(sum(ledger.values()), avg, 1e-6):
        out.append(f"advisor's ledger sums to {sum(ledger.values())}, the average step is {avg}")
    return [f"[{rid} {worker}] {p}" for p in out]


def test_each_figure_is_one_figure_on_every_endpoint(server: Server) -> None:
    runs = server.get("/api/v1/runs")["runs"]
    assert all(r["state"] == "ready" for r in runs), [r for r in runs if r["state"] != "ready"]
    problems, checked, averaged_from_1 = [], 0, 0
    overviews: dict[str, dict[str, Any]] = {}
    for run in runs:
        rid = run["id"]
        seen = {w: api(server, rid, "overview", w) for w in run["workers"]}
        for worker, ov in seen.items():
            problems += worker_problems(server, rid, worker, ov)
            checked += 1
            averaged_from_1 += ov["steps"]["averaged_from"] == 1
        first = seen[run["workers"][0]]["steps"]
        overviews[rid] = first
        summary = run["summary"]
        if summary["step_us"] != first["average_us"] or summary["step_covered"] != first["covered"]:
            problems.append(f"[{run['name']}] run list {summary} != overview of the first worker")
        if len(run["workers"]) > 1:
            for row in api(server, rid, "cluster")["stages"]:
                steps = seen[row["worker"]]["steps"]
                expected = steps["average_us"] if steps["count"] else None
                if row["step_us"] != expected or row["step_covered"] != (
                    steps["covered"] if steps["count"] else None
                ):
                    problems.append(f"[{run['name']} {row['worker']}] cluster {row['step_us']}")
    for run, other in itertools.pairwise(runs):
        d = api(server, run["id"], "diff", other=other["id"])
        mine, theirs = overviews[run["id"]], overviews[other["id"]]
        if (d["step"]["before_us"], d["step"]["after_us"]) != (
            mine["average_us"],
            theirs["average_us"],
        ) or (d["before_covered"], d["after_covered"]) != (mine["covered"], theirs["covered"]):
            problems.append(f"[{run['name']} -> {other['name']}] diff step {d['step']}")
    assert checked >= 45 and averaged_from_1 >= 7, (checked, averaged_from_1)
    assert not problems, "\n".join(problems)
