"""Every figure the dashboard shows on several pages reads the same on each of them.

For each run (tests/e2e/consistency_runs.py: one per input family, or every run of
../shared/data with MI_TEST_ALL_RUNS=1) and each of its workers, the browser opens every page
that shows the figure and reads it from the page, as text:

- the average step: overview, step trace (the average), communication, the run list (the
  run's first worker), the diff (before and after), the cluster's rank table;
- the parts of the average step: the overview's breakdown sums to it, the step trace's
  stages sum to its total, MindSpore's stage card on the overview equals the step trace's;
- data wait (overview, data pipeline), memory peaks (overview, memory page), MFU (overview,
  roofline).

Two averages of the same figure must read the same, or say (their `average-note`) that
they cover different steps; every average shows its note. All differences are collected
and reported together, with the counts of the comparisons that agreed (run with -s).
docs/dashboard.md ("Figures on several pages") lists where each figure comes from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.browser import Tab
from tests.e2e.consistency_runs import consistency_server
from tests.server.service import Server

UNITS = {"s": 1e6, "ms": 1e3, "µs": 1.0, "ns": 1e-3}
NUMBER, UNIT = r"-?[\d.]+", "(s|ms|µs|ns)"
DURATION = f"{NUMBER} {UNIT}"  # as formatUs writes it
NO_DATA = "not in this page’s files"  # an average's note: steps its data has no figure for
SETTLED = "[data-state=ready],[data-state=empty],[data-state=error],[data-state=not-ready]"
LOADED = f"""root => {{ const el = document.querySelector(root);
  return !!el && !el.querySelector('[data-state=loading]') && !!el.querySelector('{SETTLED}') }}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from consistency_server(tmp_path_factory)


def duration(text: str | None) -> tuple[float, float] | None:
    """A formatUs text as (microseconds, half its last shown digit): '177.59 ms' ->
    (177590, 5)."""
    m = re.fullmatch(f"({NUMBER}) {UNIT}", (text or "").strip())
    if not m:
        return None
    digits = len(m.group(1).partition(".")[2])
    unit = UNITS[m.group(2)]
    return float(m.group(1)) * unit, 0.5 * 10**-digits * unit


class Walk:
    """The pages read so far and what disagreed; `agreed` counts comparisons per figure."""

    def __init__(self, tab: Tab, server: Server) -> None:
        self.tab, self.page, self.server = tab, tab.page, server
        self.agreed: Counter[str] = Counter()
        self.problems: list[str] = []

    def open(self, path: str, root: str) -> None:
        self.page.goto(self.server.url + path)
        self.page.wait_for_function(LOADED, arg=f"[data-test={root}]")
        # the run list, and the pages of a MindSpore rank whose communication files time
        # fewer steps than its step trace
        shown = path == "/" or (
            ("worker=rank2" in path or path.endswith("/cluster"))
            and "ms_cluster" in self.page.locator("[data-test=run-name]").all_inner_texts()
        )
        if shown:
            self.tab.shot(f"consistency-{root}")

    def text(self, selector: str) -> str | None:
        found = self.page.locator(selector)
        return found.first.inner_text().strip() if found.count() else None

    def texts(self, selector: str) -> list[str]:
        return [t.strip() for t in self.page.locator(selector).all_inner_texts()]

    def same(self, figure: str, where: str, a: str | None, b: str | None) -> None:
        if a is not None and a == b:
            self.agreed[figure] += 1
        else:
            self.problems.append(f"{figure} {where}: {a!r} != {b!r}")

    def sums(self, figure: str, where: str, parts: list[str], total: str | None) -> None:
        """The parts, as shown, add up to the total within their display rounding."""
        shown = [duration(p) for p in parts]
        whole = duration(total)
        if whole is None or not shown or any(p is None for p in shown):
            self.problems.append(f"{figure} {where}: unreadable {parts} / {total!r}")
            return
        got = sum(p[0] for p in shown if p)
        slack = sum(p[1] for p in shown if p) + whole[1]
        if abs(got - whole[0]) <= slack + 1e-9:
            self.agreed[figure] += 1
        else:
            self.problems.append(
                f"{figure} {where}: parts {parts} sum to {got:.1f} us, not {total}"
            )

    def noted(self, figure: str, where: str, value: str | None, note: str | None) -> None:
        """An average shows which steps it covers."""
        if value not in (None, "–") and not note:
            self.problems.append(f"{figure} {where}: {value} without its steps (average-note)")

    def averages(self, figure: str, where: str, a: tuple[str | None, str | None],
                 b: tuple[str | None, str | None]) -> None:  # fmt: skip
        """(value, note) pairs: the same value, or a second note that says it covers fewer
        steps because its data has no figure for the others (never other steps)."""
        if a[0] == b[0] or (a[1] and b[1] and a[1] != b[1] and NO_DATA in b[1]):
            self.agreed[figure] += 1
        else:
            self.problems.append(f"{figure} {where}: {a[0]!r} ({a[1]!r}) vs {b[0]!r} ({b[1]!r})")


def q(worker: str) -> str:
    return f"?worker={quote(worker)}"


def overview(walk: Walk, rid: str, worker: str) -> dict[str, Any]:
    walk.open(f"/runs/{rid}/overview{q(worker)}", "page-overview")
    rows = walk.page.locator("[data-test=memory-summary] tbody tr")
    memory = {}
    for i in range(rows.count()):
        cells = [c.strip() for c in rows.nth(i).locator("td").all_inner_texts()]
        memory[cells[0]] = cells[1:3]
    return {
        "step": walk.text("[data-test=avg-step] .stat-value"),
        "note": walk.text("[data-test=avg-step] [data-test=average-note]"),
        "breakdown": walk.texts("[data-test=breakdown] .breakdown-table tbody td:nth-child(2)"),
        "stages": walk.texts("[data-test=step-stages] .stage-value"),
        "wait": walk.text("[data-test=overview-wait]"),
        "wait_note": walk.text("[data-test=data-summary] [data-test=average-note]"),
        "mfu": walk.text("[data-test=mfu-value]"),
        "memory": memory,
    }


def check_worker(walk: Walk, run: dict[str, Any], worker: str, ov: dict[str, Any]) -> None:
    """The worker's pages against its overview (`ov`)."""
    rid, where, pages = run["id"], f"[{run['name']} {worker}]", run["pages"]
    walk.noted("average step", f"overview {where}", ov["step"], ov["note"])
    if ov["breakdown"]:
        walk.sums("breakdown parts = average step", where, ov["breakdown"], ov["step"])
    if "step-trace" in pages:
        walk.open(f"/runs/{rid}/step-trace{q(worker)}", "page-step-trace")
        total = walk.text("[data-test=step-bar] .total b")
        if total is not None:
            note = walk.text("[data-test=step-detail] [data-test=average-note]")
            walk.noted("average step", f"step trace {where}", total, note)
            walk.same("average step: overview = step trace", where, ov["step"], total)
            walk.same("steps covered: overview = step trace", where, ov["note"], note)
            legend = walk.texts("[data-test=step-bar] .legend-item")
            stages = [m.group(0) for s in legend if (m := re.search(DURATION, s.split(": ")[1]))]
            walk.sums("step trace stages = its total", where, stages, total)
            if ov["stages"]:
                walk.same(
                    "stages: overview = step trace",
                    where,
                    " | ".join(ov["stages"]),
                    " | ".join(stages),
                )
    if "communication" in pages:
        walk.open(f"/runs/{rid}/communication{q(worker)}", "page-communication")
        step = walk.text("[data-test=page-communication] .stats .el-card .stat-value")
        if step is not None:
            note = walk.text("[data-test=comm-averaged] [data-test=average-note]")
            walk.noted("average step", f"communication {where}", step, note)
            walk.averages(
                "average step: overview = communication",
                where,
                (ov["step"], ov["note"]),
                (step, note),
            )
    if ov["wait"] is not None and "data-pipeline" in pages:
        walk.noted("data wait", f"overview {where}", ov["wait"], ov["wait_note"])
        walk.open(f"/runs/{rid}/data-pipeline{q(worker)}", "page-data-pipeline")
        wait = walk.text("[data-test=avg-wait]")
        if wait is not None:
            walk.same("data wait: overview = data pipeline", where, ov["wait"], wait)
    for device, (allocated, reserved) in ov["memory"].items() if "memory" in pages else ():
        walk.open(f"/runs/{rid}/memory{q(worker)}&device={quote(device)}", "page-memory")
        shown = (
            walk.text("[data-test=peak-allocated] .stat-value"),
            walk.text("[data-test=peak-reserved] .stat-value"),
        )
        walk.same(
            "memory peaks: overview = memory",
            f"{where} {device}",
            f"{allocated} / {reserved}",
            " / ".join(map(str, shown)),
        )
    if ov["mfu"] is not None and "roofline" in pages:
        walk.open(f"/runs/{rid}/roofline{q(worker)}", "page-roofline")
        walk.same(
            "MFU: overview = roofline",
            where,
            ov["mfu"],
            walk.text("[data-test=perf-mfu] .stat-value"),
        )


def check_cluster(walk: Walk, run: dict[str, Any], steps: dict[str, dict[str, Any]]) -> None:
    """Each rank's step in the cluster's rank table is its worker's overview average."""
    walk.open(f"/runs/{run['id']}/cluster", "page-cluster")
    rows = walk.page.locator("[data-test=rank-table] tbody tr")
    for i in range(rows.count()):
        cells = [c.strip() for c in rows.nth(i).locator("td").all_inner_texts()]
        worker, step = cells[1], rows.nth(i).locator("[data-col=step]").inner_text().strip()
        if worker in steps:
            walk.same(
                "per-rank step: cluster = rank's overview",
                f"[{run['name']} {worker}]",
                steps[worker]["step"],
                step,
            )


def test_each_figure_reads_the_same_on_every_page(server: Server, tab: Tab) -> None:
    walk = Walk(tab, server)
    every = server.get("/api/v1/runs")["runs"]
    walk.problems += [
        f"[{r['name']}] failed: {r.get('error')}" for r in every if r["state"] != "ready"
    ]
    runs = [r for r in every if r["state"] == "ready"]
    assert runs
    walk.open("/", "run-list")
    listed = {}
    for r in runs:
        row = walk.page.locator("[data-test=run-table] tbody tr", has=walk.page.locator(
            "[data-test=run-link]", has_text=re.compile(f"^{re.escape(r['name'])}$")))  # fmt: skip
        listed[r["name"]] = row.locator("td").nth(6).inner_text().strip()
    firsts: dict[str, dict[str, Any]] = {}
    for run in runs:
        seen = {w: overview(walk, run["id"], w) for w in run["workers"]}
        for worker, ov in seen.items():
            check_worker(walk, run, worker, ov)
        first = seen[run["workers"][0]]
        firsts[run["id"]] = first
        shown = listed[run["name"]].split("\n")[0]
        walk.same("average step: run list = overview", f"[{run['name']}]", first["step"], shown)
        if len(run["workers"]) > 1 and "cluster" in run["pages"]:
            check_cluster(walk, run, seen)
    for run, other in zip(runs, runs[1:] + runs[:1], strict=True):
        if other is run:
            continue
        walk.open(f"/runs/{run['id']}/diff?other={other['id']}", "page-diff")
        before = (
            walk.text("[data-test=step-before]"),
            walk.text("[data-test=diff-step] .el-card:nth-child(1) [data-test=average-note]"),
        )
        after = (
            walk.text("[data-test=step-after]"),
            walk.text("[data-test=diff-step] .el-card:nth-child(2) [data-test=average-note]"),
        )
        mine, theirs = firsts[run["id"]], firsts[other["id"]]
        walk.same(
            "average step: diff = overview", f"[{run['name']} before]", mine["step"], before[0]
        )
        walk.same(
            "average step: diff = overview", f"[{other['name']} after]", theirs["step"], after[0]
        )
        if mine["step"] != "–":  # a run without steps has no average, and no note
            walk.same(
                "steps covered: diff = overview", f"[{run['name']} before]", mine["note"], before[1]
            )
    print("\nagreed:", dict(sorted(walk.agreed.items())))
    print("\n".join(walk.problems) or "no mismatch")
    print("\n".join(tab.problems) or "no console problem")
    tab.shot("consistency-last-page")
    assert not walk.problems, f"{len(walk.problems)} mismatches:\n" + "\n".join(walk.problems)
    tab.assert_clean()
