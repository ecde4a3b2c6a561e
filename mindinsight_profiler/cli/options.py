"""The analysis options every command shares, read where settings enter and passed down:
the step trace's FP/BP points (`FP_POINT`/`BP_POINT`, as in MindInsight) and the device
the performance model measures against (`--device-spec`)."""

from __future__ import annotations

import argparse
import os

from mindinsight_profiler.analysis.options import Options, resolve_device
from mindinsight_profiler.analysis.steps.step_trace import StepPoints

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
