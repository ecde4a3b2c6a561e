"""`mindinsight cluster PATH`: every rank of a run analysed in parallel, compared side by side.

Ranks run on a local process pool (`--jobs N`) or a Dask cluster (`--scheduler ADDR`); only
per-rank summaries come back (see `mindinsight_profiler.pipeline.scale`). The JSON is the API's
cluster view (`analysis.cluster_view`) plus the summaries themselves. When some ranks fail,
the others are still printed, each failure names its file on stderr, and the exit status
is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mindinsight_profiler.cli.options import add_device_option, configured_options
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.sources import parse_location


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cluster",
        help="analyse every rank of a run in parallel and compare them",
        description="Each rank is analysed where it is scheduled (a local process pool, or a "
        "Dask cluster) into the workspace cache; only small per-rank summaries travel back. "
        "With --scheduler, the workspace and the run must be at the same paths on every "
        "Dask worker (a shared filesystem).",
    )
    where = "a run folder (or a folder of runs: the first); or a URL (s3://...)"
    p.add_argument("path", type=parse_location, help=where)
    p.add_argument("--jobs", type=int, help="local analysis processes (default: CPU count)")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    p.add_argument("--span", help="span to analyse (default: each worker's first)")
    p.add_argument("--run", help="run to compare when the folder holds several (its name)")
    add_device_option(p)
    p.add_argument("--workspace", type=Path, help="cache folder (default ~/.mindinsight)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None)
    bar.add_argument("--no-progress", dest="progress", action="store_false")


def _ms(us: float | None) -> str:
    return "-" if us is None else f"{us / 1000:,.3f}"


def render_table(view: dict[str, Any]) -> str:
    """Per rank: steps, mean step, exposed and total communication; the slowest rank."""
    comm = {r["rank"]: r for r in view["ranks"]}
    lines = [
        f"run {view['run']}: {len(view['summaries'])} ranks analysed, {len(view['failed'])} failed",
        f"{'rank':>6}  {'worker':<24} {'steps':>6} {'step ms':>12} {'exposed comm ms':>16} "
        f"{'comm ms':>12}",
    ]
    by_worker = {s["worker"]: s for s in view["summaries"]}
    for stage in view["stages"]:  # by rank
        s = by_worker[stage["worker"]]
        c = comm.get(stage["rank"], {})
        lines.append(
            f"{stage['rank']:>6}  {str(s['worker'])[:24]:<24} {s['steps']['count']:>6} "
            f"{_ms(s['steps']['average_us']):>12} {_ms(c.get('exposed_communication_us')):>16} "
            f"{_ms(c.get('communication_us')):>12}"
        )
    slowest = view["slowest"]
    if slowest:
        pct = slowest["over_others_pct"]
        lines.append(
            f"\nslowest rank {slowest['rank']}: {_ms(slowest['step_us'])} ms per step, "
            f"{_ms(slowest['over_others_us'])} ms over the others' mean"
            + (f" ({pct:+.1f} %)" if pct is not None else "")
            + f", {_ms(slowest['over_fastest_us'])} ms over rank {slowest['fastest_rank']}"
        )
    if view["collectives"]:
        lines.append(f"\n{'collective':<24} {'matched calls':>14} {'transfer ms':>12} "
                     f"{'max waiting ms':>15}")  # fmt: skip
        for c in view["collectives"]:
            waiting = max(c["waiting_us"]) if c["waiting_us"] else None
            lines.append(f"{c['name'][:24]:<24} {c['matched_calls']:>14} "
                         f"{_ms(c['transfer_us']):>12} {_ms(waiting):>15}")  # fmt: skip
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from mindinsight_profiler.analysis.cluster.view import cluster_answer
    from mindinsight_profiler.cli.progress import ProgressBar
    from mindinsight_profiler.formats.discovery import pick_run, several_runs_note
    from mindinsight_profiler.pipeline.scale import RankFailures, summarise_run
    from mindinsight_profiler.store.cache import Workspace
    from mindinsight_profiler.store.staging import discover_location

    # absolute: remote inputs are staged under it, by workers that may run elsewhere
    workspace = Workspace(Workspace(args.workspace).root.resolve())
    runs = discover_location(args.path, workspace)
    if not runs:
        raise InputError(args.path, "no profiler output found")
    target = pick_run(runs, None, args.run)
    if len(runs) > 1:
        print(several_runs_note(runs, target, "comparing the ranks of"), file=sys.stderr)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar = ProgressBar(f"analysing {len(target.workers)} ranks") if show else None
    failed: list[dict[str, str]] = []
    try:
        options = configured_options(args)  # read where settings enter
        summaries = summarise_run(
            target, workspace, args.jobs, args.scheduler, args.span, bar, options
        )
    except RankFailures as exc:
        summaries = exc.summaries
        failed = [f.to_json() for f in exc.failures]
    finally:
        if bar:
            bar.close()
    view = cluster_answer(target.name, summaries, failed)
    if args.format == "json":
        json.dump(view, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_table(view))
    sys.stdout.flush()
    for f in failed:
        print(f"mindinsight: error: rank {f['worker']} failed: {f['error']}", file=sys.stderr)
    return 2 if failed else 0
