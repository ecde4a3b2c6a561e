"""`mindinsight export-timeline RUN`: several ranks of a run on one timeline.

Writes a Perfetto trace (native protobuf; `--format json` for Chrome-trace JSON) with each
rank as its own process, the clocks aligned by the ranks' shared collectives when they
differ (docs/export.md), and the advisor's evidence ranges on each rank's "advisor" track.
`--window t0:t1` is in milliseconds from the merged timeline's start. A run of one worker
is fine (one process). An unknown rank, a malformed or empty window: exit 2, one line.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mindinsight_profiler.cli.options import (
    add_cache_options,
    add_device_option,
    add_rules_option,
    configured_options,
    pick_run_of,
)
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.sources import parse_location


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export-timeline",
        help="write several ranks of a run onto one Perfetto timeline",
        description="Each rank becomes a process of one Perfetto trace (open it at "
        "ui.perfetto.dev), its clock aligned onto the first selected rank's by the ranks' "
        "shared collectives when the wall clocks differ; the advisor's evidence ranges are "
        "slices on each rank's 'advisor' track.",
    )
    p.add_argument("path", type=parse_location, help="a run folder (its ranks' traces)")
    p.add_argument("--ranks", default="all", help="all (default) or rank numbers, e.g. 0,3,5")
    p.add_argument(
        "--window", metavar="T0:T1",
        help="only events overlapping [T0, T1), in ms from the merged timeline's start "
             "(e.g. 120:250.5; an empty side is open)",
    )  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="output file (default: <run>.<format>)")
    p.add_argument("--format", choices=("perfetto", "json"), default="perfetto")
    p.add_argument("--run", help="run to read when the folder holds several (its name)")
    p.add_argument("--span", help="span of every worker (default: each worker's first)")
    p.add_argument("--no-advice", action="store_true", help="leave out the advisor's ranges")
    add_rules_option(p)
    add_device_option(p)
    add_cache_options(p, no_cache=False)


def run(args: argparse.Namespace) -> int:
    from mindinsight_profiler.advisor.rules import load_rules
    from mindinsight_profiler.export.names import file_stem
    from mindinsight_profiler.export.ranks import merge, parse_ranks, parse_window
    from mindinsight_profiler.export.timeline import SUFFIX, gather_ranks, write_merged

    try:
        wanted = parse_ranks(args.ranks)
        window = parse_window(args.window) if args.window is not None else None
    except ValueError as exc:
        raise InputError(args.path, str(exc)) from None
    load_rules(args.rules_dir)  # a bad rule file is reported before any analysis
    options = configured_options(args)
    workspace, target = pick_run_of(args, "exporting the ranks of")
    began = time.perf_counter()
    try:
        ranks = gather_ranks(
            target, wanted, workspace, options, args.rules_dir, args.span, not args.no_advice
        )
        merged = merge(ranks, window)
    except ValueError as exc:
        raise InputError(args.path, str(exc)) from None
    name = file_stem(target.name, "timeline") + SUFFIX[args.format]
    out = args.output or Path(name)
    if out.is_dir():
        out = out / name
    counts = write_merged(merged, out, args.format)
    a = merged.alignment
    clocks = (
        "wall clocks kept"
        if a.method == "wall_clock"
        else "clocks aligned by collectives: "
        + ", ".join(
            f"rank {r.rank} {o / 1000:+.1f} us"
            for r, o in zip(merged.ranks, a.offsets_ns, strict=True)
        )
    )
    events = sum(c.slices for c in counts)
    notes = sum(c.annotations for c in counts)
    flows = sum(c.flows for c in counts)  # Perfetto's launch arrows (none in the JSON)
    n_ranks = f"{len(counts)} rank" + ("s" if len(counts) != 1 else "")
    print(
        f"wrote {out} ({out.stat().st_size:,} bytes): {n_ranks}, {events:,} events, "
        + (f"{flows:,} launch arrows, " if flows else "")
        + f"{notes} advisor ranges; {clocks} ({a.matched} collective pairs); "
        f"{time.perf_counter() - began:.2f} s",
        file=sys.stderr,
    )
    return 0
