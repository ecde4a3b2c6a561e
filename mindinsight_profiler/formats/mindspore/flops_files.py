"""MindSpore's FLOPs per operator and per scope: `flops_{rank}.txt`, `flops_scope_{rank}.json`.

MindSpore's Ascend profiler counts each AI Core operator's floating point operations from
its hardware counters and writes them beside `flops_summary_{rank}.json` (`cluster_files`):

- `flops_{rank}.txt`: one operator per line, comma separated, in one of two layouts that
  the header tells apart (each column is known by its header text, so the order and the
  spaces after the commas do not matter):
  - "total" (MindSpore 1.x, `FlopsParser`): `op_full_name, MFLOPs(10^6), GFLOPS(10^9),
    FLOPS utilization(%)` (older files: `full_kernel_name, FLOPs, FLOPS, FLOPS
    utilization`): millions of operations of one execution, billions per second over the
    operator's average time, and that rate over the chip's peak, in percent.
  - "cube_vector" (MindSpore 2.x, `AscendFlopsGenerator`, one line per task of msprof's
    op summary): `MFLOPs(10^6 cube), GFLOPS(10^9 cube), MFLOPs(10^6 vector), GFLOPS(10^9
    vector)`; some writers add `FLOPS utilization(cube)` and `(vec)` after each part.
- `flops_scope_{rank}.json`: MindInsight's sankey of FLOPs by name scope, `{"data":
  {"nodes": [{"name"}], "links": [{"source", "target", "value" (MFLOPs)}]},
  "max_scope_num": deepest scope}`.

The lines become the side table `mindspore_flops` (the name as a string code, one float
column per quantity in `COLUMNS`, NaN where the layout has none) and
`meta["flops_ops_layout"]`; the sankey becomes `meta["flops_scope"]`. A file whose header
is no layout, a scope that is not the sankey object, or a file without one good line, node
or link is an InputError naming it (the reader skips the file with a warning); lines,
nodes or links that are bad inside a good file are left out, with one warning counting
them, so that one damaged line does not hide the others.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import MAX_NUMBER, read_json, read_text

OPS_FILE = "flops_{r}.txt"
SCOPE_FILE = "flops_scope_{r}.json"
FLOPS_TABLE = "mindspore_flops"
#: Quantities of a line; the unit is in the name (MFLOPs: 1e6 operations; GFLOPS: 1e9/s).
QUANTITIES = ("mflops", "gflops_per_second", "utilization_percent")
COLUMNS = tuple(f"{part}{q}" for part in ("", "cube_", "vector_") for q in QUANTITIES)


def _column(cell: str) -> str | None:
    """The quantity a header cell names ("GFLOPS(10^9 cube)" -> "cube_gflops_per_second").

    FLOPs (a count) and FLOPS (a rate) differ only in the case of the last letter."""
    low = cell.lower()
    part = "cube_" if "cube" in low else "vector_" if "vec" in low else ""
    head = cell.split("(", 1)[0].strip()
    if "utili" in low:
        return part + "utilization_percent"
    if head in ("MFLOPs", "FLOPs"):
        return part + "mflops"
    if head in ("GFLOPS", "FLOPS"):
        return part + "gflops_per_second"
    return None


def _shown(cells: list[str]) -> list[str]:
    """Cells for a message: the first 8, each cut to 40 characters (a damaged header may be
    one huge cell)."""
    return [c[:40] for c in cells[:8]]


def _layout(path: Path, header: list[str]) -> tuple[str, list[str]]:
    """The layout and the quantity of each column after the name; InputError otherwise."""
    if not header or "name" not in header[0].lower():
        raise InputError(
            path, f"the header does not start with the operator name: {_shown(header)}"
        )
    columns = [_column(c) for c in header[1:]]
    unknown = [c for c, q in zip(header[1:], columns, strict=True) if q is None]
    if unknown:
        raise InputError(path, f"columns MindSpore's FLOPs files do not have: {_shown(unknown)}")
    named = [q for q in columns if q is not None]
    if len(set(named)) != len(named):
        raise InputError(path, f"a quantity appears twice in the header: {_shown(header)}")
    split = [q for q in named if q.startswith(("cube_", "vector_"))]
    total = [q for q in named if q not in split]
    if split and total:
        raise InputError(path, f"the header mixes totals and cube/vector parts: {_shown(header)}")
    if split and not {"cube_mflops", "vector_mflops"} <= set(named):
        raise InputError(path, "a cube/vector header without both MFLOPs columns")
    if not split and "mflops" not in named:
        raise InputError(path, f"no MFLOPs column in the header: {_shown(header)}")
    return ("cube_vector" if split else "total"), named


def _value(cell: Any) -> float | None:
    """A quantity (a text cell or a JSON number): finite, from 0 to MAX_NUMBER, else None."""
    if isinstance(cell, bool) or not isinstance(cell, str | int | float):
        return None
    try:
        value = float(cell)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) and 0 <= value <= MAX_NUMBER else None


class FlopsLines:
    """The good lines of a `flops_{rank}.txt`, in file order."""

    def __init__(self, layout: str, columns: list[str]) -> None:
        self.layout = layout
        self.columns = columns
        self.names: list[str] = []
        self.values: list[list[float]] = []
        self.dropped = 0


def read_flops_ops(path: Path) -> FlopsLines:
    """The file's operator lines (module docstring); InputError for no layout or no line."""
    text = read_text(path)
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), skipinitialspace=True))
    except csv.Error as exc:
        raise InputError(path, f"unreadable: {exc}") from None
    records = [[c.strip() for c in r] for r in records if any(c.strip() for c in r)]
    if not records:
        raise InputError(path, "the file is empty")
    layout, columns = _layout(path, records[0])
    lines = FlopsLines(layout, columns)
    for row in records[1:]:
        values = [_value(c) for c in row[1:]]
        if len(row) != len(columns) + 1 or not row[0] or None in values:
            lines.dropped += 1
            continue
        lines.names.append(row[0])
        lines.values.append([v for v in values if v is not None])
    if not lines.names:
        raise InputError(path, f"no operator line with a name and {len(columns)} numbers")
    return lines


def add_flops_ops(b: TraceBuilder, path: Path, lines: FlopsLines) -> None:
    """The `mindspore_flops` side table and `meta["flops_ops_layout"]`."""
    if lines.dropped:
        b.warn(
            f"{path.name}: {lines.dropped} lines without a name and {len(lines.columns)} "
            "numbers from 0 up were left out"
        )
    grid = np.asarray(lines.values, dtype=np.float64).reshape(len(lines.names), -1)
    table = {"name": b.codes(lines.names)}
    for col in COLUMNS:
        table[col] = np.full(len(lines.names), np.nan)
    for i, col in enumerate(lines.columns):
        table[col] = grid[:, i].copy()
    b.add_table(FLOPS_TABLE, table)
    b.meta["flops_ops_layout"] = lines.layout


def _scope_name(node: Any) -> str | None:
    name = node.get("name") if isinstance(node, dict) else None
    return name if isinstance(name, str) and name else None


def read_flops_scope(path: Path) -> dict[str, Any]:
    """`nodes` (names), `links` (source, target, value in MFLOPs), `max_scope_num` and
    `dropped` (entries left out: malformed, a repeated node, a link to no node)."""
    doc = read_json(path)
    data = doc.get("data") if isinstance(doc, dict) else None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("nodes"), list)
        and isinstance(data.get("links"), list)
    ):
        raise InputError(path, "not a FLOPs sankey ({'data': {'nodes': [..], 'links': [..]}})")
    nodes, links = data["nodes"], data["links"]
    depth = doc.get("max_scope_num")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth < 2**31:
        raise InputError(path, f"max_scope_num is not a count: {str(depth)[:40]!r}")
    names: dict[str, None] = {}
    dropped = 0
    for node in nodes:
        name = _scope_name(node)
        if name is None or name in names:
            dropped += 1
        else:
            names[name] = None
    kept = []
    for link in links:
        ends = [link.get(k) if isinstance(link, dict) else None for k in ("source", "target")]
        value = link.get("value") if isinstance(link, dict) else None
        number = None if isinstance(value, str) else _value(value)
        if number is None or not all(isinstance(e, str) and e in names for e in ends):
            dropped += 1
            continue
        kept.append({"source": ends[0], "target": ends[1], "value": number})
    if not names:
        raise InputError(path, "no scope nodes")
    return {"nodes": list(names), "links": kept, "max_scope_num": depth, "dropped": dropped}


def add_flops_files(b: TraceBuilder, files: dict[str, Path]) -> None:
    """Read `flops_ops` and `flops_scope` of `files` where present (each one optional)."""
    if "flops_ops" in files:
        lines = b.optional(files["flops_ops"], read_flops_ops)
        if lines is not None:
            add_flops_ops(b, files["flops_ops"], lines)
    if "flops_scope" in files:
        scope = b.optional(files["flops_scope"], read_flops_scope)
        if scope is not None:
            dropped = scope.pop("dropped")
            if dropped:
                b.warn(
                    f"{files['flops_scope'].name}: {dropped} scope nodes or links that are "
                    "malformed, repeated or link no listed node were left out"
                )
            b.meta["flops_scope"] = scope
