"""op_work over hand-written traces: which calls are counted when operators nest, steps,
device coverage, and convolution backward calls completed from the calls they make."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.perf.op_work import op_work, work_table
from mindinsight_profiler.analysis.perf.work_summary import summarise
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.model.trace import Trace
from tests.tracegen import kernel, op, runtime, write_trace


def aten(name: str, ts: float, dur: float, dims: list, types: list, concrete: list | None = None,
         tid: int = 1) -> dict:  # fmt: skip
    args: dict[str, Any] = {"Input Dims": dims, "Input type": types}
    if concrete is not None:
        args["Concrete Inputs"] = concrete
    return op(name, ts, dur, tid=tid, **args)


F = "float"


def _trace(tmp_path: Path, events: list[dict]) -> Trace:
    return read_trace(write_trace(tmp_path / "w.pt.trace.json", events))


def _step(tmp_path: Path) -> Trace:
    """One step: linear (t + addmm, whose kernel runs 40 us), an unknown op that launches its
    own kernel (20 us) and calls an mm, and an autograd node calling an mm."""
    mm = ([[4, 8], [8, 2]], [F, F])
    return _trace(tmp_path, [
        op("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        aten("aten::linear", 10, 100, [[4, 8], [2, 8], [2]], [F, F, F]),
        aten("aten::t", 12, 5, [[2, 8]], [F]),
        aten("aten::transpose", 13, 2, [[2, 8], [], []], [F, "Scalar", "Scalar"]),
        aten("aten::addmm", 20, 80, [[2], [4, 8], [8, 2], [], []], [F, F, F, "Scalar", "Scalar"]),
        runtime("cudaLaunchKernel", 30, 5, corr=1),
        kernel("gemm_kernel", 40, 40, corr=1),
        aten("fbgemm::custom", 200, 100, [[4, 8]], [F]),
        runtime("cudaLaunchKernel", 210, 5, corr=2),
        kernel("custom_kernel", 220, 20, corr=2),
        aten("aten::mm", 250, 20, *mm),
        op("AddmmBackward0", 400, 100),
        aten("aten::mm", 410, 20, *mm),
        aten("aten::view", 600, 5, [[4, 8], []], [F, "ScalarList"]),
    ])  # fmt: skip


def test_the_outermost_modelled_call_is_counted_once(tmp_path: Path) -> None:
    trace = _step(tmp_path)
    table = work_table(trace, op_work(trace))
    status = {
        (n, e): s for n, e, s in zip(table["name"], table["event"], table["status"], strict=True)
    }
    by_name: dict[str, list[str]] = {}
    for (name, _), st in sorted(status.items(), key=lambda kv: kv[0][1]):
        by_name.setdefault(name, []).append(st)
    assert by_name["aten::linear"] == ["counted"]
    assert by_name["aten::addmm"] == ["inside"]  # its work is the linear's
    assert by_name["aten::t"] == by_name["aten::transpose"] == ["inside"]
    assert by_name["aten::mm"] == ["counted", "counted"]  # an unknown op or a node hides nothing
    assert by_name["fbgemm::custom"] == ["unknown"]
    assert by_name["AddmmBackward0"] == by_name["aten::view"] == ["no_work"]
    flops = dict(zip(table["name"], table["flops"], strict=False))
    assert flops["aten::linear"] == flops["aten::addmm"] == 2 * 4 * 2 * 8  # both known...

    summary = summarise(trace, op_work(trace))
    (step,) = summary.steps
    # ...but the step counts linear once and the two mm's: 3 x 128, all matrix work
    assert (step.flops, step.matrix_flops, step.counted_calls, step.unknown_calls) == (
        384,
        384,
        3,
        1,
    )
    assert step.flops_by_category == {"gemm": 384}
    assert summary.counted == {"aten::mm": 2, "aten::linear": 1}
    assert summary.unknown["fbgemm::custom"].calls == 1
    assert "no formula" in summary.unknown["fbgemm::custom"].reason
    # the gemm kernel (40 us) is under a counted call, the custom kernel (20 us) is not
    assert (summary.device_ns, summary.covered_device_ns) == (60_000, 40_000)
    assert summary.device_share == pytest.approx(2 / 3)
    assert summary.uncovered_device_ns == {"fbgemm::custom": 20_000}


def test_counting_the_innermost_instead_would_differ(tmp_path: Path) -> None:
    """The mutation the rule guards against: counting every known call double counts."""
    trace = _step(tmp_path)
    work = op_work(trace)
    every_known = int(work.flops()[work.flops() > 0].sum())
    assert every_known == 4 * 128  # linear and its addmm both
    assert summarise(trace, work).steps[0].flops == 3 * 128


@pytest.mark.parametrize(("children", "gradients"), [
    (["aten::cudnn_convolution_backward_input", "aten::cudnn_convolution_backward_weight"], 2),
    (["aten::cudnn_convolution_backward_weight"], 1),
])  # fmt: skip
def test_old_conv_backward_takes_its_mask_from_its_calls(
    tmp_path: Path, children: list[str], gradients: int
) -> None:
    """A 2021 trace records no output_mask (and no strides); the gradient calls show which
    gradients were computed, and the forward is completed from the backward's shapes."""
    x, w, y = [2, 3, 8, 8], [4, 3, 3, 3], [2, 4, 4, 4]
    lists = ["GenericList"] * 3
    flags = ["Int", "Bool", "Bool", "Bool"]  # groups, benchmark, deterministic, allow_tf32
    scalars: list[list[int]] = [[]] * 7
    events = [
        aten("aten::cudnn_convolution", 0, 50, [x, w, *scalars], [F, F, *lists, *flags]),
        aten("aten::cudnn_convolution_backward", 100, 100, [x, y, w, *scalars, []],
             [F, F, F, *lists, *flags, "GenericList"]),
    ]  # fmt: skip
    for k, name in enumerate(children):
        # (self_size or weight_size: a list the 2021 trace leaves empty, grad_output, w or x)
        dims = [[], y, w if name.endswith("input") else x, *scalars]
        types = ["GenericList", F, F, *lists, *flags]
        events.append(aten(name, 110 + 40 * k, 30, dims, types))
    trace = _trace(tmp_path, events)
    table = work_table(trace, op_work(trace))
    rows = dict(
        zip(
            table["name"],
            zip(table["flops"], table["status"], table["reason"], strict=True),
            strict=False,
        )
    )
    per = 2 * 2 * 16 * 108  # 2 N prod(out spatial) numel(w)
    assert rows["aten::cudnn_convolution"][:2] == (per, "counted")
    assert "backward" in rows["aten::cudnn_convolution"][2]
    assert rows["aten::cudnn_convolution_backward"][:2] == (gradients * per, "counted")
    for name in children:
        assert rows[name][1] == "inside"


def test_a_trace_without_operators_or_shapes(tmp_path: Path) -> None:
    trace = _trace(tmp_path, [op("aten::mm", 0, 10), kernel("k", 1, 5, corr=9)])
    work = op_work(trace)
    summary = summarise(trace, work)
    assert summary.unknown["aten::mm"].reason == "input shapes not recorded (record_shapes off)"
    assert summary.covered_device_ns == 0 and summary.uncovered_device_ns == {"(no operator)": 5000}
    assert summary.steps[0].flops == 0


@pytest.mark.parametrize(("made", "gradients"), [
    (["kernel:sm80_xmma_dgrad_implicit_gemm", "kernel:sm80_xmma_wgrad_implicit_gemm"], 2),
    (["kernel:cudnn::detail::wgrad_alg0_engine"], 1),
    (["op:Conv2DBackpropFilter", "op:Conv2DBackpropInput"], 2),  # torch_npu's CANN ops
    (["kernel:some_other_kernel"], 0),  # nothing says: unknown
])  # fmt: skip
def test_conv_backward_mask_from_the_kernels_or_ops_it_makes(
    tmp_path: Path, made: list[str], gradients: int
) -> None:
    """convolution_backward without Concrete Inputs (torch_npu records none): cuDNN's dgrad
    and wgrad kernels, or Ascend's BackpropInput/Filter ops, say which gradients it made;
    the transposed flag is read from the shapes (output no larger than input: not)."""
    x, w, y = [2, 3, 8, 8], [4, 3, 3, 3], [2, 4, 4, 4]
    types = [F, F, F, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar",
             "ScalarList", "Scalar", "ScalarList"]  # fmt: skip
    events = [aten("aten::convolution_backward", 0, 100, [y, x, w, *[[]] * 8], types)]
    for k, what in enumerate(made):
        kind, name = what.split(":", 1)
        if kind == "op":
            events.append(aten(name, 10 + 20 * k, 10, [], []))
        else:
            events += [runtime("cudaLaunchKernel", 10 + 20 * k, 5, corr=k + 1),
                       kernel(name, 200 + 20 * k, 10, corr=k + 1)]  # fmt: skip
    trace = _trace(tmp_path, events)
    work = op_work(trace)
    table = work_table(trace, work)
    (row,) = [i for i, n in enumerate(table["name"]) if n == "aten::convolution_backward"]
    per = 2 * 2 * 16 * 108
    if gradients:
        assert (table["flops"][row], table["status"][row]) == (gradients * per, "counted")
        assert "shapes" in table["reason"][row]  # the transposed flag was read from them
    else:
        assert table["status"][row] == "unknown" and "output_mask" in table["reason"][row]


def test_gradient_calls_take_a_missing_size_from_their_parent(tmp_path: Path) -> None:
    """Two 2021 convolutions map the same input to the same output shape with different
    weights (1x1 and 3x3, as in a ResNet bottleneck): the trace's shapes cannot say which
    weight a `_backward_weight` call without its size had; its enclosing backward can."""
    x, y = [2, 3, 8, 8], [2, 4, 4, 4]
    lists, flags = ["GenericList"] * 3, ["Int", "Bool", "Bool", "Bool"]
    scalars: list[list[int]] = [[]] * 7
    events = []
    for k, w in enumerate(([4, 3, 3, 3], [4, 3, 1, 1])):
        t = 1000 * k
        events += [
            aten("aten::cudnn_convolution_backward", t, 100, [x, y, w, *scalars, []],
                 [F, F, F, *lists, *flags, "GenericList"]),
            aten("aten::cudnn_convolution_backward_weight", t + 10, 30, [[], y, x, *scalars],
                 ["GenericList", F, F, *lists, *flags]),
        ]  # fmt: skip
    trace = _trace(tmp_path, events)
    table = work_table(trace, op_work(trace))
    grads = [
        (f, s) for n, f, s in zip(table["name"], table["flops"], table["status"], strict=True)
        if n == "aten::cudnn_convolution_backward_weight"
    ]  # fmt: skip
    assert grads == [(2 * 2 * 16 * 108, "inside"), (2 * 2 * 16 * 12, "inside")]
    backward = [
        f for n, f in zip(table["name"], table["flops"], strict=True) if n.endswith("backward")
    ]
    assert backward == [2 * 2 * 16 * 108, 2 * 2 * 16 * 12]  # grad_weight only: its one child
