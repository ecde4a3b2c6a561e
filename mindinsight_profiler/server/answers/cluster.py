"""The cluster view of a run (`/runs/<run>/cluster`): every rank side by side.

Producer: `analysis.cluster.view.cluster_view` over each worker's `rank_summary`. It is a
view of the run, not of one worker, so it has no `worker`/`span` envelope. Times are us.
"""

from __future__ import annotations

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.analysis.schema.steps import StepsCovered


class ClusterRank(Record, frozen=True, kw_only=True):
    """One rank's mean step split as its communication section splits it (null: unknown)."""

    rank: int
    steps: int
    step_us: float | None
    computation_us: float | None
    overlapped_us: float | None
    exposed_communication_us: float | None
    other_us: float | None
    communication_us: float | None
    tool_wait_us: float | None


class Slowest(Record, frozen=True, kw_only=True):
    """The rank with the longest mean step, and its lead over the others and the fastest."""

    rank: int
    step_us: float
    over_others_us: float
    over_others_pct: float | None
    fastest_rank: int
    over_fastest_us: float
    steps_compared: list[str]  # the steps every rank averages: only those are compared
    own_us: float | None  # its step minus its communication (waiting included), per step
    others_own_us: float | None  # the other ranks' mean own time per step
    slow: bool  # own time 5 % above the others': a straggler, not a rank that waited


class ClusterCollective(Record, frozen=True, kw_only=True):
    """One collective across ranks: calls per rank (aligned with `ranks`) and waiting."""

    name: str
    ranks: list[int]
    calls: list[int]
    matched_calls: int
    transfer_us: float | None
    waiting_us: list[float] | None


class WorkerStages(Record, frozen=True, kw_only=True):
    """One worker's mean step-trace stages and MindSpore's parallel times (null: none)."""

    worker: str
    rank: int
    steps: int | None
    step_us: float | None  # the worker's mean step, its overview's `steps.average_us`
    step_covered: StepsCovered | None  # which steps (its overview's `steps.covered`)
    total_us: float | None
    iteration_interval_us: float | None
    fp_and_bp_us: float | None
    tail_us: float | None
    computation_us: float | None
    communication_alone_us: float | None
    stage_us: float | None
    receive_alone_us: float | None
    collective_communication_alone_us: float | None


class ClusterOutlier(Record, frozen=True, kw_only=True):
    """A rank far from the median of one figure (median and MAD, `analysis.cluster.view`)."""

    rank: int
    key: str
    value: float
    median: float
    z: float | None  # modified z-score; null when every other rank equals the median
    over_median_pct: float | None


class CommTransport(Record, frozen=True, kw_only=True):
    """Link bandwidths of one transport, sparse: the i-th link is src[i] -> dst[i]."""

    transport: str
    unit: str | None
    src: list[int]
    dst: list[int]
    bandwidth: list[float]
    reported_by: list[list[int]]  # the ranks whose files name each link


class CommMatrix(Record, frozen=True, kw_only=True):
    """Link bandwidth between devices, per transport."""

    devices: list[int]
    transports: list[CommTransport]


class ClusterView(Record, frozen=True, kw_only=True):
    """The cluster summary, each worker's stages (joined on `rank`), outliers and links."""

    run: str
    workers: list[str]
    ranks: list[ClusterRank]
    slowest: Slowest | None
    collectives: list[ClusterCollective]
    stages: list[WorkerStages]
    outliers: list[ClusterOutlier]
    comm_matrix: CommMatrix
