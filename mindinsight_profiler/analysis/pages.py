"""Which dashboard pages have something to show for one input, and, for those that do not,
why and how to record it, in English and Chinese.

The dashboard greys such a page out in its menu with this reason on hover (and the page,
opened anyway, shows its empty state). The test is what the page itself shows from the
report: a page is "nothing" exactly when the section it draws is absent or empty, so the
menu never hides a page that has something (a Roofline page with FLOPs but no device spec
still shows the FLOPs; a communication page of one rank with collectives still shows them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mindinsight_profiler.analysis.sections import PAGES

Report = Mapping[str, Any]

#: page -> (whether the input has anything for it, reason in English, reason in Chinese)
_RULES: dict[str, tuple[Callable[[Report, int], bool], str, str]] = {
    "step-trace": (
        lambda r, _: bool(r.get("step_trace")),
        "no steps: the trace marks no training steps (ProfilerStep#, MindSpore step files)",
        "没有迭代：trace 中没有标记训练迭代（ProfilerStep#、MindSpore 迭代文件）",
    ),
    "operators": (
        lambda r, _: bool(r.get("operators")) or bool((r.get("op_types") or {}).get("types")),
        "no operator calls in the trace",
        "trace 中没有算子调用",
    ),
    "kernels": (
        lambda r, _: bool(r.get("kernels")),
        "no kernels: the trace has no device activity",
        "没有 kernel：trace 中没有设备活动",
    ),
    "roofline": (
        lambda r, _: (
            bool((r.get("perf_model") or {}).get("shape_count")) or bool(r.get("mindspore_flops"))
        ),
        "no FLOPs model: no operator call with input shapes (record with "
        "`record_shapes=True`) and no MindSpore FLOPs files",
        "没有 FLOPs 模型：没有带输入形状的算子调用（采集时设置 `record_shapes=True`），"
        "也没有 MindSpore 的 FLOPs 文件",
    ),
    "data-pipeline": (
        lambda r, _: bool(r.get("data_pipeline")),
        "no data pipeline: no DataLoader steps, probe or MindData files",
        "没有数据处理数据：没有 DataLoader 迭代、探针或 MindData 文件",
    ),
    "memory": (
        lambda r, _: bool((r.get("memory") or {}).get("devices")),
        "no memory data: record with `profile_memory=True`",
        "没有内存数据：采集时设置 `profile_memory=True`",
    ),
    "communication": (
        lambda r, _: bool(r.get("communication")),
        "no communication: no collectives (NCCL/HCCL) in this worker's trace",
        "没有通信：此工作进程的 trace 中没有集合通信（NCCL/HCCL）",
    ),
    "cluster": (
        lambda r, workers: workers > 1,
        "one rank only: the cluster view compares two or more ranks",
        "只有一个 rank：集群视图需要比较两个或更多 rank",
    ),
    "modules": (
        lambda r, _: bool((r.get("modules") or {}).get("modules")),
        "no module data: record with `with_stack=True` (module frames come with the Python stack)",
        "没有模块数据：采集时设置 `with_stack=True`（模块帧随 Python 调用栈记录）",
    ),
}


def page_availability(report: Report, workers: int) -> dict[str, dict[str, Any]]:
    """Every page: `available`, and `reason` ({en, zh}) when it is not. `workers`: the
    run's worker count (the cluster page needs two)."""
    out: dict[str, dict[str, Any]] = {}
    for spec in PAGES:
        rule = _RULES.get(spec.name)
        if rule is None or rule[0](report, workers):
            out[spec.name] = {"available": True, "reason": None}
        else:
            out[spec.name] = {"available": False, "reason": {"en": rule[1], "zh": rule[2]}}
    return out
