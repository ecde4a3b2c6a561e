"""`mindspore_flops` on hand-written MindSpore FLOPs files: each layout, MindInsight's order.

Every figure is written here by hand, so each expected value can be checked by reading the
file text above it; damaged files are in `test_mindspore_flops_files.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.perf.mindspore_flops import OP_LIMIT, mindspore_flops
from mindinsight_profiler.analysis.schema.perf_mindspore import MindSporeFlops
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy

#: MindSpore 1.x (`FlopsParser`): one line per operator, ", " between cells, a trailing blank.
TOTAL = """op_full_name, MFLOPs(10^6), GFLOPS(10^9), FLOPS utilization(%) \n\
Default/net/Conv2D-op1, 120.5, 40.0, 12.5
Gradients/Default/net/gradConv2D/Conv2DBackpropInput-op2, 240.25, 60.5, 18.75
Default/net/MatMul-op3, 10.0, 2.5, 0.5
"""
#: MindSpore 2.x (`AscendFlopsGenerator`): csv, one line per task, so names repeat.
CUBE_VECTOR = """\
op_full_name,MFLOPs(10^6 cube),GFLOPS(10^9 cube),MFLOPs(10^6 vector),GFLOPS(10^9 vector)
Default/MatMul-op1,100.0,50.0,1.0,0.5
Default/Add-op2,0.0,0.0,4.0,2.0
Default/MatMul-op1,100.0,40.0,1.0,0.25
"""
#: The 7-column variant (MindInsight's own fixtures): each part with its utilisation.
WITH_UTILIZATION = (
    "full_kernel_name, MFLOPs(10^6 cube), GFLOPS(10^9 cube), FLOPS utilization(cube), "
    "MFLOPs(10^6 vector), GFLOPS(10^9 vector), FLOPS utilization(vec)\n"
    "Default/Cast-op1, 1.5, 3.0, 0.25, 7.0, 9.0, 1.75\n"
)
SCOPE = {
    "data": {
        "nodes": [{"name": "Total"}, {"name": "Default"}, {"name": "net(Default)"}],
        "links": [
            {"source": "Total", "target": "Default", "value": 130.5},
            {"source": "Default", "target": "net(Default)", "value": 130.5},
        ],
    },
    "max_scope_num": 2,
}


def _run(folder: Path, files: dict[str, str]) -> MindSporeFlops | None:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return mindspore_flops(read_mindspore_legacy(folder, 0))


def _short(got: MindSporeFlops) -> list[str]:
    return [op.name.rsplit("/", 1)[1] for op in got.ops]


def test_total_layout_summary_ops_and_scope(tmp_path: Path) -> None:
    summary = {"FLOPs": 370.75, "FLOPS": 34.333, "FLOPS_Utilization": 10.583}
    got = _run(
        tmp_path / "p",
        {
            "flops_0.txt": TOTAL,
            "flops_summary_0.json": json.dumps(summary),
            "flops_scope_0.json": json.dumps(SCOPE),
        },
    )
    assert got is not None and got.summary is not None and got.scope is not None
    s = got.summary
    assert (s.mflops, s.gflops_per_second, s.utilization_percent) == (370.75, 34.333, 10.583)
    # MindInsight 2.3.1's operator page prints only the parts: "--" for a file without them.
    assert (s.cube_mflops, s.vector_mflops, s.cube_gflops_per_second) == (None, None, None)
    assert got.layout == "total" and (got.op_count, got.line_count) == (3, 3)
    assert got.lines_mflops == 120.5 + 240.25 + 10.0 == s.mflops  # MindSpore's sum
    # No AI Core detail file: no times, so the file's order.
    assert _short(got) == ["Conv2D-op1", "Conv2DBackpropInput-op2", "MatMul-op3"]
    second = got.ops[1]
    assert (second.mflops, second.gflops_per_second, second.utilization_percent) == (
        240.25,
        60.5,
        18.75,
    )
    assert second.cube_mflops is None and second.avg_time_us is None and second.calls is None
    assert [n.name for n in got.scope.nodes] == ["Total", "Default", "net(Default)"]
    assert [(k.source, k.target, k.value) for k in got.scope.links] == [
        ("Total", "Default", 130.5),
        ("Default", "net(Default)", 130.5),
    ]
    assert got.scope.max_scope_num == 2


def test_cube_vector_layout_keeps_the_last_line_of_a_name(tmp_path: Path) -> None:
    summary = {"cube_FLOPs": 200.0, "cube_FLOPS": 0.9, "vec_FLOPs": 6.0, "vec_FLOPS": 0.0275}
    got = _run(
        tmp_path / "p", {"flops_0.txt": CUBE_VECTOR, "flops_summary_0.json": json.dumps(summary)}
    )
    assert got is not None and got.summary is not None
    s = got.summary
    assert (s.cube_mflops, s.cube_gflops_per_second) == (200.0, 0.9)
    assert (s.vector_mflops, s.vector_gflops_per_second) == (6.0, 0.0275)
    # The totals MindInsight's cluster page and proposer use: the parts added.
    assert s.mflops == 206.0 and s.gflops_per_second == pytest.approx(0.9275)
    assert s.utilization_percent is None
    assert got.layout == "cube_vector" and (got.op_count, got.line_count) == (2, 3)
    assert got.lines_mflops == pytest.approx(101 + 4 + 101)
    matmul = next(op for op in got.ops if op.name == "Default/MatMul-op1")
    # MindInsight's table joins a name to its last line: 40 GFLOPS, not the first's 50.
    assert (matmul.cube_mflops, matmul.cube_gflops_per_second) == (100.0, 40.0)
    assert (matmul.vector_mflops, matmul.vector_gflops_per_second) == (1.0, 0.25)
    assert (matmul.mflops, matmul.gflops_per_second) == (101.0, 40.25)
    assert (matmul.lines, matmul.lines_mflops) == (2, 202.0)
    assert matmul.utilization_percent is None and matmul.cube_utilization_percent is None


def test_parts_with_their_utilization(tmp_path: Path) -> None:
    got = _run(tmp_path / "p", {"flops_0.txt": WITH_UTILIZATION})
    assert got is not None and got.summary is None and got.scope is None
    op = got.ops[0]
    cube = (op.cube_mflops, op.cube_gflops_per_second, op.cube_utilization_percent)
    assert cube == (1.5, 3.0, 0.25)
    assert (op.vector_mflops, op.vector_gflops_per_second, op.vector_utilization_percent) == (
        7.0,
        9.0,
        1.75,
    )
    assert (op.mflops, op.gflops_per_second) == (8.5, 12.0)


def test_ops_in_mindinsight_order_longest_average_first(tmp_path: Path) -> None:
    """The AI Core detail table's order: average time descending, the file's order for the
    operators it lacks. File order and time order differ here, so either mistake shows."""
    detail = (
        "full_kernel_time,execution_time,execution_frequency\n"
        "Default/net/MatMul-op3,0.0045,2\n"  # 4.5 us a call, 2 calls
        "Default/net/Conv2D-op1,0.00125,4\n"  # 1.25 us a call
    )
    got = _run(tmp_path / "p", {"flops_0.txt": TOTAL, "aicore_intermediate_0_detail.csv": detail})
    assert got is not None
    assert _short(got) == ["MatMul-op3", "Conv2D-op1", "Conv2DBackpropInput-op2"]
    assert [op.avg_time_us for op in got.ops] == pytest.approx([4.5, 1.25, None])
    assert [op.calls for op in got.ops] == [2, 4, None]


def test_equal_times_keep_the_detail_files_order(tmp_path: Path) -> None:
    """MindInsight sorts the detail file's rows stably by the time it shows (3 places): a
    tie keeps the detail file's order (here the reverse of the FLOPs file's)."""
    detail = (
        "full_kernel_time,execution_time,execution_frequency\n"
        "Default/net/MatMul-op3,0.0020001,1\n"  # 2000.1 ns, read to the ns: a tie
        "Default/net/Conv2D-op1,0.002,1\n"
    )
    got = _run(tmp_path / "p", {"flops_0.txt": TOTAL, "aicore_intermediate_0_detail.csv": detail})
    assert got is not None
    assert _short(got) == ["MatMul-op3", "Conv2D-op1", "Conv2DBackpropInput-op2"]
    assert [op.avg_time_us for op in got.ops] == [2.0, 2.0, None]


def test_long_tables_are_cut_after_the_totals(tmp_path: Path) -> None:
    n = OP_LIMIT + 5
    lines = "".join(f"Default/Add-op{i}, 2.0, 1.0, 0.5\n" for i in range(n))
    got = _run(
        tmp_path / "p", {"flops_0.txt": "op_full_name, FLOPs, FLOPS, FLOPS utilization\n" + lines}
    )
    assert got is not None
    assert (got.op_count, got.line_count, len(got.ops)) == (n, n, OP_LIMIT)
    assert got.lines_mflops == 2.0 * n
    assert got.ops[-1].name == f"Default/Add-op{OP_LIMIT - 1}"


def test_only_a_scope_is_enough_and_no_files_is_none(tmp_path: Path) -> None:
    got = _run(tmp_path / "a", {"flops_scope_0.json": json.dumps(SCOPE)})
    assert got is not None and got.scope is not None
    assert (got.summary, got.layout, got.ops, got.lines_mflops) == (None, None, [], None)
    other = _run(tmp_path / "b", {"profiler_info_0.json": "{}", "flops_summary_0.json": "{"})
    assert other is None  # the only FLOPs file is damaged: nothing to show
