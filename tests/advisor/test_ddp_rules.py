"""accum_without_no_sync on real two-rank DDP runs (gloo, CPU) that accumulate gradients."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_accumulation_outside_no_sync_fires(planted_ranks_accum: Path, advisor_ws: Path) -> None:
    """2 micro-batches per optimizer step, each backward all-reducing: 2 bursts per step."""
    advice = advise_path(planted_ranks_accum / "sync", advisor_ws, worker="rank0")
    f = fires(advice, "accum_without_no_sync")
    assert f.facts["ddp.micro_batches_per_optimizer_step"] == 2
    assert f.facts["ddp.allreduce_bursts_per_optimizer_step"] == 2
    # no_sync() would keep one of the two bursts: half the transfer, at most what is exposed
    half = f.facts["comm.transfer_us"] / 2
    assert 0 < f.estimated_saving_us <= min(half, f.facts["comm.exposed_us"]) + 0.01
    ranges = [e for e in f.evidence if e.kind == "time_range"]
    assert ranges and all(e.end_ns > e.start_ns for e in ranges)
    assert any("no_sync" in a.en for a in f.actions)


def test_accumulation_inside_no_sync_does_not_fire(
    planted_ranks_accum: Path, advisor_ws: Path
) -> None:
    advice = advise_path(planted_ranks_accum / "no_sync", advisor_ws, worker="rank0")
    does_not_fire(advice, "accum_without_no_sync")
    (checked,) = [c for c in advice.checked if c.id == "accum_without_no_sync"]
    assert checked.facts["ddp.micro_batches_per_optimizer_step"] == 2
    assert checked.facts["ddp.allreduce_bursts_per_optimizer_step"] == 1


def test_one_micro_batch_per_step_on_nccl_does_not_fire(advisor_ws: Path) -> None:
    # HTA's DDP ResNet (NCCL): 6 DistributedDataParallel.forward, 6 optimizer steps.
    advice = advise_path(shared("hta/nccl_parser_config"), advisor_ws)
    does_not_fire(advice, "accum_without_no_sync")
