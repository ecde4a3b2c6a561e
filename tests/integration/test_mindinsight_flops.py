"""MindSpore's FLOPs equal MindInsight 2.3.1's on `../shared/data/mindspore_legacy`.

The expected figures are the `flops` view of `scripts/mindinsight_reference.py` (MindInsight
2.3.1 in its own virtualenv, its analysers called as its web API calls them, on a copy of
the folders), copied here literally, as `test_mindinsight_parity.py` does for the other
views; MindInsight is not needed to run this test:

    ../mi-venv/bin/python scripts/mindinsight_reference.py > mindinsight.json

What MindInsight does with the files (mindinsight/profiler/analyser/flops_analyser.py):
`/profile/flops-summary` and `/profile/flops-scope` return `flops_summary_<r>.json` and
`flops_scope_<r>.json` as `json.load` reads them ({} without the file), so those are also
checked against the files themselves; `/profile/cluster-flops` adds `FLOPs_norm` (FLOPs
over the largest rank's); the AI Core detail table (`AicoreDetailAnalyser`) joins each line
of `flops_<r>.txt` to an operator of `aicore_intermediate_<r>_detail.csv` by full name.

Tolerance: none for the FLOPs figures, which both sides take from the same JSON or text
number (equal floats); 1e-9 us (float noise) for an average time, which both round to 3
places (6 below 1 us), MindInsight from the file's ms, ours from whole nanoseconds. One
documented difference:
MindInsight's detail table takes the first four numbers of a line whatever they are, so
for a 6-number line (profiler_fixtures rank 1) "MFLOPs(10^6 vector)" shows the cube
utilisation (33) and "GFLOPS(10^9 vector)" the vector MFLOPs (333); each figure keeps its
own name here (`analysis/perf/mindspore_flops.py`).
"""

from __future__ import annotations

import functools
import json

import pytest

from mindinsight_profiler.analysis.perf.mindspore_flops import mindspore_flops
from mindinsight_profiler.analysis.schema.perf_mindspore import MindSporeFlops
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from tests.conftest import shared

FIXTURES = "mindspore_legacy/profiler_fixtures"
CLUSTER = "mindspore_legacy/cluster_propose"
#: Average times (us) are rounded alike on both sides: float noise only.
TIME_NOISE = 1e-9

# fmt: off
# FlopsAnalyser(folder, rank).get_flops_summary(): FLOPs (M), FLOPS (G/s), FLOPS_Utilization
# (%); {} for profiler_fixtures rank 1 (no file).
SUMMARY = {
    (FIXTURES, 0): {"FLOPs": 8167.743, "FLOPS": 9868.936, "FLOPS_Utilization": 3.765},
    (CLUSTER, 0): {"FLOPs": 107146.763, "FLOPS": 5385.552, "FLOPS_Utilization": 0.23},
    (CLUSTER, 1): {"FLOPs": 107145.034, "FLOPS": 5386.261, "FLOPS_Utilization": 0.229},
    (CLUSTER, 2): {"FLOPs": 329608.369, "FLOPS": 4859.39, "FLOPS_Utilization": 0.725},
    (CLUSTER, 3): {"FLOPs": 329612.4, "FLOPS": 4897.642, "FLOPS_Utilization": 0.725},
}
#: ClusterFlopsAnalyser(cluster_propose).get_flops(): FLOPs_norm per rank.
FLOPS_NORM = {0: 0.3250689688858793, 1: 0.32506372333079697, 2: 0.9999877704843628, 3: 1.0}
# FlopsAnalyser(profiler_fixtures, 0).get_flops_scope(): max_scope_num, node and link counts,
# the first links; {} for every other rank here.
SCOPE_DEPTH, SCOPE_NODES, SCOPE_LINKS = 7, 33, 34
SCOPE_FIRST_LINKS = [
    {"source": "Total", "target": "Default", "value": 4655.465},
    {"source": "Default", "target": "network-TrainOneStepWithLossScaleCell(Default)",
     "value": 4536.56},
    {"source": "network-TrainOneStepWithLossScaleCell(Default)",
     "target": "network-WithLossCell(Default)", "value": 2180.127},
]
# AicoreDetailAnalyser(profiler_fixtures, 1).query({"sort_condition": {"name":
# "avg_execution_time", "type": "descending"}}): op_name, avg_execution_time (us),
# "MFLOPs(10^6 cube)", "GFLOPS(10^9 cube)", "MFLOPs(10^6 vector)", "GFLOPS(10^9 vector)".
_LENET = "Default/network-WithLossCell/_backbone-LeNet5"
AICORE_DETAIL = [
    (f"{_LENET}/fc3-Dense/MatMul-op9", 370.864, 333.0, 333.0, 33.0, 333.0),
    (f"{_LENET}/conv1-Conv2d/Conv2D-op13", 56.51, 333.0, 333.0, 33.0, 333.0),
    (f"Gradients/{_LENET}/gradReshape/TransData-op44", 6.782, 333.0, 333.0, 33.0, 333.0),
    ("Default/TransData-op11", 6.366, 333.0, 333.0, 33.0, 333.0),
    (f"Gradients/{_LENET}/conv1-Conv2d/gradConv2D/Cast-op53", 4.879, 333.0, 333.0, 33.0, 333.0),
    ("Default/Cast-op10", 4.66, 333.0, 333.0, 33.0, 333.0),
    (f"{_LENET}/conv1-Conv2d/Cast-op12", 2.366, 333.0, 333.0, 33.0, 333.0),
    ("Default/AtomicAddrClean-op104", 1.33, 333.0, 333.0, 33.0, 333.0),
    ("Default/AtomicAddrClean-op106", 1.129, 333.0, 333.0, 33.0, 333.0),
    ("Default/AtomicAddrClean-op105", 0.987, 333.0, 333.0, 33.0, 333.0),
]
# fmt: on


def _id(case: tuple[str, int]) -> str:
    return f"{case[0].split('/')[1]}-{case[1]}"


@functools.cache
def _flops(folder: str, rank: int) -> MindSporeFlops:
    got = mindspore_flops(read_mindspore_legacy(shared(folder), rank))
    assert got is not None, (folder, rank)
    return got


@pytest.mark.parametrize("case", list(SUMMARY), ids=_id)
def test_summary_equals_mindinsight_and_the_file(case: tuple[str, int]) -> None:
    """The issue's check: each cluster_propose rank's FLOPs equal its flops_summary file."""
    folder, rank = case
    s = _flops(folder, rank).summary
    assert s is not None
    ours = {"FLOPs": s.mflops, "FLOPS": s.gflops_per_second, "FLOPS_Utilization":
            s.utilization_percent}  # fmt: skip
    assert ours == SUMMARY[case]
    assert ours == json.loads((shared(folder) / f"flops_summary_{rank}.json").read_text())
    # No cube/vec keys in these files: MindInsight 2.3.1's operator page prints "--".
    parts = (s.cube_mflops, s.cube_gflops_per_second, s.vector_mflops, s.vector_gflops_per_second)
    assert parts == (None, None, None, None)


def test_cluster_flops_normalised_as_mindinsight() -> None:
    flops = {r: _flops(CLUSTER, r).summary for r in range(4)}
    top = max(s.mflops for s in flops.values() if s is not None)
    norm = {r: s.mflops / top for r, s in flops.items() if s is not None}
    assert norm == pytest.approx(FLOPS_NORM, abs=1e-15)


def test_scope_equals_mindinsight_and_the_file() -> None:
    scope = _flops(FIXTURES, 0).scope
    assert scope is not None
    assert (scope.max_scope_num, len(scope.nodes), len(scope.links)) == (
        SCOPE_DEPTH,
        SCOPE_NODES,
        SCOPE_LINKS,
    )
    links = [{"source": k.source, "target": k.target, "value": k.value} for k in scope.links]
    assert links[:3] == SCOPE_FIRST_LINKS
    doc = json.loads((shared(FIXTURES) / "flops_scope_0.json").read_text())
    assert [n.name for n in scope.nodes] == [n["name"] for n in doc["data"]["nodes"]]
    assert links == doc["data"]["links"] and scope.max_scope_num == doc["max_scope_num"]


def test_ranks_without_files_show_nothing_as_mindinsight() -> None:
    """MindInsight answers {} for a missing summary or scope; ours is null."""
    assert _flops(FIXTURES, 1).summary is None and _flops(FIXTURES, 1).scope is None
    for rank in range(4):
        got = _flops(CLUSTER, rank)
        assert got.scope is None and got.layout is None and got.ops == []


def test_per_op_flops_and_order_equal_the_aicore_detail_table() -> None:
    got = _flops(FIXTURES, 1)
    assert got.layout == "cube_vector" and got.op_count == len(AICORE_DETAIL)
    assert [op.name for op in got.ops] == [row[0] for row in AICORE_DETAIL]
    for op, (name, avg_us, cube_m, cube_g, shown_vec_m, shown_vec_g) in zip(
        got.ops, AICORE_DETAIL, strict=True
    ):
        assert op.avg_time_us == pytest.approx(avg_us, abs=TIME_NOISE), name
        assert (op.cube_mflops, op.cube_gflops_per_second) == (cube_m, cube_g), name
        # MindInsight's mislabelled columns (module doc): what it shows is still ours.
        assert (op.cube_utilization_percent, op.vector_mflops) == (shown_vec_m, shown_vec_g)
        assert (op.vector_gflops_per_second, op.vector_utilization_percent) == (333.0, 33.0)


def test_per_op_flops_of_a_rank_without_detail_equal_the_file() -> None:
    """profiler_fixtures rank 0 has no AI Core detail file, so MindInsight shows no FLOPs per
    operator for it; ours are the file's lines, in its order (read here independently)."""
    text = (shared(FIXTURES) / "flops_0.txt").read_text().splitlines()
    want = [[c.strip() for c in line.split(",")] for line in text[1:] if line.strip()]
    got = _flops(FIXTURES, 0)
    assert got.layout == "total" and got.line_count == len(want) == 4
    ours = [(op.name, op.mflops, op.gflops_per_second, op.utilization_percent) for op in got.ops]
    assert ours == [(n, float(a), float(b), float(c)) for n, a, b, c in want]
    assert got.lines_mflops == sum(float(row[1]) for row in want)
