"""comm_small_messages: collectives that move many small messages, on real gloo DDP runs."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.advisor.facts.comm_messages import (
    SMALL_BYTES,
    kernel_message_bytes,
    message_bytes,
)
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_message_bytes_from_the_recorded_tensor() -> None:
    assert message_bytes("[[99204]]", '["float"]') == 396_816  # the planted model's gradients
    assert message_bytes("[[2, 3], []]", '["c10::BFloat16", "Scalar"]') == 12
    assert message_bytes("[[]]", '["float"]') == 4  # a 0-d tensor: one element
    assert message_bytes("", "") is None  # no record_shapes
    assert message_bytes("[[4]]", '["TensorList"]') is None  # dtype unknown: not guessed
    assert message_bytes("[[-1]]", '["float"]') is None


def test_small_ddp_buckets_fire(planted_ranks_small_buckets: Path, advisor_ws: Path) -> None:
    """bucket_cap_mb=0.01: the 397 KB of gradients go out as 9 all-reduces per step of
    17-128 KB each; merging them is the saving (their transfer time less one call's)."""
    advice = advise_path(planted_ranks_small_buckets, advisor_ws, worker="rank0")
    f = fires(advice, "comm_small_messages")
    assert f.facts["comm.small_calls_per_step"] == 9
    assert f.facts["comm.small_message_share"] == 1.0
    assert 0 < f.estimated_saving_us <= f.facts["comm.exposed_us"] + 0.01  # rounded
    sizes = [e.value for e in f.evidence if e.kind == "metric"]
    assert sizes and max(sizes) < SMALL_BYTES and min(sizes) > 10_000
    assert any("bucket_cap_mb" in a.en for a in f.actions)


def test_one_bucket_per_step_does_not_fire(planted_ranks: Path, advisor_ws: Path) -> None:
    """DDP's default 25 MB bucket holds the whole 397 KB: one all-reduce per step is small
    but there is nothing to merge."""
    advice = advise_path(planted_ranks, advisor_ws, worker="rank0")
    does_not_fire(advice, "comm_small_messages")
    (checked,) = [c for c in advice.checked if c.id == "comm_small_messages"]
    assert checked.facts["comm.small_calls_per_step"] == 1


def test_nccl_buckets_of_megabytes_do_not_fire(advisor_ws: Path) -> None:
    """HTA's DDP ResNet on NCCL: 5 all-reduces per step of 2.0-7.9 M floats (8-31 MB, the
    kernels' In msg nelems); 2 small broadcasts per step (53 elements) hold 0.2 % of it."""
    advice = advise_path(shared("hta/nccl_parser_config"), advisor_ws)
    does_not_fire(advice, "comm_small_messages")
    (checked,) = [c for c in advice.checked if c.id == "comm_small_messages"]
    assert checked.facts["comm.small_calls_per_step"] == 2
    assert checked.facts["comm.small_message_share"] < 0.01


def test_nccl_kernels_without_message_args_are_not_evaluated(advisor_ws: Path) -> None:
    # HTA's trace_diff (2022): NCCL kernels carry no In msg nelems.
    advice = advise_path(shared("hta/trace_diff/test"), advisor_ws)
    (n,) = [n for n in advice.not_evaluated if n.id == "comm_small_messages"]
    assert "In msg nelems" in n.reason


def test_kernel_message_bytes() -> None:
    assert kernel_message_bytes('[2049000,"Float",2]') == 8_196_000
    assert kernel_message_bytes('[53,"Long",2]') == 424
    assert kernel_message_bytes('[10,"Unknown",2]') is None
    assert kernel_message_bytes("") is None
