"""What the commands share: the analysis options, read where settings enter and passed
down (the step trace's FP/BP points, `FP_POINT`/`BP_POINT` as in MindInsight, and the
device the performance model measures against, `--device-spec`), the rules and cache
options, and picking the worker a command is about."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mindinsight_profiler.analysis.options import Options, resolve_device
from mindinsight_profiler.analysis.steps.step_trace import StepPoints
from mindinsight_profiler.errors import InputError

if TYPE_CHECKING:
    from mindinsight_profiler.formats.discovery import Run, TraceFile
    from mindinsight_profiler.store.cache import Workspace

DEVICE_HELP = (
    "device whose peak FLOPS and bandwidth the performance model uses, when the trace does "
    "not name it or names it wrongly: a name of the built-in table (e.g. 'H100 SXM 80GB', "
    "'MI300X') or a TOML file of its schema (docs/perf-model.md)"
)


def add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device-spec", metavar="NAME|FILE", default=None, help=DEVICE_HELP)


def configured_options(args: argparse.Namespace | None = None) -> Options:
    """The environment's FP/BP points and the command's `--device-spec` (an `InputError`
    naming the file or the unknown name when it is wrong)."""
    device = getattr(args, "device_spec", None) if args is not None else None
    return Options(StepPoints.from_environ(os.environ), resolve_device(device))


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules-dir", action="append", default=[], type=Path,
        help="a folder of extra rule files (repeatable); same id replaces a rule",
    )  # fmt: skip


def add_cache_options(parser: argparse.ArgumentParser, no_cache: bool = True) -> None:
    parser.add_argument("--workspace", type=Path, help="cache folder (default ~/.mindinsight)")
    if no_cache:
        parser.add_argument(
            "--no-cache", action="store_true", help="neither read nor write the cache"
        )


def pick_run_of(args: argparse.Namespace, doing: str) -> tuple[Workspace | None, Run]:
    """(workspace, run) that `args.path`, `--run` and `--worker` (where the command has it)
    name; a note on stderr when the folder held several runs ("advising on ..." with
    `doing`); an `InputError` naming the path when it holds no profiler output."""
    from mindinsight_profiler.formats.discovery import pick_run, several_runs_note
    from mindinsight_profiler.store.cache import Workspace
    from mindinsight_profiler.store.staging import discover_location

    workspace = None if getattr(args, "no_cache", False) else Workspace(args.workspace)
    runs = discover_location(args.path, workspace)
    if not runs:
        raise InputError(args.path, "no profiler output found")
    run = pick_run(runs, getattr(args, "worker", None), args.run)
    if len(runs) > 1:
        print(several_runs_note(runs, run, doing), file=sys.stderr)
    return workspace, run


def pick_input(args: argparse.Namespace, doing: str) -> tuple[Workspace | None, Run, TraceFile]:
    """`pick_run_of`, and the worker file `--worker` and `--span` name in that run."""
    workspace, run = pick_run_of(args, doing)
    return workspace, run, run.select(getattr(args, "worker", None), args.span)
