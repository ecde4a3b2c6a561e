"""Communication view and cluster summary on real multi-rank data (NCCL, HCCL, MindSpore)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.categories import comm_kernel_mask, is_comm_kernel_name
from mindinsight_profiler.analysis.cluster.summary import cluster_summary
from mindinsight_profiler.analysis.communication.naming import host_collective
from mindinsight_profiler.analysis.communication.section import (
    STAGES,
    collective_type,
    communication_section,
)
from mindinsight_profiler.analysis.steps.boundaries import averaged_from, find_steps
from mindinsight_profiler.analysis.steps.stages import step_stages
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared


def _section(trace: Trace) -> dict[str, Any]:
    section = communication_section(trace)
    assert section is not None
    json.dumps(section)  # JSON-ready
    return section


def _stages_sum_to_step(section: dict[str, Any]) -> None:
    for row in section["steps"]:
        assert sum(row[k] for k in STAGES) == pytest.approx(row["step_us"], abs=1e-6)
        assert min(row[k] for k in STAGES) >= 0


def test_collective_type_names() -> None:
    assert collective_type("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)") == "AllReduce"
    assert collective_type("ncclDevKernel_SendRecv(ncclDevComm*)") == "SendRecv"
    assert collective_type("hcom_allReduce__586_0_1") == "AllReduce"
    assert collective_type("stream_41_0_AllReduce-op4582") == "AllReduce"


@pytest.mark.parametrize(
    ("name", "collective"),
    [
        ("nccl:all_to_all", "AllToAll"),
        ("c10d::alltoall_base_", "AllToAll"),
        ("nccl:_all_gather_base", "AllGather"),
        ("c10d::allgather_into_tensor_coalesced_", "AllGather"),
        ("nccl:reduce_scatter_tensor_coalesced", "ReduceScatter"),
        ("gloo:all_reduce", "AllReduce"),
        ("nccl:send 0->1", "Send"),
        ("record_param_comms", None),
        ("c10d::wait", None),
        ("aten::mm", None),
    ],
)
def test_host_collective_names(name: str, collective: str | None) -> None:
    assert host_collective(name) == collective


def test_symmetric_memory_kernels_are_communication() -> None:
    """PyTorch's symmetric-memory collectives (kernel names of
    torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu) and vLLM's custom
    all-reduce are communication, named by their collective."""
    for name, kind in [
        ("void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16>", "AllReduce"),
        ("void c10d::symmetric_memory::multimem_all_gather_kernel<16>", "AllGather"),
        ("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8, 4>", "AllReduce"),
        ("void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 8>", "AllReduce"),
        ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>", "Reduce"),
    ]:
        assert is_comm_kernel_name(name), name
        assert collective_type(name) == kind, name
    assert not is_comm_kernel_name("void at::native::reduce_kernel<512, 1>")


def test_collectives_are_named_by_what_was_asked() -> None:
    """HTA's sampled trace runs every collective as `ncclKernel_SendRecv`; the host ranges
    that launched them say all_to_all, all_reduce and _all_gather_base (4 + 4 + 2 calls)."""
    trace = read_trace(shared("hta/trace_filter/sampled_rank-0.json.gz"), "kineto")
    kernels = trace.strings.lookup(trace.events["name"][comm_kernel_mask(trace)])
    assert {n.split("_RING")[0] for n in kernels} == {"ncclKernel_SendRecv"}
    calls = {c["name"]: c["calls"] for c in _section(trace)["collectives"]}
    assert calls == {"AllToAll": 4, "AllReduce": 4, "AllGather": 2}


def test_kineto_nccl_steps_and_collectives() -> None:
    trace = read_trace(shared("hta/nccl_parser_config/nccl_data.json.gz"), "kineto")
    section = _section(trace)
    _stages_sum_to_step(section)
    assert len(section["steps"]) == 3 and section["rank"] == 0
    assert section["average_steps"] == [row["step"] for row in section["steps"]]  # all
    ev = trace.events
    comm = comm_kernel_mask(trace)
    by_name = {c["name"]: c for c in section["collectives"]}
    assert {k: c["calls"] for k, c in by_name.items()} == {"AllReduce": 15, "Broadcast": 6}
    total_ns = int((ev["end_ns"] - ev["start_ns"])[comm].sum())
    assert sum(c["total_us"] for c in by_name.values()) == pytest.approx(total_ns / 1000.0)
    assert section["average"]["communication_us"] > 0.05 * section["average"]["step_us"]


def test_no_communication_gives_none() -> None:
    # A single-process CPU run: no kernels and no gloo ranges, so no collectives.
    trace = read_trace(next(shared("torch_cpu").rglob("*.pt.trace.json*")), "kineto")
    assert communication_section(trace) is None


def test_gloo_collectives_on_a_cpu_run_are_its_communication() -> None:
    """HTA's cpu_only fixture (rank 34 of a 300-rank gloo job): no kernels, but two gloo
    worker threads each run one all-reduce per step (321,271 and 2,082,411 floats): the
    section splits the step by those ranges, five calls per bucket."""
    trace = read_trace(next(shared("hta/cpu_only").glob("*.json.gz")), "kineto")
    section = _section(trace)
    _stages_sum_to_step(section)
    assert section["source"] == "host" and section["rank"] == 34
    (allreduce,) = section["collectives"]
    assert allreduce["name"] == "AllReduce" and allreduce["calls"] == 10
    # the step holds no operator: all of the two first calls' union inside it is exposed
    (row,) = section["steps"]
    assert row["computation_us"] == 0 and row["exposed_communication_us"] > 150_000


def test_kineto_two_ranks_cluster() -> None:
    sections = [
        _section(read_trace(shared(f"hta/trace_filter/sampled_rank-{r}.json.gz"), "kineto"))
        for r in (0, 1)
    ]
    for s in sections:
        _stages_sum_to_step(s)
    summary = cluster_summary([{"communication": s} for s in reversed(sections)])
    json.dumps(summary)
    assert [r["rank"] for r in summary["ranks"]] == [0, 1]
    assert summary["slowest"]["rank"] == 1
    assert summary["slowest"]["over_fastest_us"] == pytest.approx(4151.5)
    # every call runs as ncclKernel_SendRecv; matched per collective the user asked for
    by_name = {c["name"]: c for c in summary["collectives"]}
    assert {k: c["matched_calls"] for k, c in by_name.items()} == {
        "AllGather": 2, "AllReduce": 4, "AllToAll": 4
    }  # fmt: skip
    for name, coll in by_name.items():
        for rank, waiting in zip(coll["ranks"], coll["waiting_us"], strict=True):
            own = next(c for c in sections[rank]["collectives"] if c["name"] == name)
            assert coll["transfer_us"] + waiting == pytest.approx(own["total_us"])
    assert by_name["AllToAll"]["transfer_us"] == pytest.approx(132_798.0)


@pytest.fixture(scope="module")
def ascend() -> list[tuple[Trace, dict[str, Any]]]:
    out = []
    for r in (0, 1):
        trace = read_trace(shared(f"ascend_pytorch/level1/rank{r}_ascend_pt"))
        out.append((trace, _section(trace)))
    return out


def test_ascend_split_matches_the_tools_step_trace_time(
    ascend: list[tuple[Trace, dict[str, Any]]],
) -> None:
    for trace, section in ascend:
        _stages_sum_to_step(section)
        tool = trace.tables["step_trace_time"]
        (row,) = section["steps"]
        # Our interval algebra over hcom kernels against torch_npu's own figures, within 1 us.
        assert row["communication_us"] == pytest.approx(tool["communication_ns"][0] / 1e3, abs=1)
        assert row["overlapped_us"] == pytest.approx(tool["overlapped_ns"][0] / 1e3, abs=1)
        assert row["exposed_communication_us"] == pytest.approx(
            tool["comm_not_overlapped_ns"][0] / 1e3, abs=1
        )
        (allreduce,) = section["collectives"]
        assert allreduce["calls"] == 4 and allreduce["bytes"] == 448_367_004
        assert allreduce["tool_wait_us"] > 0


def test_ascend_cluster_waiting(ascend: list[tuple[Trace, dict[str, Any]]]) -> None:
    summary = cluster_summary([s for _, s in ascend])
    assert summary["slowest"]["rank"] == 0
    (allreduce,) = summary["collectives"]
    assert allreduce["matched_calls"] == 4
    wait0, wait1 = allreduce["waiting_us"]
    # Rank 0 arrives first and waits for rank 1 (5.6 ms); the tool's own wait agrees (5.9 ms).
    assert wait0 == pytest.approx(5622.312, abs=0.01) and wait1 < 10
    assert wait0 <= ascend[0][1]["collectives"][0]["tool_wait_us"]


def _ms_rank(r: int) -> Trace:
    return read_trace(shared("mindspore_legacy/cluster_propose"), "mindspore_legacy", f"rank{r}")


def test_mindspore_hccl_raw_four_ranks() -> None:
    traces = [_ms_rank(r) for r in range(4)]
    sections = [_section(t) for t in traces]
    for trace, section in zip(traces, sections, strict=True):
        hccl = trace.tables["hccl"]
        assert section["source"] == "hccl_raw"
        got = [row["communication_us"] for row in section["steps"]]
        assert got == pytest.approx((hccl["comm_ns"] / 1e3).tolist())
        # The per-call costs add up to the per-step totals of the same file.
        calls_us = sum(c["total_us"] for c in section["collectives"])
        assert calls_us == pytest.approx(hccl["comm_ns"].sum() / 1e3, rel=1e-6)
        assert all(row["computation_us"] is None for row in section["steps"])
    summary = cluster_summary(sections)
    assert [r["rank"] for r in summary["ranks"]] == [0, 1, 2, 3]
    # ranks 2-3 have hccl rows for steps 1-2 only (2 averaged), 0-1 for 1-6: compared on
    # step 2, the four are within 0.04 % of each other, so no rank is slow
    slowest = summary["slowest"]
    assert slowest["steps_compared"] == ["2"] and slowest["slow"] is False
    assert slowest["over_others_pct"] < 0.1
    by_name = {c["name"]: c for c in summary["collectives"]}
    assert set(by_name) == {"AllReduce", "Receive", "Send"}
    allreduce = by_name["AllReduce"]
    assert allreduce["calls"] == [458, 458, 489, 489] and allreduce["matched_calls"] == 458
    assert np.min(allreduce["waiting_us"]) >= 0


def test_mindspore_average_covers_the_step_trace_steps() -> None:
    """hccl_raw averages skip step 1 (compilation) as MindSpore's step trace does, and steps
    the step trace lacks (the unfinished last one), so a rank's communication and its
    step-trace stages describe the same steps."""
    for r in range(4):
        trace = _ms_rank(r)
        section = _section(trace)
        stages = step_stages(trace)
        assert stages is not None and len(stages) > 1
        traced = {str(s) for s in stages.step.tolist()}
        by_step = {row["step"]: row for row in section["steps"]}
        want = [s for s in by_step if s in traced][1:]
        assert section["average_steps"] == want and want
        assert section["average"]["communication_us"] == pytest.approx(
            np.mean([by_step[s]["communication_us"] for s in want])
        )
        rows = np.isin(stages.step, [int(s) for s in want])
        assert section["average"]["step_us"] == pytest.approx(stages.total_ns[rows].mean() / 1e3)
        # step 1 is not averaged, whatever it cost (ranks 2 and 3: a 2 s warm-up)
        assert "1" not in section["average_steps"]


def test_sections_without_rank_take_their_position() -> None:
    section = {"steps": [], "average": {"step_us": 1.0}, "collectives": []}
    summary = cluster_summary([section, {**section, "average": {"step_us": 3.0}}])
    assert summary["slowest"] == {
        "rank": 1,
        "step_us": 3.0,
        "over_others_us": 2.0,
        "over_others_pct": 200.0,
        "fastest_rank": 0,
        "over_fastest_us": 2.0,
        "steps_compared": [],  # no step rows: the ranks' own averages
        "own_us": None,
        "others_own_us": None,
        "slow": True,
    }


def test_a_rank_that_waited_is_not_called_slow() -> None:
    """Ascend level 0, two ranks: rank 0's step is 13 % longer, all of it exposed
    communication (it started earlier and waited in the all-reduce); its own work per step
    equals rank 1's, so it is the longest step but no straggler."""
    sections = [
        _section(read_trace(shared(f"ascend_pytorch/level0/rank{r}_ascend_pt"))) for r in (0, 1)
    ]
    slowest = cluster_summary([{"communication": s} for s in sections])["slowest"]
    assert slowest["rank"] == 0 and slowest["over_others_pct"] > 10
    assert slowest["slow"] is False and slowest["steps_compared"] == ["50"]
    own = [s["average"]["step_us"] - s["average"]["communication_us"] for s in sections]
    assert slowest["own_us"] == pytest.approx(own[0]) and abs(own[0] - own[1]) < 0.05 * own[1]


def test_ranks_are_compared_over_the_steps_they_all_have() -> None:
    """A rank timed on one step is compared with the others on that step only."""

    def section(rank: int, steps: dict[str, float]) -> dict[str, Any]:
        rows = [{"step": k, "step_us": v, "communication_us": 10.0} for k, v in steps.items()]
        return {"rank": rank, "steps": rows, "average_steps": list(steps),
                "average": {"step_us": float(np.mean(list(steps.values())))}}  # fmt: skip

    sections = [
        section(0, {"1": 100.0, "2": 100.0, "3": 100.0}),
        section(1, {"1": 100.0, "2": 100.0, "3": 100.0}),
        section(2, {"2": 150.0}),  # its hccl rows cover one step
    ]
    slowest = cluster_summary(sections)["slowest"]
    assert slowest["steps_compared"] == ["2"] and slowest["rank"] == 2 and slowest["slow"]
    sections[2] = section(2, {"2": 102.0})
    assert not cluster_summary(sections)["slowest"]["slow"]  # 2 % is noise


def test_average_covers_the_report_steps_and_says_which() -> None:
    """Given the report's steps, the average is over the report's averaged steps that the
    data times, and `covered` says which are left out and why: MindSpore's profiler
    fixtures' rank 1 times all ten steps with kernels (the tool's own rule would average all
    ten, step 1's compilation included); cluster_propose's rank 2 times only steps 1-2."""
    trace = read_trace(shared("mindspore_legacy/profiler_fixtures"), "mindspore_legacy", "rank1")
    steps = find_steps(trace)
    first = averaged_from(trace, len(steps))
    assert first == 1 and len(steps) == 10
    assert len(_section(trace)["average_steps"]) == 10  # without the report's steps: all
    section = communication_section(trace, steps.names, first)
    assert section is not None and section["average_steps"] == steps.names[1:]
    durations = steps.duration_ns[1:] / 1e3
    assert section["average"]["step_us"] == pytest.approx(durations.mean())
    assert section["covered"] == {
        "count": 9, "first": "2", "last": "10", "left_out": ["1"], "compile": ["1"],
    }  # fmt: skip
    trace = _ms_rank(2)
    steps = find_steps(trace)
    section = communication_section(trace, steps.names, averaged_from(trace, len(steps)))
    assert section is not None and section["average_steps"] == ["2"]
    assert section["covered"]["left_out"] == ["1", "3", "4", "5"]
    assert section["covered"]["compile"] == ["1"]
