"""The API's answers as msgspec structs: one declaration per answer, reusing the report's.

Every `/api/v1` JSON answer is declared here (`ENDPOINT_ANSWERS` maps each route to its
struct; the operators route answers one of four page shapes, by `group_by`).
`publish.py` writes `docs/schema/api.schema.json` from them, the dashboard generates its
TypeScript types from that file, and `tests/server/test_answer_drift.py` checks the real
answers of a test server on real data against them, strictly. The routes still build
plain dicts; these declarations are the contract those dicts are held to.
"""

from __future__ import annotations

from mindinsight_profiler.server.answers.advice import AdviceAnswer
from mindinsight_profiler.server.answers.cluster import ClusterView
from mindinsight_profiler.server.answers.memory import (
    MemoryCurveAnswer,
    MemoryEventsPage,
    MemoryOperatorsPage,
)
from mindinsight_profiler.server.answers.runs import RunDetail, RunList
from mindinsight_profiler.server.answers.sections import (
    AicpuAnswer,
    CommunicationAnswer,
    DataPipelineAnswer,
    DynamicShapeAnswer,
    MemoryAnswer,
    MindSporeFlopsAnswer,
    ModulesAnswer,
    Overview,
    PerfModelAnswer,
    StepTraceAnswer,
)
from mindinsight_profiler.server.answers.tables import (
    DiffAnswer,
    InstancePage,
    KernelPage,
    OperatorPage,
    OperatorTypePage,
)
from mindinsight_profiler.server.answers.timeline import (
    ClockAnswer,
    EventAnswer,
    SearchAnswer,
    TimelineAnswer,
)

#: The struct of each JSON route's answer, by its rule under /api/v1 (a tuple: one of them,
#: chosen by the request; the operators' by `group_by`, see `operators_answer`).
ENDPOINT_ANSWERS: dict[str, type | tuple[type, ...]] = {
    "/runs": RunList,
    "/runs/<run>": RunDetail,
    "/runs/<run>/overview": Overview,
    "/runs/<run>/step-trace": StepTraceAnswer,
    "/runs/<run>/data-pipeline": DataPipelineAnswer,
    "/runs/<run>/memory": MemoryAnswer,
    "/runs/<run>/communication": CommunicationAnswer,
    "/runs/<run>/modules": ModulesAnswer,
    "/runs/<run>/cluster": ClusterView,
    "/runs/<run>/diff": DiffAnswer,
    "/runs/<run>/advice": AdviceAnswer,
    "/runs/<run>/operators": (OperatorPage, OperatorTypePage, InstancePage),
    "/runs/<run>/kernels": KernelPage,
    "/runs/<run>/aicpu": AicpuAnswer,
    "/runs/<run>/dynamic-shape": DynamicShapeAnswer,
    "/runs/<run>/perf-model": PerfModelAnswer,
    "/runs/<run>/mindspore-flops": MindSporeFlopsAnswer,
    "/runs/<run>/timeline": TimelineAnswer,
    "/runs/<run>/timeline/search": SearchAnswer,
    "/runs/<run>/timeline/event": EventAnswer,
    "/runs/<run>/clock": ClockAnswer,
    "/runs/<run>/memory/curve": MemoryCurveAnswer,
    "/runs/<run>/memory/events": MemoryEventsPage,
    "/runs/<run>/memory/operators": MemoryOperatorsPage,
}


def operators_answer(group_by: str) -> type:
    """The page struct of `/runs/<run>/operators` for a `group_by`."""
    return {"type": OperatorTypePage, "instance": InstancePage}.get(group_by, OperatorPage)


def answer_types() -> list[type]:
    """Every answer struct, once, in route order (the schema's top-level definitions)."""
    out: list[type] = []
    for found in ENDPOINT_ANSWERS.values():
        for cls in found if isinstance(found, tuple) else (found,):
            if cls not in out:
                out.append(cls)
    return out


__all__ = ["ENDPOINT_ANSWERS", "answer_types", "operators_answer"]
