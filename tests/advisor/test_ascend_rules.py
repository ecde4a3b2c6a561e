"""Ascend rules on the torch_npu exports (text and db) and on copies with planted problems.

The level1 job is an 8-rank AlexNet DDP run of which ranks 0-1 are profiled; its label in
tests/advisor/expert/labels/npu.toml gives the figures. Copies change one file of rank 0
(the environment, a renamed ACL call, HCCL packet sizes) to make a rule fire or not.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

L1 = "ascend_pytorch/level1"
DB = "ascend_pytorch_db/level1"
_OUT = "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"


@pytest.fixture
def rank0_copy(tmp_path: Path) -> Path:
    """A run folder holding a private copy of the level1 export's rank 0."""
    run = tmp_path / "level1"
    shutil.copytree(shared(L1) / "rank0_ascend_pt", run / "rank0_ascend_pt")
    return run


def _comm_json(run: Path) -> tuple[Path, dict]:
    path = run / _OUT / "communication.json"
    return path, json.loads(path.read_text())


def test_acl_syncs_under_item_are_blocking_calls(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    f = fires(advice, "blocking_sync")
    # 7 aclrtSynchronizeStreamWithTimeout and 5 synchronous aclrtMemcpy in step 50, made
    # from aten::to (the image copy, 6.1 ms) and aten::item (display(), 91.7 ms); the
    # profiler's own aclrtSynchronizeDevice at the end has no operator and is left out.
    assert f.facts["sync.blocking_calls"] == 12.0
    assert 98_000 < f.facts["sync.blocking_us"] < 98_300
    labels = " | ".join(e.label for e in f.evidence if e.kind == "operator")
    assert (
        "AscendCL@aclrtSynchronizeStreamWithTimeout from aten::_local_scalar_dense in aten::item"
        in labels
    )
    assert not any("cuda" in a.en.lower() for a in f.actions)


def test_acl_syncs_are_read_from_the_db_export_too(advisor_ws: Path) -> None:
    f = fires(advise_path(shared(DB), advisor_ws, worker="rank0"), "blocking_sync")
    assert f.facts["sync.blocking_calls"] == 12.0
    assert 87_000 < f.facts["sync.blocking_us"] < 88_000  # 83.0 ms in .item(), 4.4 ms copy


def test_level0_export_cannot_tell_syncs(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level0"), advisor_ws, worker="rank0")
    (n,) = [n for n in advice.not_evaluated if n.id == "blocking_sync"]
    assert "no AscendCL API calls" in n.reason


def test_collective_wait_reads_the_profilers_wait_and_idle(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    f = fires(advice, "collective_wait")
    # communication.json Total Op Info: Wait 5.94061871875 + Idle 96.36790549999999 ms
    assert f.facts["comm.wait_us"] == pytest.approx(5_940.61871875 + 96_367.9055, abs=0.01)
    assert f.severity == "high"
    names = [e.name for e in f.evidence if e.kind == "operator"]
    assert names[0] == "hcom_allReduce__586_0_1"  # 78.9 ms of its 79.1 ms not transferring


def test_waiting_is_not_advised_as_overlap(advisor_ws: Path) -> None:
    """102 ms per step are exposed, but 96 % of the HCCL time is waiting for rank 5: the
    transfer part (about 3.5 ms, 2.3 %) is under the 10 % that overlap advice needs."""
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "exposed_communication")
    (c,) = [c for c in advice.checked if c.id == "exposed_communication"]
    assert c.facts["comm.exposed_share"] > 0.6
    assert 3_000 < c.facts["comm.exposed_transfer_us"] < 4_000


def test_optimizer_rules_run_on_torch_npu(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "unfused_optimizer")  # SGD(foreach): 4 _foreach_ calls per step
    does_not_fire(advice, "zero_grad_memset")  # set_to_none: no zero_/fill_
    (c,) = [c for c in advice.checked if c.id == "unfused_optimizer"]
    assert c.facts["optimizer.multi_tensor_ops"] == 4.0 and c.facts["optimizer.name"] == "SGD"
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "Cube" in reasons["tensor_cores_unused"]
    assert "GPU notion" in reasons["low_achieved_occupancy"]
    # not "rank 0 has no flops_summary_0.json": torch_npu never writes MindSpore's files
    assert "only MindSpore runs write" in reasons["slow_rank_flops"]
    assert "only MindSpore runs write" in reasons["parallel_comm_share"]


def test_online_op_compile_fires_on_the_acl_op_path(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    f = fires(advice, "online_op_compile")
    # 19 AscendCL@aclopCompileAndExecute calls (Conv2D, MatMulV2...), 1.2-1.8 ms each;
    # opCompile inside them only 0.37 ms: the cost is the path, not compilation
    assert f.facts["npu.aclop_calls"] == 19.0
    assert 14_000 < f.facts["npu.aclop_us"] < 14_100
    assert f.facts["npu.op_compile_us"] < 400
    assert any("jit_compile=False" in a.en for a in f.actions)
    db = advise_path(shared(DB), advisor_ws, worker="rank0")
    assert fires(db, "online_op_compile").facts["npu.aclop_calls"] == 19.0


def test_online_op_compile_is_quiet_without_acl_op_calls(
    rank0_copy: Path, advisor_ws: Path
) -> None:
    trace = rank0_copy / _OUT / "trace_view.json"
    text = trace.read_text()
    assert text.count("AscendCL@aclopCompileAndExecute") >= 19
    trace.write_text(text.replace("AscendCL@aclopCompileAndExecute", "AscendCL@aclopExecute"))
    advice = advise_path(rank0_copy, advisor_ws, worker="rank0")
    does_not_fire(advice, "online_op_compile")


def test_env_vars_unset_are_not_a_finding(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "ascend_env_vars")
    (c,) = [c for c in advice.checked if c.id == "ascend_env_vars"]
    assert c.facts["npu.env_unset_tuning"] == (
        "ACLNN_CACHE_LIMIT, HOST_CACHE_CAPACITY, PYTORCH_NPU_ALLOC_CONF"
    )


def test_launch_blocking_is_reported(rank0_copy: Path, advisor_ws: Path) -> None:
    meta = rank0_copy / "rank0_ascend_pt/profiler_metadata.json"
    doc = json.loads(meta.read_text())
    doc["ENV_VARIABLES"]["ASCEND_LAUNCH_BLOCKING"] = "1"
    meta.write_text(json.dumps(doc))
    f = fires(advise_path(rank0_copy, advisor_ws, worker="rank0"), "ascend_env_vars")
    assert f.facts["npu.env_harmful_names"] == "ASCEND_LAUNCH_BLOCKING=1"
    assert f.severity == "high"


def test_byte_alignment_is_graded_by_transfer_time(advisor_ws: Path, rank0_copy: Path) -> None:
    # 1,937,312 B and 1,162,496 B packets are not multiples of 512: 0.40 ms of 27.3 ms
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "hccl_byte_alignment")
    (c,) = [c for c in advice.checked if c.id == "hccl_byte_alignment"]
    assert c.facts["comm.unaligned_packets"] == 4.0
    assert c.facts["comm.unaligned_transit_share"] == pytest.approx(0.3969 / 27.3157, abs=1e-3)
    # the copy makes the 18,890,752 B packets (13.07 ms) one byte longer
    path, doc = _comm_json(rank0_copy)
    for op in doc["step50"]["collective"].values():
        sizes = op["Communication Bandwidth Info"]["HCCS"]["Size Distribution"]
        if "18.890752" in sizes:
            sizes["18.890753"] = sizes.pop("18.890752")
    path.write_text(json.dumps(doc))
    f = fires(advise_path(rank0_copy, advisor_ws, worker="rank0"), "hccl_byte_alignment")
    assert f.facts["comm.unaligned_transit_share"] == pytest.approx(
        (0.3969 + 13.0692) / 27.3157, abs=1e-3
    )
    assert f.severity == "medium"


def test_small_packets_fire_only_when_they_are_slow(advisor_ws: Path, rank0_copy: Path) -> None:
    # 75 % of the packets are below 16 MB, but move at 12.9-15.8 GB/s against 17.3 GB/s
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "hccl_small_packets")
    (c,) = [c for c in advice.checked if c.id == "hccl_small_packets"]
    assert c.facts["comm.small_packet_share"] == 0.75
    assert c.facts["comm.small_packet_loss_share"] < 0.005
    # the copy slows the 8.4 MB packets of bucket 1 twentyfold (7.85 -> 157 ms on the links,
    # 1.23 -> 20 ms of transit): they now lose most of their time
    path, doc = _comm_json(rank0_copy)
    op = doc["step50"]["collective"]["hcom_allReduce__586_1_1@17522688603477080586"]
    op["Communication Bandwidth Info"]["HCCS"]["Size Distribution"]["8.404992"][1] = 157.0
    op["Communication Time Info"]["Transit Time(ms)"] = 20.0
    path.write_text(json.dumps(doc))
    f = fires(advise_path(rank0_copy, advisor_ws, worker="rank0"), "hccl_small_packets")
    assert f.facts["comm.small_packet_loss_share"] > 0.05


def test_mindspore_reduce_stages_after_backward_are_exposed(
    tmp_path: Path, advisor_ws: Path
) -> None:
    """MindSpore's step trace has no kernel timeline, but its all-reduce stages
    (`stream_10_parallel_*`): the part after the BP point is exposed communication."""
    src = shared("mindspore_legacy/profiler_fixtures")
    advice = advise_path(src, advisor_ws, worker="rank0")
    does_not_fire(advice, "exposed_communication")
    (c,) = [c for c in advice.checked if c.id == "exposed_communication"]
    # step 4: stream_10_parallel_2 runs 1.94 ms after bp_point of a 130.4 ms step
    assert 0.01 < c.facts["comm.exposed_share"] < 0.02
    run = tmp_path / "profiler_fixtures"
    shutil.copytree(src, run)
    path = run / "step_trace_raw_0_detail_time.csv"
    lines = path.read_text().splitlines()
    head = lines[0].split(",")
    end, late = head.index("end_point"), head.index("stream_10_parallel_2_end_point")
    for i, line in enumerate(lines[1:], 1):
        cells = line.split(",")
        if cells[late] not in ("", "0") and cells[0].isdigit():
            cells[late] = cells[end]  # the last all-reduce now ends with the step
        lines[i] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    f = fires(advise_path(run, advisor_ws, worker="rank0"), "exposed_communication")
    # step 4: from the stage start (5.2 ms after BP) to the step end, 17.8 of 130.4 ms
    assert 0.13 < f.facts["comm.exposed_share"] < 0.15


def test_single_core_matmuls_are_reported(advisor_ws: Path) -> None:
    # MindSpore AlexNet at batch 2 (framework_raw_1.csv): the MatMuls run with block dim 1,
    # 20.1 ms of AI Core time in the 23.7 ms step (fc6 alone 9.2 ms)
    f = fires(advise_path(shared("mindspore_legacy/run_2"), advisor_ws), "block_dim")
    assert 20_000 < f.facts["npu.single_core_matmul_us"] < 20_500
    assert f.severity == "high"
    assert f.evidence[0].name == "MatMul"


def test_multi_core_matmuls_are_fine(advisor_ws: Path) -> None:
    # torch_npu AlexNet at batch 32: no MatMul or convolution kernel has block dim 1
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "block_dim")


def test_aicore_clock_is_steady_on_the_real_run(advisor_ws: Path) -> None:
    # every AI Core kernel: cycles / (core time x block dim) = 1,800 MHz
    advice = advise_path(shared(DB), advisor_ws, worker="rank0")
    does_not_fire(advice, "aicore_freq_drop")
    (c,) = [c for c in advice.checked if c.id == "aicore_freq_drop"]
    assert c.facts["npu.aicore_freq_mhz"] == pytest.approx(1800, abs=1)
    assert c.facts["npu.aicore_freq_drop"] < 0.001


def test_aicore_clock_drop_fires(rank0_copy: Path, advisor_ws: Path) -> None:
    """The copy gives every other Cube kernel 70 % of its cycles (as at 1,260 MHz)."""
    path = rank0_copy / _OUT / "kernel_details.csv"
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    col = rows[0].index("aic_total_cycles")
    changed = 0
    for row in rows[1:]:
        cell = row[col].strip()
        if cell not in ("", "0", "N/A") and float(cell) > 0:
            changed += 1
            if changed % 2:
                row[col] = str(round(float(cell) * 0.7))
    with path.open("w", newline="") as f:
        csv.writer(f).writerows(rows)
    f_ = fires(advise_path(rank0_copy, advisor_ws, worker="rank0"), "aicore_freq_drop")
    assert 0.05 < f_.facts["npu.aicore_freq_drop"] < 0.3
    assert any(e.kind == "kernel" and e.value and e.value < 1300 for e in f_.evidence)


def test_pinned_memory_is_unknown_on_ascend(advisor_ws: Path) -> None:
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    (n,) = [n for n in advice.not_evaluated if n.id == "pageable_memcpy"]
    assert "pinned" in n.reason


def test_acl_allocator_calls_are_counted(rank0_copy: Path, advisor_ws: Path) -> None:
    """The copy renames the 7 stream syncs of step 50 (97.9 ms) to aclrtMalloc: the allocator
    rule counts ACL calls and names their operator on the calling thread."""
    advice = advise_path(shared(L1), advisor_ws, worker="rank0")
    does_not_fire(advice, "allocator_calls")
    trace = rank0_copy / _OUT / "trace_view.json"
    old = "AscendCL@aclrtSynchronizeStreamWithTimeout"
    trace.write_text(trace.read_text().replace(old, "AscendCL@aclrtMalloc"))
    f = fires(advise_path(rank0_copy, advisor_ws, worker="rank0"), "allocator_calls")
    assert f.facts["alloc.calls"] == 7
    assert 97_000 < f.facts["alloc.host_total_us"] < 98_500
    assert any(e.name == "aten::_local_scalar_dense" for e in f.evidence)
    assert not any("cuda" in t.lower() for t in (f.message.en, *(a.en for a in f.actions)))
