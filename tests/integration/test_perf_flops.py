"""The work model against PyTorch itself, and on the real traces.

1. A small model (convolution, linear layers, LayerNorm, nn.MultiheadAttention with a float
   mask, F.scaled_dot_product_attention, a 3-D @ 2-D matmul, softmax) is trained a few
   steps on the CPU under `torch.profiler` with `record_shapes`; the exported trace is read
   back through `read_trace` and its FLOPs compared with `torch.utils.flop_counter.
   FlopCounterMode` over one step of the same model and inputs: per aten operator and
   per step, within 1 %. (FlopCounterMode has no formula for the CPU attention op
   `_scaled_dot_product_flash_attention_for_cpu`; it is given torch's own `sdpa_flop_count`
   for it, so that the comparison covers attention too.)
2. On the shared real traces, every GEMM and convolution call that has shapes gets FLOPs.
"""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.perf.calls import MATRIX_CATEGORIES, Work
from mindinsight_profiler.analysis.perf.op_work import COUNTED, UNKNOWN, op_work, work_table
from mindinsight_profiler.analysis.perf.ops_conv import BACKWARD_ARGS, FORWARD_ARGS
from mindinsight_profiler.analysis.perf.ops_gemm import GEMM_OPS
from mindinsight_profiler.analysis.perf.work_summary import summarise
from mindinsight_profiler.formats.detect import read_trace
from tests.conftest import shared

ACTIVE_STEPS = 3


def _model_and_step():  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.up = nn.Linear(8, 32)
            self.norm = nn.LayerNorm(32)
            self.mha = nn.MultiheadAttention(32, 4, batch_first=True)
            self.qkv = nn.Linear(32, 96)
            self.head = nn.Parameter(torch.randn(32, 10) * 0.1)

        def forward(self, image, mask):  # type: ignore[no-untyped-def]
            x = self.conv(image).flatten(2).transpose(1, 2)  # [B, 64, 8]
            x = self.norm(self.up(x))  # [B, 64, 32]
            x = x + self.mha(x, x, x, attn_mask=mask)[0]
            q, k, v = self.qkv(x).view(x.shape[0], -1, 3, 4, 8).permute(2, 0, 3, 1, 4)
            x = x + F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2)
            return (x @ self.head).softmax(-1).square().sum()

    torch.manual_seed(0)
    model = Net()
    image = torch.randn(4, 3, 16, 16)
    mask = torch.zeros(64, 64)

    def step() -> None:
        model.zero_grad()
        model(image, mask).backward()

    return torch, step


@pytest.fixture(scope="module")
def profiled(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    torch, step = _model_and_step()
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.flop_counter import FlopCounterMode, sdpa_backward_flop_count, sdpa_flop_count

    aten = torch.ops.aten
    custom = {
        aten._scaled_dot_product_flash_attention_for_cpu: (
            lambda q, k, v, *a, out_shape=None, **kw: sdpa_flop_count(q, k, v)
        ),
        aten._scaled_dot_product_flash_attention_for_cpu_backward: (
            lambda g, q, k, v, *a, out_shape=None, **kw: sdpa_backward_flop_count(g, q, k, v)
        ),
    }
    with FlopCounterMode(display=False, custom_mapping=custom) as counter:
        step()
    reference = {
        str(op).replace("aten.", "aten::"): n
        for op, n in counter.get_flop_counts()["Global"].items()
    }
    path = tmp_path_factory.mktemp("perf") / "small.pt.trace.json"
    with profile(
        activities=[ProfilerActivity.CPU],
        record_shapes=True,
        schedule=schedule(wait=1, warmup=1, active=ACTIVE_STEPS),
    ) as prof:
        for _ in range(2 + ACTIVE_STEPS):
            step()
            prof.step()
    prof.export_chrome_trace(str(path))
    trace = read_trace(path)
    return trace, reference


def test_flops_per_aten_operator_match_flop_counter_mode(profiled) -> None:  # type: ignore[no-untyped-def]
    trace, reference = profiled
    table = work_table(trace, op_work(trace))
    mine: dict[str, int] = {}
    for name, flops in zip(table["name"], table["flops"], strict=True):
        if flops >= 0:
            mine[name] = mine.get(name, 0) + flops
    # what the comparison covers: convolution (+ its backward), addmm, mm, bmm, baddbmm,
    # and the CPU attention op and its backward
    attention = "aten::_scaled_dot_product_flash_attention_for_cpu"
    covered = {"aten::convolution", "aten::convolution_backward", "aten::addmm", "aten::mm"}
    covered |= {"aten::bmm", "aten::baddbmm", attention, f"{attention}_backward"}
    assert covered <= set(reference)
    print("\naten op: FlopCounterMode per step, this model per step")
    for name, expected in sorted(reference.items()):
        got = mine.get(name, 0) / ACTIVE_STEPS
        print(f"  {name}: {expected} {got:.0f}")
        assert got == pytest.approx(expected, rel=0.01), name


def test_flops_per_step_match_flop_counter_mode(profiled) -> None:  # type: ignore[no-untyped-def]
    trace, reference = profiled
    work = op_work(trace)
    summary = summarise(trace, work)
    expected = sum(reference.values())
    assert len(summary.steps) == ACTIVE_STEPS
    for step in summary.steps:
        print(f"step {step.name}: {step.matrix_flops} matrix FLOPs, FlopCounterMode {expected}")
        assert step.matrix_flops == pytest.approx(expected, rel=0.01)
        assert step.flops > step.matrix_flops  # norms, softmax, element-wise ops on top
        assert step.unknown_calls == 0
    # nesting: linear is counted, the addmm it calls is inside it; never both
    table = work_table(trace, work)
    status = dict(zip(table["event"], table["status"], strict=True))
    parents = trace.events["parent"]
    for event, name, st in zip(table["event"], table["name"], table["status"], strict=True):
        if name == "aten::addmm" and st != "counted":
            assert trace.strings[trace.events["name"][parents[event]]] == "aten::linear"
            assert status[int(parents[event])] == "counted"
    assert summary.host_share is not None and summary.host_share > 0.5


def test_gemm_and_conv_work_of_real_traces() -> None:
    """Every GEMM and convolution call with shapes gets FLOPs; coverage printed per input."""
    checked = 0
    gemm_conv = set(GEMM_OPS) | set(FORWARD_ARGS) | set(BACKWARD_ARGS)
    gemm_conv |= {
        "aten::cudnn_convolution_backward_input",
        "aten::cudnn_convolution_backward_weight",
    }
    inputs = [
        "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
        "hta/trace_diff/control/control.json.gz",
        "hta/trace_diff/test/test.json.gz",
        "hta/rank_non_gpu/rank_non_gpu.json.gz",
        "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
        "hta/call_stack/backward_thread.json",
    ]
    for relative in inputs:
        trace = read_trace(shared(relative))
        work = op_work(trace)
        table = work_table(trace, work)
        summary = summarise(trace, work)
        has_shapes = trace.events["input_dims"][work.event] >= 0
        for name, flops, st, reason, shaped in zip(
            table["name"], table["flops"], table["status"], table["reason"], has_shapes,
            strict=True,
        ):  # fmt: skip
            if name in gemm_conv and shaped:
                checked += 1
                assert flops >= 0, (relative, name, st, reason)
        share = summary.device_share
        print(f"{relative}: device time covered {share if share is None else f'{share:.1%}'}")
    assert checked > 1000


def test_inconsistent_shapes_are_unknown_with_the_reason() -> None:
    """HTA's sampled traces carry Input Dims that do not fit the operator (a matmul with 14
    inputs): those calls are unknown, saying why, and the rest are counted."""
    trace = read_trace(shared("hta/trace_filter/sampled_rank-0.json.gz"))
    work = op_work(trace)
    table = work_table(trace, work)
    bad = [
        r for n, st, r in zip(table["name"], table["status"], table["reason"], strict=True)
        if n in GEMM_OPS and st == "unknown"
    ]  # fmt: skip
    assert bad and all("fit" in r or "differ" in r for r in bad)
    counted = np.flatnonzero(work.status == COUNTED)
    assert len(counted) > 100 and (work.status == UNKNOWN).sum() < len(work)


def test_resnet50_step_flops_are_three_forward_passes() -> None:
    """ResNet-50 on 224 x 224 images is 4.1 G multiply-adds a forward pass (the torchvision
    figure): a training step of batch 32 is about 3 x 2 x 4.1 G x 32 = 787 GFLOP, less the
    first convolution's input gradient, which is not computed."""
    trace = read_trace(
        shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    )
    summary = summarise(trace, op_work(trace))
    for step in summary.steps:
        assert step.matrix_flops == pytest.approx(787e9, rel=0.02)
        assert step.flops_by_category["conv"] > 0.99 * step.matrix_flops
    assert summary.device_share is not None and summary.device_share > 0.99


def test_known_work_is_work_of_its_result() -> None:
    trace = read_trace(shared("hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))
    work = op_work(trace)
    for k, r in enumerate(work.results):
        rows = np.flatnonzero(work.result == k)
        if isinstance(r, Work) and len(rows):
            assert (work.flops()[rows] == r.flops).all()
    assert any(isinstance(r, Work) and r.category in MATRIX_CATEGORIES for r in work.results)


def test_section_steps_match_flop_counter_mode(profiled) -> None:  # type: ignore[no-untyped-def]
    """The report's `perf_model` steps carry the same FLOPs; on this CPU trace no device is
    known, so MFU is null with the reason, and naming one gives the MFU computed here."""
    from mindinsight_profiler.analysis.perf.devices import spec_by_name
    from mindinsight_profiler.analysis.perf.section import perf_model_section
    from mindinsight_profiler.analysis.steps.boundaries import find_steps

    trace, reference = profiled
    steps = find_steps(trace)
    section = perf_model_section(trace, steps, 0)
    assert section is not None
    expected = sum(reference.values())
    assert section["totals"]["time_base"] == "host"
    assert section["unavailable"] is not None and "host" in section["unavailable"]
    for step in section["steps"]:
        assert step["hardware_gflops"] * 1e9 == pytest.approx(expected, rel=0.01)
        assert step["model_gflops"] == step["hardware_gflops"]  # no checkpointing here
        assert step["mfu"] is None
    spec = spec_by_name("V100 SXM2 16GB")  # fp32 work at the 15.7 TFLOPS FP32 peak
    named = perf_model_section(trace, steps, 0, spec)
    assert named is not None
    for step, duration_ns in zip(named["steps"], steps.duration_ns.tolist(), strict=True):
        mfu = step["model_gflops"] * 1e9 / 15.7e12 / (duration_ns / 1e9)
        assert step["mfu"] == pytest.approx(mfu, rel=1e-6)
