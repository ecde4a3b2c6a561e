"""Rules whose facts come from a damaged input file are not evaluated, naming the file.

Readers skip a damaged optional file so the rest of an input can be analysed, and the
report lists it (`warnings`, "<file>: skipped: <problem>"). A fact computed without that
file is not just missing, it can be wrong: with the MindData queue log gone the data
verdict reads "none", with the AI Core file gone kernel time reads 0 and the step looks
"untracked". Facts cannot tell this themselves (they see a trace without the table), so
this module says which files each family of facts is computed from, and a rule that uses
such a fact while its file was skipped is reported as not evaluated, with the file and
the problem, instead of being judged on what is left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mindinsight_profiler.analysis.input_warnings import SKIPPED

#: (input files, fact name prefixes computed from them). Names are the readers' file names
#: (MindSpore legacy `*_{rank}.*`, MindSpore msprof timelines, Ascend summaries).
_DEVICE_TIME = ("stability.untracked", "operator.", "npu.", "gpu.", "kernels.", "precision.")
SOURCES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^(device_queue|dataset_iterator)_profiling_"), ("data.host_queue",)),
    (re.compile(r"^minddata_(aicpu|getnext)"), ("data.chip_queue", "data.wait")),
    (re.compile(r"^(minddata_pipeline_raw|pipeline_profiling)_"), ("data.pipeline",)),
    (re.compile(r"^minddata_cpu_utilization_"), ("data.cpu",)),
    (
        re.compile(r"^step_trace_raw_|^step_trace_point_info"),
        ("data.iteration_interval", "cluster.interval", "cluster.pp", "step.", "stability."),
    ),
    (
        re.compile(
            r"^(aicore_intermediate|aicpu_intermediate|framework_raw|output_timeline_data)_"
            r"|timeline_(display|summary)_|^(msprof|task_time|hccl)_\d+_\d+_\d+\.json$"
            r"|^(kernel_details|op_statistic)\.csv$"
        ),
        _DEVICE_TIME,
    ),
    (
        re.compile(r"^hccl_raw_|^communication(_matrix)?\.json$"),
        ("comm.", "cluster.link", "cluster.comm", "cluster.step", "cluster.slowest"),
    ),
    (re.compile(r"^flops_summary_|^ascend_cluster_analyse_"), ("cluster.flops", "cluster.pp")),
    (re.compile(r"^step_trace_time\.csv$"), ("free_time.",)),
    (
        re.compile(r"^(memory_record|operator_memory|npu_module_mem)\.csv$"),
        ("stability.memory", "alloc."),
    ),
)


def damaged_files(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(file, message) of every file the readers skipped, from the report's warnings."""
    return [
        (str(w["file"]), str(w["message"]))
        for w in report.get("warnings") or []
        if w.get("file") and SKIPPED in str(w.get("message"))
    ]


def blocked(facts: Sequence[str], damaged: list[tuple[str, str]]) -> tuple[list[str], str] | None:
    """(the facts that depend on a skipped file, the reason naming it), or None."""
    for file, message in damaged:
        for pattern, prefixes in SOURCES:
            if not pattern.search(file):
                continue
            hit = [f for f in facts if f.startswith(prefixes)]
            if hit:
                problem = message.split(SKIPPED, 1)[-1]
                return hit, f"computed from {file}, which could not be read: {problem}"
    return None
