"""Formulas of the memory-bound operators, hand-computed: norms, softmax, element-wise,
reductions, copies, embeddings, pooling, optimizers; and the element types, the texts'
parsing and which calls do no work of their own."""

from __future__ import annotations

import pytest

from mindinsight_profiler.analysis.perf.calls import (
    NoWork,
    OpCall,
    Unknown,
    broadcast,
    call_from_texts,
    parse_shapes,
)
from mindinsight_profiler.analysis.perf.dtypes import element_type, from_scalar_type
from mindinsight_profiler.analysis.perf.flops import work_of
from tests.unit.test_perf_formulas import T, run, work

H = "c10::Half"


def test_layer_norm_and_its_native_form() -> None:
    # layer_norm(x [2,8], [8], w [8], b [8], eps, cudnn): (5 + 1 + 1) per element
    ln = work("aten::layer_norm", [2, 8], "[8]", [8], [8], 1e-5, True)
    assert (ln.flops, ln.bytes, ln.category) == (7 * 16, (16 + 8 + 8 + 16) * 4, "norm")
    native = work("aten::native_layer_norm", [2, 8], "[8]", [8], [8], 1e-5)
    assert native.bytes == ln.bytes + 2 * 2 * 4  # + saved mean and rstd, one pair per row
    bare = work("aten::layer_norm", [2, 8], "[8]", None, None, 1e-5, True)
    assert bare.flops == 5 * 16


def test_batch_norm_training_inference_and_unrecorded_flag() -> None:
    x = [2, 3, 4, 4]  # 96 elements, 3 channels
    # batch_norm(x, w, b, running_mean, running_var, training, momentum, eps, cudnn)
    train = work("aten::batch_norm", x, [3], [3], [3], [3], True, 0.1, 1e-5, True)
    assert train.flops == (5 + 2) * 96
    infer = work("aten::batch_norm", x, [3], [3], [3], [3], False, 0.1, 1e-5, True)
    assert infer.flops == (2 + 2) * 96
    guess = work("aten::cudnn_batch_norm", x, [3], [3], [3], [3], None, None, None)
    assert guess.flops == 7 * 96 and "training assumed" in guess.note
    assert guess.bytes == (96 + 4 * 3 + 96 + 2 * 3) * 4  # x, 4 vectors; y, saved mean/invstd


def test_rms_and_group_norm_and_backwards() -> None:
    assert work("aten::rms_norm", [4, 8], "[8]", [8], None).flops == (3 + 1) * 32
    # native_group_norm(x, w, b, N, C, HxW, group, eps): saved stats are N x group pairs
    gn = work("aten::native_group_norm", [2, 4, 3], [4], [4], 2, 4, 3, 2, 1e-5)
    assert (gn.flops, gn.bytes) == (7 * 24, (24 + 4 + 4 + 24) * 4 + 2 * (2 * 2) * 4)
    # native_layer_norm_backward(dy, x, shape, mean, rstd, w, b, mask): dx 9 + 1, dw 2, db 1
    back = work("aten::native_layer_norm_backward", [2, 8], [2, 8], "[8]", [2, 1], [2, 1], [8], [8],
                "[True, True, True]")  # fmt: skip
    assert back.flops == (10 + 2 + 1) * 16
    assert back.bytes == (16 + 16 + 2 + 2 + 8 + 8) * 4 + (16 + 8 + 8) * 4
    only_dx = work("aten::native_layer_norm_backward", [2, 8], [2, 8], "[8]", [2, 1], [2, 1], [8],
                   [8], "[True, False, False]")  # fmt: skip
    assert only_dx.flops == 10 * 16
    # _fused_rms_norm_backward(dy, x, shape, rstd, w, mask): dx 6 + 1, dw 2
    rms = work("aten::_fused_rms_norm_backward", [2, 8], [2, 8], "[8]", [2, 1], [8], "[True, True]")
    assert rms.flops == (7 + 2) * 16


def test_softmax_forms() -> None:
    assert work("aten::softmax", [2, 8], -1, None).flops == 5 * 16
    # _softmax(x fp16, dim, half_to_float=True): read at 2 bytes, written at 4
    half = work("aten::_softmax", ([2, 8], H), -1, True)
    assert (half.bytes, half.dtype) == (16 * 2 + 16 * 4, "fp16")
    back = work("aten::_softmax_backward_data", [2, 8], [2, 8], -1, 6)
    assert (back.flops, back.bytes) == (4 * 16, 3 * 16 * 4)
    assert work("aten::_log_softmax_backward_data", [2, 8], [2, 8], -1, 6).flops == 64


def test_elementwise_broadcast_in_place_and_types() -> None:
    add = work("aten::add", [4, 1], [3], 1)  # out [4, 3]
    assert (add.flops, add.bytes, add.category) == (12, (4 + 3 + 12) * 4, "elementwise")
    inplace = work("aten::add_", [4, 3], [3], 1)
    assert (inplace.flops, inplace.bytes) == (12, (12 + 3 + 12) * 4)
    eq = work("aten::eq", [4, 3], [4, 3])
    assert eq.bytes == 24 * 4 + 12 * 1  # a bool result
    assert work("aten::addcmul_", [5], [5], [5], 0.5).flops == 3 * 5
    where = work("aten::where", ([4], "bool"), [4], [4])
    assert (where.dtype, where.bytes) == ("fp32", 4 + 2 * 16 + 16)
    rand = work("aten::uniform_", [10], 0.0, 1.0, None)
    assert rand.bytes == 40  # overwritten, not read
    assert isinstance(run("aten::add", [4, 2], [3]), Unknown)
    assert work("aten::fill_", [10], 0.0).bytes == 40


def test_reductions() -> None:
    s = work("aten::sum", [2, 8], "[1]", False, None)
    assert (s.flops, s.bytes, s.category) == (16, (16 + 2) * 4, "reduction")
    assert work("aten::sum", [2, 8], "[-1]", True, None).bytes == (16 + 2) * 4
    assert work("aten::sum", [2, 8], None).bytes == (16 + 1) * 4  # sum(x, dtype): a scalar
    assert work("aten::mean", [2, 8], "[]", False, None).bytes == (16 + 1) * 4  # [] = all dims
    unknown_dims = work("aten::sum", ([2, 8], T), ([], "GenericList"), ([], "Bool"), None)
    assert unknown_dims.bytes == 16 * 4 and "not recorded" in unknown_dims.note
    assert work("aten::var", [2, 8], "[1]", 1, False).flops == 3 * 16
    assert work("aten::linalg_vector_norm", [2, 8], 2, None, False, None).flops == 2 * 16
    assert work("aten::max", [4], [4]).category == "elementwise"  # max(self, other)
    assert work("aten::cumsum", [3, 4], 1, None).bytes == 2 * 12 * 4


def test_losses() -> None:
    mse = work("aten::mse_loss", [4, 4], [4, 4], 1)  # mean: a scalar out
    assert (mse.flops, mse.bytes) == (3 * 16, (32 + 1) * 4)
    # nll_loss_forward(x [8, 10], target [8] int64, weight, reduction, ignore_index)
    nll = work("aten::nll_loss_forward", [8, 10], ([8], "long int"), None, 1, -100)
    assert (nll.flops, nll.bytes) == (8, 8 * 8 + 2 * 8 * 4)


def test_copies_concat_gathers_and_embeddings() -> None:
    cp = work("aten::copy_", [4, 4], ([4, 4], H), False)  # fp16 -> fp32
    assert (cp.flops, cp.bytes, cp.category) == (0, 16 * 2 + 16 * 4, "copy")
    cast = work("aten::_to_copy", [4, 4], 15, None, None, None, False, None)  # to bf16
    assert cast.bytes == 16 * 4 + 16 * 2
    cat = work("aten::cat", ([[2, 3], [4, 3]], "TensorList"), 0)
    assert cat.bytes == 2 * 18 * 4 and "4-byte" in cat.note
    assert "not recorded" in run("aten::cat", ([], "GenericList"), 0).reason
    # embedding(w [10, 4], idx [3, 2]): 6 int64 indices, 6 rows of 4 read and written
    emb = work("aten::embedding", [10, 4], ([3, 2], "long int"), -1, False, False)
    assert (emb.flops, emb.bytes, emb.category) == (0, 6 * 8 + 2 * 24 * 4, "embedding")
    back = work("aten::embedding_dense_backward", [3, 2, 4], ([3, 2], "long int"), 10, -1, False)
    assert (back.flops, back.bytes) == (24, 24 * 4 + 6 * 8 + 10 * 4 * 4)
    sel = work("aten::index_select", [10, 4], 0, ([3], "long int"))
    assert sel.bytes == 3 * 8 + 2 * 12 * 4


def test_pooling() -> None:
    # max_pool2d_with_indices(x [1,1,4,4], k 2, s 2, p 0, d 1, ceil False): out 2x2, 4 per out
    mp = work(
        "aten::max_pool2d_with_indices", [1, 1, 4, 4], "[2, 2]", "[2, 2]", "[0, 0]", "[1, 1]", False
    )
    assert (mp.flops, mp.bytes) == (4 * 4, 16 * 4 + 4 * 4 + 4 * 8)  # + int64 indices
    ceil = work(
        "aten::max_pool2d_with_indices", [1, 1, 5, 5], "[2, 2]", "[2, 2]", "[0, 0]", "[1, 1]", True
    )
    assert ceil.flops == 4 * 9  # ceil mode: 5 -> 3
    assert (
        "not recorded"
        in run("aten::max_pool2d_with_indices", [1, 1, 4, 4], None, None, None).reason
    )
    avg = work("aten::_adaptive_avg_pool2d", [2, 8, 7, 7], "[1, 1]")
    assert (avg.flops, avg.bytes) == (2 * 8 * 49, (2 * 8 * 49 + 16) * 4)


def test_optimizers() -> None:
    lists = ([[128, 128], [128]], "TensorList")
    step = work("aten::_foreach_add_", lists, lists, -0.001)
    assert (step.flops, step.bytes) == (16512, 3 * 16512 * 4)  # read 2 lists, write the first
    assert step.category == "optimizer" and "4-byte" in step.note
    norms = work("aten::_foreach_norm", lists, 2)
    assert (norms.flops, norms.bytes) == (2 * 16512, (16512 + 2) * 4)
    p = ([[10], [5]], "TensorList")
    empty = ([], "TensorList")
    adamw = work("aten::_fused_adamw_", p, p, p, p, empty, p, 1e-3, 0.9, 0.999, 0.01, 1e-8, False)
    assert (adamw.flops, adamw.bytes) == ((13 + 1) * 15, (4 + 3) * 15 * 4)
    ams = work("aten::_fused_adam_", p, p, p, p, p, p)
    assert (ams.flops, ams.bytes) == ((13 + 1) * 15, (5 + 4) * 15 * 4)
    sgd = work("aten::_fused_sgd_", p, p, p, 0.0, 0.9, 0.1)
    assert (sgd.flops, sgd.bytes) == (4 * 15, (3 + 2) * 15 * 4)
    plain = work("aten::_fused_sgd_", p, p, empty, 0.0, 0.0, 0.1)
    assert (plain.flops, plain.bytes) == (2 * 15, (2 + 1) * 15 * 4)


def test_element_types() -> None:
    sizes = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8,
             "long": 8, "int": 4, "unsigned char": 1, "bool": 1, "c10::Float8_e5m2": 1,
             "FLOAT16": 2, "BF16": 2, "DT_FLOAT": 4, "INT64": 8}  # fmt: skip
    for text, size in sizes.items():
        dtype = element_type(text)
        assert dtype is not None and dtype.size == size, text
    for word in ("Scalar", "ScalarList", "TensorList", "GenericList", "Int", "Bool", "", "None"):
        assert element_type(word) is None
    assert from_scalar_type(15).name == "bf16" and from_scalar_type(24).name == "fp8_e4m3"  # type: ignore[union-attr]


def test_trace_texts_are_parsed_both_ways() -> None:
    assert parse_shapes("[[2, 3], [], [[1], [2]]]") == [[2, 3], [], [[1], [2]]]
    npu = "32,3,224,224;\r\n64,3,11,11;\r\n"  # three inputs joined by ";\r\n", the last a scalar
    assert parse_shapes(npu) == [[32, 3, 224, 224], [64, 3, 11, 11], []]
    kineto = call_from_texts("aten::mm", "[[3, 4], [4, 5]]", '["float", "float"]', "")
    # torch_npu's database swaps the columns: the shapes arrive in the type column
    swapped = call_from_texts("aten::mm", "float;float", "3,4;4,5", "")
    assert kineto.shapes == swapped.shapes and swapped.dtypes == ("float", "float")
    assert work_of(swapped).flops == 120
    assert broadcast([4, 1], [3]) == [4, 3] and broadcast([2], [3]) is None


@pytest.mark.parametrize(
    ("name", "why"),
    [("aten::view", "view"), ("aten::empty", "allocation"), ("aten::to", "wrapper"),
     ("AddmmBackward0", "autograd node"), ("torch::autograd::AccumulateGrad", "autograd node"),
     ("ProfilerStep#3", "annotation"), ("Optimizer.step#SGD.step", "annotation")],
)  # fmt: skip
def test_calls_without_work_of_their_own(name: str, why: str) -> None:
    assert work_of(OpCall(name, ([2, 3],), (T,))) == NoWork(why)


def test_unknown_calls_say_why() -> None:
    assert "no formula" in work_of(OpCall("fbgemm::foo", ([2],), (T,))).reason  # type: ignore[union-attr]
    assert "communication" in work_of(OpCall("nccl:all_reduce", ([2],), (T,))).reason  # type: ignore[union-attr]
    assert "record_shapes" in work_of(OpCall("aten::mm", ())).reason  # type: ignore[union-attr]
    assert "dimensions" in work_of(OpCall("aten::mm", ([3, 4], [4]), (T, T))).reason  # type: ignore[union-attr]
