"""Matrix products: mm, addmm, bmm, baddbmm, matmul, linear, FP8 scaled mm, Ascend MatMul.

An (M x K) @ (K x N) product is M*N*K multiply-adds, 2*M*N*K FLOPs, the convention of
`torch.utils.flop_counter` (its `mm_flop`, `bmm_flop`, and `addmm`/`baddbmm`/`_scaled_mm`
registered as the plain product): a bias or `beta * self` term adds no FLOPs but its bytes
are read. A batched product multiplies by the broadcast batch size. Bytes: both operands
and any bias read once, the result written once, at the operands' element size (the
output's own type for `_scaled_mm`, whose FP8 operands usually give a BF16 result).
"""

from __future__ import annotations

from collections.abc import Callable

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Result,
    Shape,
    Unknown,
    Work,
    add_bytes,
    broadcast,
    nbytes,
    numel,
    read_bytes,
)
from mindinsight_profiler.analysis.perf.dtypes import DType, from_scalar_type


def _gemm(
    call: OpCall,
    first: int,
    out: Shape,
    flops: int,
    inputs: tuple[int, ...],
    out_dtype: DType | None = None,
    note: str = "",
) -> Work:
    """Work of a product whose first operand is input `first`; `inputs` are read."""
    dtype = call.dtype(first)
    written = nbytes([out], out_dtype or dtype)
    bytes_ = add_bytes(read_bytes(call, inputs), written)
    return Work(flops, bytes_, "gemm", dtype.name if dtype else "", note)


def _need(call: OpCall, *ranks: tuple[int, int]) -> list[Shape] | Unknown:
    """Tensor inputs at the given (index, rank) positions; rank -1 means any rank >= 1."""
    shapes = []
    for i, rank in ranks:
        shape = call.tensor(i)
        if shape is None:
            return Unknown(
                f"input {i} is not a tensor with a recorded shape", f"输入 {i} 不是记录了形状的张量"
            )
        if (rank >= 0 and len(shape) != rank) or (rank < 0 and not shape):
            return Unknown(
                f"input {i} has shape {shape}, expected {rank} dimensions",
                f"输入 {i} 的形状为 {shape}，应为 {rank} 维",
            )
        shapes.append(shape)
    return shapes


def _inner(a: Shape, b: Shape) -> Unknown | None:
    if a[-1] != b[-2 if len(b) > 1 else 0]:
        return Unknown(f"inner dimensions differ: {a} @ {b}", f"内维不一致：{a} @ {b}")
    return None


def mm(call: OpCall, first: int = 0) -> Result:
    """mm(a, b) (and addmm/addmv/_scaled_mm's operands at `first`)."""
    got = _need(call, (first, 2), (first + 1, 2))
    if isinstance(got, Unknown):
        return got
    a, b = got
    if bad := _inner(a, b):
        return bad
    m, k, n = a[0], a[1], b[1]
    return _gemm(call, first, [m, n], 2 * m * n * k, (0, 1, 2))


def bmm(call: OpCall, first: int = 0, reduce_batch: bool = False) -> Result:
    """bmm(a, b); baddbmm/addbmm with the operands at `first` (addbmm sums over batches)."""
    got = _need(call, (first, 3), (first + 1, 3))
    if isinstance(got, Unknown):
        return got
    a, b = got
    if a[0] != b[0]:
        return Unknown(f"batch sizes differ: {a} @ {b}", f"批大小不一致：{a} @ {b}")
    if bad := _inner(a, b):
        return bad
    batch, m, k, n = a[0], a[1], a[2], b[2]
    out = [m, n] if reduce_batch else [batch, m, n]
    return _gemm(call, first, out, 2 * batch * m * n * k, (0, 1, 2))


def mv(call: OpCall, first: int = 0) -> Result:
    got = _need(call, (first, 2), (first + 1, 1))
    if isinstance(got, Unknown):
        return got
    a, v = got
    if bad := _inner(a, v):
        return bad
    return _gemm(call, first, [a[0]], 2 * a[0] * a[1], (0, 1, 2))


def dot(call: OpCall) -> Result:
    got = _need(call, (0, 1), (1, 1))
    if isinstance(got, Unknown):
        return got
    a, b = got
    if a != b:
        return Unknown(f"vector lengths differ: {a} . {b}", f"向量长度不一致：{a} . {b}")
    return _gemm(call, 0, [], 2 * a[0], (0, 1))


def matmul_shapes(a: Shape, b: Shape) -> tuple[int, Shape] | Unknown:
    """(FLOPs, output shape) of torch.matmul's cases: dot, matrix-vector, vector-matrix,
    matrix product, and batched products with broadcast batch dimensions."""
    if not a or not b:
        return Unknown("matmul of a 0-dim tensor", "0 维张量的 matmul")
    a2 = [1, *a] if len(a) == 1 else a
    b2 = [*b, 1] if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        return Unknown(f"inner dimensions differ: {a} @ {b}", f"内维不一致：{a} @ {b}")
    batch = broadcast(a2[:-2], b2[:-2])
    if batch is None:
        return Unknown(
            f"batch dimensions do not broadcast: {a} @ {b}", f"批维度无法广播：{a} @ {b}"
        )
    m, k, n = a2[-2], a2[-1], b2[-1]
    out = batch + ([m] if len(a) > 1 else []) + ([n] if len(b) > 1 else [])
    return 2 * numel(batch) * m * n * k, out


def matmul(call: OpCall) -> Result:
    got = _need(call, (0, -1), (1, -1))
    if isinstance(got, Unknown):
        return got
    a, b = got
    shaped = matmul_shapes(a, b)
    if isinstance(shaped, Unknown):
        return shaped
    flops, out = shaped
    return _gemm(call, 0, out, flops, (0, 1))


def linear(call: OpCall) -> Result:
    """linear(x, w, bias): x[..., K] @ w[N, K]^T, 2 * prod(x[:-1]) * N * K."""
    got = _need(call, (0, -1), (1, -1))
    if isinstance(got, Unknown):
        return got
    x, w = got
    if len(w) > 2 or x[-1] != w[-1]:
        return Unknown(f"weight {w} does not fit input {x}", f"权重 {w} 与输入 {x} 不匹配")
    n = w[0] if len(w) == 2 else 1
    out = x[:-1] + ([n] if len(w) == 2 else [])
    return _gemm(call, 0, out, 2 * numel(x[:-1]) * n * x[-1], (0, 1, 2))


def scaled_mm(call: OpCall) -> Result:
    """_scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum)."""
    got = _need(call, (0, 2), (1, 2))
    if isinstance(got, Unknown):
        return got
    a, b = got
    if bad := _inner(a, b):
        return bad
    codes = call.ints(6)
    out_dtype = from_scalar_type(codes[0]) if codes else None
    note = "" if out_dtype else "output type not recorded: the operands' type assumed"
    m, k, n = a[0], a[1], b[1]
    return _gemm(call, 0, [m, n], 2 * m * n * k, (0, 1, 2, 3, 4, 5), out_dtype, note)


def npu_matmul(call: OpCall, batched: bool) -> Result:
    """Ascend MatMul/BatchMatMul kernels (x1, x2, bias...): their transpose attributes are
    not in the trace, so K is the dimension the operands share: the output's shape settles
    it when given, else the untransposed reading is preferred when several fit."""
    got = _need(call, (0, -1), (1, -1))
    if isinstance(got, Unknown):
        return got
    x1, x2 = got
    if len(x1) < 2 or len(x2) < 2 or (not batched and (len(x1) != 2 or len(x2) != 2)):
        return Unknown(f"operands {x1} and {x2} are not matrices", f"操作数 {x1} 和 {x2} 不是矩阵")
    out = call.outputs[0] if call.outputs else None
    options = [(t1, t2) for t1 in (False, True) for t2 in (False, True)]
    for t1, t2 in options:
        m, k = (x1[-1], x1[-2]) if t1 else (x1[-2], x1[-1])
        k2, n = (x2[-1], x2[-2]) if t2 else (x2[-2], x2[-1])
        if k != k2 or (out is not None and out[-2:] != [m, n]):
            continue
        batch = broadcast(x1[:-2], x2[:-2])
        if batch is None:
            return Unknown(
                f"batch dimensions do not broadcast: {x1} @ {x2}", f"批维度无法广播：{x1} @ {x2}"
            )
        note = "" if out is not None or (t1, t2) == (False, False) else "transposes inferred"
        flops = 2 * numel(batch) * m * n * k
        return _gemm(call, 0, [*batch, m, n], flops, (0, 1, 2), None, note)
    return Unknown(
        f"no reading of {x1} @ {x2} has a shared inner dimension",
        f"{x1} @ {x2} 的任何解读都没有共同的内维",
    )


GEMM_OPS: dict[str, Callable[[OpCall], Result]] = {
    "aten::mm": mm,
    "aten::addmm": lambda c: mm(c, 1),
    "aten::_addmm_activation": lambda c: mm(c, 1),
    "aten::bmm": bmm,
    "aten::baddbmm": lambda c: bmm(c, 1),
    "aten::addbmm": lambda c: bmm(c, 1, reduce_batch=True),
    "aten::mv": mv,
    "aten::addmv": lambda c: mv(c, 1),
    "aten::dot": dot,
    "aten::vdot": dot,
    "aten::matmul": matmul,
    "aten::linear": linear,
    "aten::_scaled_mm": scaled_mm,
    "MatMul": lambda c: npu_matmul(c, batched=False),
    "MatMulV2": lambda c: npu_matmul(c, batched=False),
    "MatMulV3": lambda c: npu_matmul(c, batched=False),
    "BatchMatMul": lambda c: npu_matmul(c, batched=True),
    "BatchMatMulV2": lambda c: npu_matmul(c, batched=True),
    "BatchMatMulV3": lambda c: npu_matmul(c, batched=True),
}
