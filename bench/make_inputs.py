"""Make large Kineto inputs for the benchmark by replicating the steps of a real trace.

Performance targets are set on traces of ~0.5 GB, but the real samples in ``shared/`` are
~35 MB. Rather than inventing synthetic events (whose shape would flatter or punish a
parser in ways real traces do not), the input for factor N is N back-to-back copies of
the real ResNet-50 sample: every copy is shifted in time by (span + gap), its ids are
offset so that links (op -> runtime -> kernel, flows, fwd/bwd) stay unique and correct,
and ``ProfilerStep#K`` is renumbered so steps keep increasing. Events that describe the
whole trace (metadata, the "Trace" span, the record-window instants) are written once.

The text layout imitates Kineto's (one event per block, ``", "`` / ``": "``
separators) so that byte counts, and hence JSON-decode cost, stay realistic.

Usage: ``python bench/make_inputs.py --out DIR [--factors 1,3,6,15]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOURCE_REL = Path("data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
DEFAULT_FACTORS = (1, 3, 6, 15)
GAP_US = 1000
GZIP_LEVEL = 6
WRITE_BATCH = 20_000

# args whose values are ids that link events together: offset per copy, 0 means "none".
ID_ARGS = ("External id", "external id", "correlation", "Sequence number")
# args that are timestamps: shifted like ``ts``.
TS_ARGS = ("external ts",)
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")

Event = dict[str, Any]


def shared_dir() -> Path:
    """The shared folder beside the repo, unless ``MI_SHARED_DIR`` points elsewhere."""
    override = os.environ.get("MI_SHARED_DIR")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1].parent / "shared"


def source_trace() -> Path:
    return shared_dir() / SOURCE_REL


def output_path(out_dir: Path, factor: int) -> Path:
    """``DIR/xN/<same name as the source>``: keeps the worker.span name tools parse."""
    return out_dir / f"x{factor}" / source_trace().name


def manifest_path(out_dir: Path, factor: int) -> Path:
    """Sizes and counts live beside (not inside) ``xN/`` so no tool mistakes it for a trace."""
    return out_dir / f"x{factor}.manifest.json"


@dataclass
class Source:
    """The parsed source trace, split into replicated events and once-only events."""

    top: dict[str, Any]
    repeated: list[Event]
    once: list[Event]
    span_us: int
    id_stride: int
    step_stride: int
    steps: list[int] = field(default_factory=list)


def is_once_only(event: Event) -> bool:
    """Events that describe the whole trace rather than one step: written a single time."""
    name = event.get("name", "")
    return (
        event.get("ph") == "M"
        or event.get("cat") == "Trace"
        or name.startswith("Iteration Start")
        or name == "Record Window End"
    )


def load_source(path: Path) -> Source:
    with gzip.open(path, "rb") as fh:
        doc = json.load(fh)
    events: list[Event] = doc.pop("traceEvents")
    repeated = [e for e in events if not is_once_only(e)]
    once = [e for e in events if is_once_only(e)]
    starts = [e["ts"] for e in events if "ts" in e]
    ends = [e["ts"] + e.get("dur", 0) for e in events if "ts" in e]
    ids = [e["id"] for e in repeated if isinstance(e.get("id"), int)]
    for e in repeated:
        args = e.get("args", {})
        ids.extend(args[k] for k in ID_ARGS if isinstance(args.get(k), int))
    steps = sorted(
        int(m.group(1)) for e in repeated if (m := STEP_RE.match(e.get("name", ""))) is not None
    )
    return Source(
        top=doc,
        repeated=repeated,
        once=once,
        span_us=int(max(ends) - min(starts)),
        # A round power of ten keeps offset ids readable (copy 3 of id 537 is 3000537).
        id_stride=10 ** len(str(max(ids, default=0))),
        step_stride=(steps[-1] - steps[0] + 1) if steps else 0,
        steps=steps,
    )


def shift_event(event: Event, copy: int, src: Source, time_shift: int) -> Event:
    """One event of copy ``copy``: shifted timestamps, offset ids, renumbered step."""
    out = dict(event)
    if "ts" in out:
        out["ts"] = out["ts"] + time_shift
    id_shift = copy * src.id_stride
    if isinstance(out.get("id"), int) and out["id"] > 0:
        out["id"] += id_shift
    if copy and (m := STEP_RE.match(out.get("name", ""))) is not None:
        out["name"] = f"ProfilerStep#{int(m.group(1)) + copy * src.step_stride}"
    args = out.get("args")
    if args:
        new_args = dict(args)
        for key in ID_ARGS:
            value = new_args.get(key)
            if isinstance(value, int) and value > 0:
                new_args[key] = value + id_shift
        for key in TS_ARGS:
            if isinstance(new_args.get(key), (int, float)):
                new_args[key] += time_shift
        out["args"] = new_args
    return out


def stretch_once(event: Event, factor: int, stride_us: int) -> Event:
    """Trace-wide events: the Trace span covers all copies, the window end moves to the end."""
    out = dict(event)
    extra = (factor - 1) * stride_us
    if out.get("cat") == "Trace" and "dur" in out:
        out["dur"] = out["dur"] + extra
    elif out.get("name") == "Record Window End":
        out["ts"] = out["ts"] + extra
    return out


def render_event(event: Event) -> str:
    """Kineto-like block: top-level fields on one line, args on the next."""
    top = {k: v for k, v in event.items() if k != "args"}
    text = "  {\n    " + json.dumps(top)[1:-1]
    if "args" in event:
        text += ',\n    "args": ' + json.dumps(event["args"])
    return text + "\n  }"


def render_header(top: dict[str, Any]) -> str:
    parts = [f"  {json.dumps(k)}: {json.dumps(v, indent=2)}" for k, v in top.items()]
    return "{\n" + ",\n".join([*parts, '  "traceEvents": [\n'])


def iter_events(src: Source, factor: int, gap_us: int) -> Iterator[Event]:
    stride_us = src.span_us + gap_us
    for copy in range(factor):
        time_shift = copy * stride_us
        for event in src.repeated:
            yield shift_event(event, copy, src, time_shift)
    for event in src.once:
        yield stretch_once(event, factor, stride_us)


def write_trace(src: Source, factor: int, gap_us: int, dest: Path) -> tuple[int, int]:
    """Write the replicated trace; returns (events, uncompressed bytes).

    Written to a temporary name and renamed, so an interrupted run never leaves a
    truncated file that a later run would mistake for an up-to-date one.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    n_events = 0
    n_bytes = 0
    with gzip.open(tmp, "wb", compresslevel=GZIP_LEVEL) as fh:
        batch: list[str] = [render_header(src.top)]
        for event in iter_events(src, factor, gap_us):
            batch.append(("" if n_events == 0 else ",\n") + render_event(event))
            n_events += 1
            if len(batch) >= WRITE_BATCH:
                chunk = "".join(batch).encode()
                n_bytes += len(chunk)
                fh.write(chunk)
                batch = []
        batch.append("\n]}\n")
        chunk = "".join(batch).encode()
        n_bytes += len(chunk)
        fh.write(chunk)
    tmp.replace(dest)
    return n_events, n_bytes


def is_up_to_date(dest: Path) -> bool:
    return dest.exists() and dest.stat().st_mtime > Path(__file__).stat().st_mtime


def make_input(out_dir: Path, factor: int, gap_us: int, src_cache: list[Source]) -> dict[str, Any]:
    """Make (or reuse) the xN input; returns its manifest."""
    dest = output_path(out_dir, factor)
    manifest_file = manifest_path(out_dir, factor)
    if is_up_to_date(dest) and manifest_file.exists():
        manifest = json.loads(manifest_file.read_text())
        manifest["reused"] = True
        return manifest
    if not src_cache:
        src_cache.append(load_source(source_trace()))
    src = src_cache[0]
    started = time.perf_counter()
    n_events, n_bytes = write_trace(src, factor, gap_us, dest)
    manifest = {
        "factor": factor,
        "path": str(dest),
        "source": str(source_trace()),
        "events": n_events,
        "raw_bytes": n_bytes,
        "gz_bytes": dest.stat().st_size,
        "span_us": src.span_us,
        "gap_us": gap_us,
        "id_stride": src.id_stride,
        "steps": len(src.steps) * factor,
        "seconds_to_make": round(time.perf_counter() - started, 1),
    }
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n")
    manifest["reused"] = False
    return manifest


def make_all(out_dir: Path, factors: list[int], gap_us: int = GAP_US) -> list[dict[str, Any]]:
    src_cache: list[Source] = []
    manifests = []
    for factor in factors:
        manifest = make_input(out_dir, factor, gap_us, src_cache)
        manifests.append(manifest)
        state = "up to date" if manifest["reused"] else f"made in {manifest['seconds_to_make']} s"
        print(
            f"x{factor:<3} {manifest['events']:>10,} events  "
            f"{manifest['raw_bytes'] / 1e6:8.1f} MB raw  {manifest['gz_bytes'] / 1e6:7.1f} MB gz  "
            f"({state})  {manifest['path']}",
            flush=True,
        )
    return manifests


def parse_factors(text: str) -> list[int]:
    factors = [int(part) for part in text.split(",") if part.strip()]
    if not factors or min(factors) < 1:
        raise argparse.ArgumentTypeError("factors must be positive integers, e.g. 1,3,6,15")
    return factors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--factors", type=parse_factors, default=list(DEFAULT_FACTORS))
    parser.add_argument("--gap-us", type=int, default=GAP_US, help="idle gap between copies")
    args = parser.parse_args(argv)
    if not source_trace().exists():
        print(f"source trace not found: {source_trace()} (set MI_SHARED_DIR)", file=sys.stderr)
        return 2
    make_all(args.out, args.factors, args.gap_us)
    return 0


if __name__ == "__main__":
    sys.exit(main())
