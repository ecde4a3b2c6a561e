"""Reader for a legacy MindSpore `profiler/` folder (the files MindInsight 1.x/2.x reads).

One folder may hold several ranks (`*_{rank}.*` files); one rank becomes one `Trace`.
Every file is optional: what exists is read, a bad file is skipped with its reason in
`trace.meta["skipped_files"]`, and only a folder where nothing could be read is an error
(the first file's error, naming that file). What goes where:

| file | model |
|---|---|
| `step_trace_raw_{r}_detail_time.csv` | `step_trace(_reduce)` tables; `ProfilerStep#N` ranges |
| `step_trace_point_info[_{r}].json` | `meta["fp_point"]`, `meta["bp_point"]` |
| `aicore_intermediate_{r}_detail.csv` + `framework_raw_{r}.csv` | `operators` table |
| `aicpu_intermediate_{r}.csv` | `aicpu` table (and AI CPU kernels if no timeline) |
| `{ascend,gpu}_timeline_display_{r}.json` | KERNEL events |
| `PROF_*/device_<d>/timeline/*.json`, if no timeline above is used | events (`msprof`) |
| MindData and `hccl_raw_{r}.csv` | side tables (see `ms_minddata`) |
| `flops_summary_{r}.json` | `meta["flops_summary"]`, `meta["flops_summary_parts"]` |
| `flops_{r}.txt`, `flops_scope_{r}.json` | `mindspore_flops` table, `meta["flops_scope"]` |
| `dynamic_shape_info_{r}.json` | `dynamic_shape` table (see `mindspore.dynamic_shape`) |
| `ascend_cluster_analyse_{mode}_{stages}_{ranks}_{r}.csv` | `meta["cluster_analyse"]` |
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices
from mindinsight_profiler.formats.mindspore import cluster_files as cf
from mindinsight_profiler.formats.mindspore import dynamic_shape as ds
from mindinsight_profiler.formats.mindspore import flops_files as ff
from mindinsight_profiler.formats.mindspore import legacy_ops as ops
from mindinsight_profiler.formats.mindspore import minddata as md
from mindinsight_profiler.formats.mindspore import msprof
from mindinsight_profiler.formats.mindspore import step_trace as st
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import read_json
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.trace import Trace

#: File name patterns of one rank; `{r}` is the rank.
FILES = {
    "step_trace": "step_trace_raw_{r}_detail_time.csv",
    "aicore_detail": "aicore_intermediate_{r}_detail.csv",
    "aicore_type": "aicore_intermediate_{r}_type.csv",
    "framework": "framework_raw_{r}.csv",
    "aicpu": "aicpu_intermediate_{r}.csv",
    "ascend_timeline": "ascend_timeline_display_{r}.json",
    "gpu_timeline": "gpu_timeline_display_{r}.json",
    **md.MINDDATA_FILES,
    "profiler_info": "profiler_info_{r}.json",
    "flops_summary": cf.FLOPS_FILE,
    "flops_ops": ff.OPS_FILE,
    "flops_scope": ff.SCOPE_FILE,
    "dynamic_shape": ds.DYNAMIC_SHAPE_FILE,
}
_RANKED = [
    re.compile("^" + re.escape(p).replace(re.escape("{r}"), r"(\d+)") + "$") for p in FILES.values()
]


def _profiler_dir(path: Path) -> Path:
    """The folder itself, or its `profiler/` child (the layout MindInsight scans)."""
    if not ranks(path) and (path / "profiler").is_dir():
        return path / "profiler"
    return path


def ranks(path: Path) -> list[int]:
    """Ranks that have files in a profiler folder."""
    if not path.is_dir():
        return []
    found = set()
    for child in path.iterdir():
        for pattern in _RANKED:
            m = pattern.match(child.name)
            if m:
                found.add(int(m.group(1)))
    return sorted(found)


def is_mindspore_legacy(path: Path) -> bool:
    """True for a folder (or its `profiler/` child) holding legacy MindSpore profiler files."""
    path = Path(path)
    return path.is_dir() and bool(ranks(_profiler_dir(path)))


@notices.collected
def read_mindspore_legacy(path: Path, rank: int | None = None) -> Trace:
    """Read one rank (default: the lowest) of a legacy MindSpore profiler folder."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "not a folder")
    folder = _profiler_dir(path)
    available = ranks(folder)
    if not available:
        raise InputError(path, "no MindSpore profiler files (step_trace_raw_*, aicore_*, ...)")
    if rank is None:
        rank = available[0]
    elif rank not in available:
        raise InputError(path, f"no files for rank {rank}; ranks found: {available}")
    files = {k: folder / p.format(r=rank) for k, p in FILES.items()}
    files = {k: f for k, f in files.items() if f.is_file()}
    b = TraceBuilder(folder, FormatTag.MINDSPORE_LEGACY)
    b.meta.update({"rank": rank, "ranks": available})
    if len(available) > 1:  # the ranks of one job: say which this is (cluster views, advice)
        b.meta["distributed_info"] = {"rank": rank, "world_size": None, "backend": None}
    b.meta["device_type"] = "gpu" if "gpu_timeline" in files else "ascend"

    csv_steps = _read_steps(b, folder, files, rank)
    _read_operators(b, files, folder, rank, csv_steps)
    md.add_minddata_files(b, files)
    _read_cluster_files(b, folder, files, rank)
    ff.add_flops_files(b, files)
    if "dynamic_shape" in files:
        shapes = b.optional(files["dynamic_shape"], ds.read_dynamic_shape)
        if shapes is not None:
            ds.add_dynamic_shape(b, files["dynamic_shape"], shapes)
    if "profiler_info" in files:
        info = b.optional(files["profiler_info"], read_json)
        if isinstance(info, dict):
            b.meta["profiler_info"] = info
    return b.build()


def _read_cluster_files(b: TraceBuilder, folder: Path, files: dict[str, Path], rank: int) -> None:
    if "flops_summary" in files:
        flops = b.optional(files["flops_summary"], cf.read_flops_summary_parts)
        if flops is not None:
            b.meta["flops_summary"], parts = flops
            if any(v is not None for v in parts.values()):
                b.meta["flops_summary_parts"] = parts
    analyse = cf.cluster_analyse_file(folder, rank)
    if analyse is not None:
        parsed = b.optional(analyse, cf.read_cluster_analyse)
        if parsed is not None:
            b.meta["cluster_analyse"] = parsed


def _read_steps(
    b: TraceBuilder, folder: Path, files: dict[str, Path], rank: int
) -> dict[str, Any] | None:
    """The step trace CSV's steps (added to the trace), or None without a readable one."""
    parsed = None
    if "step_trace" in files:
        parsed = b.optional(files["step_trace"], st.read_step_trace_csv)
        if parsed is not None:
            st.add_step_trace(b, parsed)
    for name in (f"step_trace_point_info_{rank}.json", "step_trace_point_info.json"):
        if (folder / name).is_file():
            points = b.optional(folder / name, st.read_point_names)
            if points:
                b.meta["fp_point"] = points.get("fp_start")
                b.meta["bp_point"] = points.get("bp_end")
            break
    return parsed


def _read_operators(
    b: TraceBuilder,
    files: dict[str, Path],
    folder: Path,
    rank: int,
    csv_steps: dict[str, Any] | None,
) -> None:
    framework = b.optional(files["framework"], ops.read_framework) if "framework" in files else None
    if "aicore_detail" in files:
        detail = b.optional(files["aicore_detail"], ops.read_aicore_detail)
        if detail is not None:
            ops.add_operators(b, detail, framework)
    elif framework:
        b.op_types.update((n, v["type"]) for n, v in framework.items())
    aicpu = b.optional(files["aicpu"], ops.read_aicpu) if "aicpu" in files else None
    timeline = None
    for key in ("ascend_timeline", "gpu_timeline"):
        if key in files:
            timeline = b.optional(files[key], ops.read_timeline)
            if timeline is not None:
                offset = ops.align_timeline(timeline, aicpu) if key == "ascend_timeline" else 0
                ops.add_timeline(b, timeline, offset)
                break
    # msprof's device timeline (`PROF_*/device_<d>/`) when no timeline above is used
    prof = b.meta.get("timeline_clock") != "device" and msprof.add_device_timeline(
        b, folder, rank, csv_steps
    )
    if aicpu is not None:
        ops.add_aicpu(b, aicpu, as_events=timeline is None and not prof)
