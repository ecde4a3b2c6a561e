"""Multi-device sections of the report: `communication`, `parallel` and `distributed`.

Producers: `analysis.communication.section.communication_section` (from communication kernels,
gloo's host ranges, or MindSpore's `hccl_raw` tables),
`analysis.communication.parallel.parallel_section` (MindSpore's `flops_summary` and
`ascend_cluster_analyse` files) and the trace's own `distributedInfo`
(Kineto, torch_npu), copied as is. Times are microseconds unless a name says otherwise.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.steps import StepsCovered

#: Kineto's `distributedInfo` (backend, rank, world_size, pg_config, nccl_version, ...) as
#: the trace wrote it: free-form, copied from the input, so not declared further.
Distributed = dict[str, Any]


class CommStep(Record, frozen=True, kw_only=True):
    """One step split into computation, overlap, exposed communication and the rest.

    From `hccl_raw` only communication and the tool's wait are known: the split is None.
    """

    step: str
    step_us: float | None  # None: a step the step trace does not have
    computation_us: float | None
    overlapped_us: float | None
    exposed_communication_us: float | None
    other_us: float | None
    communication_us: float
    tool_wait_us: float | msgspec.UnsetType = msgspec.UNSET  # `hccl_raw` rows only


class Collective(Record, frozen=True, kw_only=True):
    """All calls of one collective type (AllReduce, ...) on this worker."""

    name: str
    calls: int
    total_us: float
    bytes: int | None  # sent to other ranks (Ascend's communication matrix); None unknown
    tool_wait_us: float | None  # the tool's own wait figure (Ascend, MindSpore)
    durations_us: list[float]  # each call, in call order


class Link(Record, frozen=True, kw_only=True):
    """One `src-dst` link and transport, with the tool's bandwidth averaged over steps."""

    link: str  # "src-dst"
    src: int | None  # None when the link's ends are not rank numbers
    dst: int | None
    transport: str
    bandwidth: float  # in `unit`
    unit: str | None  # "GB/s" (Ascend); None: MindSpore's own unit
    steps: int
    # MB per collective call on this link (MindSpore hccl_raw's per-call links); None: unknown
    mean_transfer_mb: float | None


class CommAverage(Record, frozen=True, kw_only=True):
    """Mean of each `CommStep` figure over `Communication.average_steps` (None: unknown)."""

    step_us: float | None
    computation_us: float | None
    overlapped_us: float | None
    exposed_communication_us: float | None
    other_us: float | None
    communication_us: float | None
    tool_wait_us: float | None


class Communication(Record, frozen=True, kw_only=True):
    """How much communication each step hides behind compute, and what each collective costs."""

    source: Literal["kernels", "host", "hccl_raw"]  # host: gloo ranges on a CPU run
    steps: list[CommStep]
    collectives: list[Collective]
    rank: int | None
    links: list[Link]
    average_steps: list[str]  # the steps `average` covers
    covered: StepsCovered  # the same, described against the report's steps
    average: CommAverage


class Flops(Record, frozen=True, kw_only=True):
    """MindSpore's `flops_summary` of this rank."""

    flops: float  # millions of floating point operations
    flops_per_second: float  # billions per second
    utilization: float | None  # as the file writes it; None when absent


class ParallelAverageMs(Record, frozen=True, kw_only=True):
    """The profiler's own average row of `ascend_cluster_analyse_*` (ms); columns by mode.

    Older data-parallel files hold other columns and give no averages: every field absent.
    """

    computation_time: float | msgspec.UnsetType = msgspec.UNSET
    communication_alone_time: float | msgspec.UnsetType = msgspec.UNSET
    stage_time: float | msgspec.UnsetType = msgspec.UNSET  # pipeline parallel only
    receive_alone_time: float | msgspec.UnsetType = msgspec.UNSET
    collective_communication_alone_time: float | msgspec.UnsetType = msgspec.UNSET


class Parallel(Record, frozen=True, kw_only=True):
    """This rank's place in a MindSpore parallel job (the cluster page's figures).

    The fields from `file` to `average_ms` come from the `ascend_cluster_analyse_*` file and
    are absent together when the rank has none.
    """

    flops: Flops | None
    file: str | msgspec.UnsetType = msgspec.UNSET
    mode: str | msgspec.UnsetType = msgspec.UNSET  # data-, model- or pipeline-parallel
    stage_num: int | msgspec.UnsetType = msgspec.UNSET
    rank_size: int | msgspec.UnsetType = msgspec.UNSET
    rank: int | msgspec.UnsetType = msgspec.UNSET
    stage: int | msgspec.UnsetType = msgspec.UNSET  # counts from 1
    steps: int | msgspec.UnsetType = msgspec.UNSET
    average_ms: ParallelAverageMs | msgspec.UnsetType = msgspec.UNSET
    iteration_interval_us: float | None
