"""`mindinsight` entry point: argument parsing and exit codes, nothing else.

Exit status: 0 success, 2 bad input or usage (one line on stderr naming the file and the
problem), 1 an internal error (one line, plus the traceback with MINDINSIGHT_DEBUG=1).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindinsight_profiler._version import __version__
from mindinsight_profiler.analysis.operators.tables import KERNEL_GROUPS, OPERATOR_GROUPS
from mindinsight_profiler.cli.advise import add_parser as add_advise_parser
from mindinsight_profiler.cli.advise import run as run_advise
from mindinsight_profiler.cli.cluster import add_parser as add_cluster_parser
from mindinsight_profiler.cli.export_timeline import add_parser as add_export_timeline_parser
from mindinsight_profiler.cli.mcp import add_parser as add_mcp_parser
from mindinsight_profiler.cli.options import add_device_option, configured_options
from mindinsight_profiler.cli.report import add_parser as add_report_parser
from mindinsight_profiler.cli.report import run as run_report
from mindinsight_profiler.cli.server import add_parsers as add_server_parsers
from mindinsight_profiler.errors import InputError, ResourceError
from mindinsight_profiler.formats.sources import parse_location

#: Help of a location argument (a path, or a URL of an fsspec filesystem).
LOCATION_HELP = "; or a URL: s3://bucket/prefix, gs://, az://, file:// (see docs/remote.md)"

#: Inputs at least this large get a progress bar (when stderr is a terminal, or --progress).
PROGRESS_MIN_BYTES = 16 << 20


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mindinsight",
        description="Training performance analysis for PyTorch and MindSpore profiles.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("analyse", aliases=["analyze"], help="analyse one trace and print a report")
    a.add_argument("path", type=parse_location,
                   help="a trace file, or a run folder of trace files" + LOCATION_HELP)  # fmt: skip
    a.add_argument("--worker", help="worker to analyse (default: the first)")
    a.add_argument("--run", help="run to read when the folder holds several (its name)")
    a.add_argument("--span", help="span to analyse (default: the worker's first)")
    a.add_argument("--top", type=int, default=None, help="rows of the operator and kernel tables")
    a.add_argument("--format", choices=("table", "json"), default="table")
    a.add_argument(
        "--group-by",
        choices=OPERATOR_GROUPS,
        default="name",
        help="operator rows by name, name + input shapes, or name + call stack",
    )
    a.add_argument(
        "--kernel-group-by",
        choices=KERNEL_GROUPS,
        default="name",
        help="kernel rows by name, or by name + operator + grid + block + registers + smem",
    )
    add_device_option(a)
    a.add_argument("--workspace", type=Path, help="cache folder (default ~/.mindinsight)")
    a.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    d = sub.add_parser("diff", help="compare two runs or workers: what got slower or faster")
    d.add_argument("before", type=parse_location, help="trace file or run folder (the baseline)")
    d.add_argument("after", type=parse_location, help="trace file or run folder (the new run)")
    d.add_argument("--top", type=int, default=10, help="rows per table")
    d.add_argument("--format", choices=("table", "json"), default="table")
    d.add_argument("--workspace", type=Path, help="cache folder (default ~/.mindinsight)")
    add_advise_parser(sub)
    add_cluster_parser(sub)
    add_report_parser(sub)
    add_export_timeline_parser(sub)
    add_server_parsers(sub)
    add_mcp_parser(sub)
    for command in (
        a,
        d,
        *(sub.choices[n] for n in ("advise", "start", "cluster", "report", "export-timeline")),
    ):
        command.add_argument(
            "--storage-options", metavar="JSON",
            help="keyword arguments of the fsspec filesystem of a URL, e.g. "
                 "'{\"endpoint_url\": \"http://127.0.0.1:9000\"}' (default: "
                 "$MINDINSIGHT_STORAGE_OPTIONS)",
        )  # fmt: skip
    bar = a.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None)
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    return parser


def _analyse(args: argparse.Namespace) -> int:
    from mindinsight_profiler.analysis.schema import report_builtins, report_for, to_analyse_output
    from mindinsight_profiler.cli.progress import ProgressBar
    from mindinsight_profiler.cli.render import render
    from mindinsight_profiler.formats.discovery import NO_OUTPUT, pick_run, several_runs_note
    from mindinsight_profiler.pipeline.reports import analyse_file
    from mindinsight_profiler.store.cache import Workspace
    from mindinsight_profiler.store.staging import discover_location

    if args.top is not None and args.top < 0:
        raise InputError(args.path, "--top must be zero or more")
    options = configured_options(args)  # a wrong --device-spec fails before any reading
    workspace = None if args.no_cache else Workspace(args.workspace)
    runs = discover_location(args.path, workspace)
    if not runs:
        raise InputError(args.path, NO_OUTPUT)
    run = pick_run(runs, args.worker, args.run)
    if len(runs) > 1:
        print(several_runs_note(runs, run, "analysing"), file=sys.stderr)
    for note in run.notes:
        print(f"mindinsight: note: {run.name}: {note}", file=sys.stderr)
    file = run.select(args.worker, args.span)
    show = args.progress
    if show is None:
        if file.remote is not None:
            size = file.remote.size
        else:
            size = file.path.stat().st_size if file.path.is_file() else 0
        show = sys.stderr.isatty() and size >= PROGRESS_MIN_BYTES
    bar = ProgressBar(f"reading {file.path.name}") if show else None
    try:
        typed, _cached = analyse_file(
            file.source, workspace, bar, file.format, file.worker, options
        )
    finally:
        if bar:
            bar.close()
    report = report_for(typed, file.worker, file.span)
    print_warnings(report, file.path.name)
    if args.group_by != "name" or args.kernel_group_by != "name":
        from mindinsight_profiler.analysis.report import grouped_tables
        from mindinsight_profiler.pipeline.reports import load_trace

        # memory-mapped from the cache when present
        trace = load_trace(file.source, workspace, None, file.format, file.worker, options)
        ops, kernels = grouped_tables(trace, args.group_by, args.kernel_group_by)
        report.update(operators=ops, kernels=kernels)
    if args.top is not None:
        report["operators"] = report["operators"][: args.top]
        report["kernels"] = report["kernels"][: args.top]
    if args.format == "json":  # through the declared output: what is printed is the contract
        json.dump(report_builtins(to_analyse_output(report)), sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(report, top=args.top if args.top is not None else 20))
    return 0


def print_warnings(report: dict[str, Any], name: str) -> None:
    """The input's warnings on stderr, one line each, from the report itself: a cached
    re-run says them again, as the first run did."""
    for w in report.get("warnings") or []:
        print(f"mindinsight: warning: {name}: {w['message']}", file=sys.stderr)


def _first_report(path: Path | str, workspace: Any) -> dict[str, Any]:
    from mindinsight_profiler.analysis.schema import report_builtins
    from mindinsight_profiler.pipeline.reports import analyse_file
    from mindinsight_profiler.store.staging import discover_location

    runs = discover_location(path, workspace)
    if not runs:
        raise InputError(path, "no profiler output found")
    file = runs[0].select()
    report, _ = analyse_file(
        file.source, workspace, None, file.format, file.worker, configured_options()
    )
    return report_builtins(report)


def _diff(args: argparse.Namespace) -> int:
    from mindinsight_profiler.analysis.diff import diff_reports
    from mindinsight_profiler.store.cache import Workspace

    if args.top < 1:
        raise InputError(args.before, "--top must be at least 1")
    ws = Workspace(args.workspace)
    result = diff_reports(_first_report(args.before, ws), _first_report(args.after, ws), args.top)
    if args.format == "json":
        json.dump(result, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
        return 0
    s = result["step"]
    print(f"average step: {s['before_us'] / 1000:.3f} ms -> {s['after_us'] / 1000:.3f} ms "
          f"({s['delta_us'] / 1000:+.3f} ms)")  # fmt: skip
    for title, rows in (
        ("breakdown", result["breakdown"]),
        ("operators (device self)", result["operators"]["device_self_us"]),
        ("operators (host self)", result["operators"]["host_self_us"]),
        ("kernels (total)", result["kernels"]["total_us"]),
    ):
        print(f"\n{title}:")
        for r in rows[: args.top]:
            print(f"  {r['delta_us'] / 1000:+10.3f} ms  {r['before_us'] / 1000:10.3f} -> "
                  f"{r['after_us'] / 1000:10.3f} ms  {r['name'][:80]}")  # fmt: skip
    return 0


def _storage_options(args: argparse.Namespace) -> None:
    """`--storage-options` becomes the variable every process (server workers too) reads."""
    from mindinsight_profiler.store.remote import OPTIONS_ENV, storage_options

    if getattr(args, "storage_options", None):
        os.environ[OPTIONS_ENV] = args.storage_options
        storage_options()  # a bad value fails here, in one line


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        _storage_options(args)
        if args.command in ("analyse", "analyze"):
            return _analyse(args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "advise":
            return run_advise(args)
        if args.command == "report":
            return run_report(args)
        if args.command == "cluster":
            from mindinsight_profiler.cli.cluster import run as run_cluster

            return run_cluster(args)
        if args.command == "mcp":
            from mindinsight_profiler.cli.mcp import run as run_mcp

            return run_mcp(args)
        if args.command == "export-timeline":
            from mindinsight_profiler.cli.export_timeline import run as run_export_timeline

            return run_export_timeline(args)
        if args.command in ("start", "stop"):
            from mindinsight_profiler.cli import server

            return server.start(args) if args.command == "start" else server.stop(args)
        raise AssertionError(args.command)
    except InputError as exc:
        print(f"mindinsight: error: {exc}", file=sys.stderr)
        return 2
    except ResourceError as exc:
        print(f"mindinsight: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mindinsight: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # one line for users; the traceback on request
        if os.environ.get("MINDINSIGHT_DEBUG"):
            traceback.print_exc()
        print(f"mindinsight: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
