"""Snapshot the CLI's JSON on every input of a data folder, or compare two snapshots.

A structural change (moving modules, typing the report) must leave what users get byte for
byte the same. This script records `mindinsight analyse --format json` (and `advise` and
`cluster`) for every worker of every run under a folder, through the real CLI in a
subprocess, so it runs unchanged before and after such a change:

    python scripts/report_snapshot.py snapshot ../shared/data /tmp/before
    ... change the code ...
    python scripts/report_snapshot.py snapshot ../shared/data /tmp/after
    python scripts/report_snapshot.py compare /tmp/before /tmp/after [--ignore-version]

`--ignore-version` treats a documented `report_version` bump as no change.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mindinsight_profiler.formats.discovery import discover


def _commands(root: Path) -> list[tuple[str, list[str]]]:
    """(output name, CLI arguments) for every worker/span of every run under `root`."""
    commands: list[tuple[str, list[str]]] = []
    folders: set[Path] = set()
    for run in discover(root):
        cluster_name = f"cluster/{run.path.relative_to(root.parent)}"
        if run.path not in folders:  # a folder of several runs: `cluster` reads the first
            folders.add(run.path)
            commands.append(
                (cluster_name, ["cluster", str(run.path), "--format", "json", "--jobs", "1"])
            )
        for file in run.files:
            where = ["--worker", file.worker] + (["--span", file.span] if file.span else [])
            name = f"{run.path.relative_to(root.parent)}/{file.worker}.{file.span or '-'}"
            commands.append(
                (f"analyse/{name}", ["analyse", str(run.path), *where, "--format", "json"])
            )
            commands.append(
                (f"advise/{name}", ["advise", str(run.path), *where, "--format", "json"])
            )
    return commands


def _run(args: list[str], workspace: Path) -> bytes:
    result = subprocess.run(
        [sys.executable, "-m", "mindinsight_profiler", *args, "--workspace", str(workspace)],
        capture_output=True,
        check=False,
    )
    return f"exit {result.returncode}\n".encode() + result.stdout + result.stderr


def snapshot(root: Path, out: Path, jobs: int) -> None:
    """Write one file per command (exit status, stdout, stderr) under `out`."""
    commands = _commands(root.resolve())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as ws, ThreadPoolExecutor(jobs) as pool:
        outputs = pool.map(lambda c: _run(c[1], Path(ws) / _key(c[0])), commands)
        for (name, _), data in zip(commands, outputs, strict=True):
            path = out / f"{_key(name)}.out"
            path.write_bytes(data)
            print(f"{path.name}: {len(data)} bytes", flush=True)
    print(f"{len(commands)} outputs in {out}")


def _key(name: str) -> str:
    return (
        re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]
        + "-"
        + hashlib.sha1(name.encode()).hexdigest()[:8]
    )


_VERSION = re.compile(rb'"(report_version|advice_version)": ?\d+')


def compare(before: Path, after: Path, ignore_version: bool) -> int:
    """Exit status 1 when any output differs (or is missing on one side)."""
    names = sorted({p.name for p in before.glob("*.out")} | {p.name for p in after.glob("*.out")})
    differ = 0
    for name in names:
        a, b = before / name, after / name
        if not (a.exists() and b.exists()):
            print(f"missing on one side: {name}")
            differ += 1
            continue
        x, y = a.read_bytes(), b.read_bytes()
        if ignore_version:
            x, y = _VERSION.sub(rb'"\1": N', x), _VERSION.sub(rb'"\1": N', y)
        if x != y:
            print(f"differs: {name}")
            differ += 1
    print(f"{len(names) - differ} of {len(names)} outputs byte-identical")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("root", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--ignore-version", action="store_true")
    args = parser.parse_args()
    if args.command == "snapshot":
        snapshot(args.root, args.out, args.jobs)
        return 0
    return compare(args.before, args.after, args.ignore_version)


if __name__ == "__main__":
    sys.exit(main())
