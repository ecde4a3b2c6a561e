"""MindSpore's per-rank cluster files: `flops_summary_{rank}.json` and
`ascend_cluster_analyse_{mode}_{stages}_{ranks}_{rank}.csv`.

These are what MindInsight's cluster page and its parallel proposer read besides the step
trace and `hccl_raw`:

- `flops_summary_{rank}.json`: `{"FLOPs": .., "FLOPS": .., "FLOPS_Utilization": ..}`, the
  rank's floating point operations (MindInsight shows them in millions) and operations per
  second (billions per second). Other files split both into `cube_*` and `vec_*` parts,
  which add up to the same figure; `read_flops_summary_parts` keeps the parts, which
  MindInsight 2.3.1's operator page shows (`analysis.perf.mindspore_flops`).
- `ascend_cluster_analyse_{mode}_{stages}_{ranks}_{rank}.csv`: the parallel mode
  (`data-parallel`, `model-parallel`, `pipeline-parallel`), the number of pipeline stages
  and of ranks are in the name; the rows are per step `computation_time`,
  `communication_alone_time` and, for pipelines, `stage_time`, `receive_alone_time`,
  `collective_communication_alone_time` (ms). The last row is the profiler's own average
  (it has no step number; MindInsight reads that row), the rows before it are the steps.
  Older data-parallel files hold the step trace split instead (`iteration_interval`,
  `fp_and_bp`, `tail`); they are read as having no averages.

A missing file is simply absent; a malformed one is an InputError naming the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.side_files import MAX_NUMBER, read_csv, read_json

FLOPS_FILE = "flops_summary_{r}.json"
_ANALYSE = re.compile(r"^ascend_cluster_analyse_([a-z]+-parallel)_(\d+)_(\d+)_(\d+)\.csv$")
#: Columns of a cluster analyse file; the first two are in every mode.
ANALYSE_COLUMNS = (
    "computation_time",
    "communication_alone_time",
    "stage_time",
    "receive_alone_time",
    "collective_communication_alone_time",
)


def cluster_analyse_file(folder: Path, rank: int) -> Path | None:
    """The rank's `ascend_cluster_analyse_*` file in a profiler folder, if there is one."""
    for child in sorted(folder.glob(f"ascend_cluster_analyse_*_{rank}.csv")):
        m = _ANALYSE.match(child.name)
        if m and int(m.group(4)) == rank:
            return child
    return None


def _number(path: Path, doc: dict[str, Any], key: str) -> float | None:
    value = doc.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise InputError(path, f"{key!r} is not a number: {str(value)[:40]!r}")
    if abs(value) > MAX_NUMBER:  # a sum of two such would not be finite
        raise InputError(path, f"{key!r} is out of range: {value}")
    return float(value)


def read_flops_summary(path: Path) -> dict[str, float | None]:
    """`flops`, `flops_per_second` and `utilization` of one rank, as the file writes them."""
    return read_flops_summary_parts(path)[0]


def read_flops_summary_parts(
    path: Path,
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """The summary (`read_flops_summary`) and its cube and vector parts as the file writes
    them (`cube_flops`, `cube_flops_per_second`, `vector_flops`, `vector_flops_per_second`;
    None where the file has no such key), from one read of the file."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "expected a JSON object with FLOPs and FLOPS")
    out: dict[str, float | None] = {}
    parts: dict[str, float | None] = {}
    for key, name in (("FLOPs", "flops"), ("FLOPS", "flops_per_second")):
        cube, vec = _number(path, doc, f"cube_{key}"), _number(path, doc, f"vec_{key}")
        for part, value in (("cube", cube), ("vector", vec)):
            if value is not None and value < 0:
                raise InputError(path, f"{part} {key} is negative: {value}")
            parts[f"{part}_{name}"] = value
        value = _number(path, doc, key)
        if value is None:
            if cube is None or vec is None:
                raise InputError(path, f"no {key} (nor cube_{key} and vec_{key})")
            value = cube + vec
        if value < 0:
            raise InputError(path, f"{key} is negative: {value}")
        out[name] = value
    utilization = _number(path, doc, "FLOPS_Utilization")
    if utilization is not None and not 0 <= utilization <= 100:
        raise InputError(path, f"FLOPS_Utilization is not a percentage: {utilization}")
    out["utilization"] = utilization
    return out, parts


def read_cluster_analyse(path: Path) -> dict[str, Any]:
    """Mode, stages, ranks (from the name), step rows and the average row (ms) of the file."""
    m = _ANALYSE.match(path.name)
    if m is None:
        raise InputError(
            path, "not named ascend_cluster_analyse_<mode>-parallel_<stages>_<ranks>_<rank>.csv"
        )
    mode, stage_num, rank_size, rank = m.group(1), *(int(g) for g in m.groups()[1:])
    # The rank in the name is the device's (it may exceed the rank count of a 1-rank job).
    if stage_num < 1 or rank_size < 1 or rank_size % stage_num:
        raise InputError(path, f"inconsistent name: {stage_num} stages for {rank_size} ranks")
    table = read_csv(path, [])
    if not table.has(ANALYSE_COLUMNS[0]) and table.has("fp_and_bp"):
        # Older data-parallel files repeat the step trace split (iteration_interval,
        # fp_and_bp, tail): no computation/communication figures to read.
        columns: list[str] = []
    else:
        table = read_csv(path, ANALYSE_COLUMNS[:2])
        columns = [c for c in ANALYSE_COLUMNS if table.has(c)]
    values = {c: table.numbers(c) for c in columns}
    for c, v in values.items():
        if (v < 0).any():
            raise InputError(path, f"column {c!r}, row {int(np.argmax(v < 0)) + 2}: negative")
    return {
        "file": path.name,
        "mode": mode,
        "stage_num": stage_num,
        "rank_size": rank_size,
        "rank": rank,
        "steps_ms": {c: v[:-1].tolist() for c, v in values.items()},
        "average_ms": {c: float(v[-1]) for c, v in values.items()},
    }
