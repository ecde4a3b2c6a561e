"""`mindinsight report PATH`: a report to share (HTML, Excel workbook, Markdown summary).

Every format reads the same cached analysis as the dashboard (`export.bundle.gather`), so
the figures agree with the API's. Files are written atomically next to `-o` (default: the
current folder, named after the run and worker); the user's profiler output is only read.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mindinsight_profiler.cli.options import (
    add_cache_options,
    add_device_option,
    add_rules_option,
    configured_options,
    pick_input,
)
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.export.names import SUFFIX, file_stem
from mindinsight_profiler.formats.sources import parse_location

FORMATS = ("html", "xlsx", "md")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a shareable report: HTML, Excel workbook, Markdown")
    p.add_argument(
        "path", type=parse_location,
        help="a trace file, or a run folder; or an s3://, gs://, az://, file:// URL",
    )  # fmt: skip
    p.add_argument(
        "-o", "--output", type=Path,
        help="output file (one format) or folder (default: the current folder)",
    )  # fmt: skip
    p.add_argument("--format", choices=(*FORMATS, "all"), default="html")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the report")
    p.add_argument("--worker", help="worker to report on (default: the first)")
    p.add_argument("--run", help="run to read when the folder holds several (its name)")
    p.add_argument("--span", help="span (default: the worker's first)")
    add_rules_option(p)
    add_device_option(p)
    add_cache_options(p)


def _targets(out: Path | None, formats: tuple[str, ...], stem: str) -> dict[str, Path]:
    """Where each format goes: `out` itself for one format unless it is a folder."""
    if out is not None and len(formats) == 1 and not out.is_dir() and out.suffix:
        return {formats[0]: out}
    folder = out or Path.cwd()
    if folder.exists() and not folder.is_dir():
        raise InputError(folder, "is a file; give a folder for --format all")
    return {f: folder / f"{stem}{SUFFIX[f]}" for f in formats}


def check_writable(target: Path) -> None:
    """Fail before any analysis when `target` cannot be written: its nearest existing
    folder is a file, or is not writable."""
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(target, f"cannot write here: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(target, f"cannot write here: {folder} is not writable")


def run(args: argparse.Namespace) -> int:
    from mindinsight_profiler.advisor.rules import load_rules
    from mindinsight_profiler.export.bundle import gather
    from mindinsight_profiler.export.write import write_format

    load_rules(args.rules_dir)  # a bad rule file is reported before minutes of analysis
    options = configured_options(args)
    workspace, run_, file = pick_input(args, "reporting on")
    formats = FORMATS if args.format == "all" else (args.format,)
    targets = _targets(args.output, formats, file_stem(run_.name, file.worker))
    for target in targets.values():
        check_writable(target)
    bundle = gather(file, run_, workspace, options, args.rules_dir)
    for fmt, target in targets.items():
        try:
            write_format(fmt, bundle, target, args.lang, file, workspace, options)
        except OSError as exc:
            raise InputError(target, f"cannot write: {exc.strerror or exc}") from None
        print(f"wrote {target} ({target.stat().st_size:,} bytes)", file=sys.stderr)
    return 0
