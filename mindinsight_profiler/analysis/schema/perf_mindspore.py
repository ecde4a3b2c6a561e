"""The FLOPs MindSpore's own profiler counted, as MindInsight 2.3.1 showed them.

Producer: `analysis.perf.mindspore_flops.mindspore_flops` (from `flops_summary_<rank>.json`,
`flops_<rank>.txt` and `flops_scope_<rank>.json` of a legacy MindSpore profiler folder).
These are MindSpore's counts (from the AI Core's hardware counters), not this product's work
model: they are kept apart so that both can be shown and compared. Units are MindInsight's
and in every name: MFLOPs are millions of floating point operations, GFLOPS billions per
second, percentages 0-100 (a utilisation may pass 100 where MindSpore wrote so).
"""

from __future__ import annotations

from typing import Literal

from mindinsight_profiler.analysis.schema.base import Record


class MindSporeFlopsSummary(Record, frozen=True, kw_only=True):
    """`flops_summary_<rank>.json`, the figures of MindInsight's `/profile/flops-summary`.

    `mflops`, `gflops_per_second` and `utilization_percent` are what the cluster page and
    the parallel proposer read (`FLOPs`, `FLOPS`, `FLOPS_Utilization`; a file split into
    parts gives their sums, as MindInsight adds them). MindSpore 1.x's `FLOPS` is the mean
    of its operators' rates, not the total over the run's time. The operator page of
    MindInsight 2.3.1 prints only the parts: null here is its "--".
    """

    mflops: float  # MindInsight: "FLOPs (M)"
    gflops_per_second: float  # MindInsight: "FLOPS (G/s)"
    utilization_percent: float | None  # of the chip's peak; null: the file has none
    cube_mflops: float | None  # "FLOPs(cube)", M
    cube_gflops_per_second: float | None  # "FLOPS(cube)", G/s
    vector_mflops: float | None  # "FLOPs(vec)", M
    vector_gflops_per_second: float | None  # "FLOPS(vec)", G/s


class MindSporeFlopsOp(Record, frozen=True, kw_only=True):
    """One operator of `flops_<rank>.txt` (an AI Core kernel, by its full scope name).

    The figures are the name's last line, the one MindInsight's AI Core detail table joins
    to the operator (MindSpore 1.x writes one line per operator; 2.x one per task, so a name
    repeats once per execution). Totals of a cube/vector file are the sums of its parts;
    a figure the file's layout does not have is null.
    """

    name: str
    mflops: float  # of one execution
    gflops_per_second: float | None
    utilization_percent: float | None
    cube_mflops: float | None
    cube_gflops_per_second: float | None
    cube_utilization_percent: float | None
    vector_mflops: float | None
    vector_gflops_per_second: float | None
    vector_utilization_percent: float | None
    lines: int  # lines of the file with this name
    lines_mflops: float  # MFLOPs of all those lines (what flops_summary adds up)
    avg_time_us: (
        float | None
    )  # per call, AI Core detail file, MindInsight's rounding; null: not in it
    calls: int | None  # from the same file


class MindSporeScopeNode(Record, frozen=True, kw_only=True):
    """A name scope ("conv1-Conv2d(Gradients)"; the suffix is its top scope), or "Total"."""

    name: str


class MindSporeScopeLink(Record, frozen=True, kw_only=True):
    """FLOPs flowing from a scope into one of its children. The keys are those of
    MindInsight's route and of ECharts' sankey series, which draws them as they are."""

    source: str
    target: str
    value: float  # MFLOPs of the operators under `target` (within `source`)


class MindSporeFlopsScope(Record, frozen=True, kw_only=True):
    """`flops_scope_<rank>.json`: MindInsight's `/profile/flops-scope` sankey, in file order."""

    nodes: list[MindSporeScopeNode]
    links: list[MindSporeScopeLink]
    max_scope_num: int  # deepest scope nesting; MindInsight sizes the chart by it


class MindSporeFlops(Record, frozen=True, kw_only=True):
    """MindSpore's FLOPs of one rank: summary, per operator, per scope (each may be absent).

    `ops` follows MindInsight's AI Core detail table: longest average time first (ties in
    the detail file's order), operators without a time after, in file order; it is cut to
    `mindspore_flops.OP_LIMIT` (`op_count` says how many there were), totals are over all.
    """

    summary: MindSporeFlopsSummary | None  # null: no flops_summary file
    layout: Literal["total", "cube_vector"] | None  # of flops_<rank>.txt; null: no such file
    op_count: int  # distinct operator names in flops_<rank>.txt
    line_count: int  # its lines read
    lines_mflops: float | None  # MFLOPs of all its lines; MindSpore's summary FLOPs add them
    ops: list[MindSporeFlopsOp]
    scope: MindSporeFlopsScope | None  # null: no flops_scope file
