"""Data movement: copies, casts, concatenation, gathers and embeddings (no FLOPs).

These ops compute nothing (an embedding-bag or a scatter-add adds, and is counted so), so
what they cost is bytes: the elements read plus the elements written. A gather reads as
many source elements as it writes. Tensor lists (`cat`, `stack`) record their shapes but
not their element type; their elements are taken as 4 bytes and the note says so.
"""

from __future__ import annotations

from collections.abc import Callable

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Result,
    Unknown,
    Work,
    add_bytes,
    nbytes,
    numel,
    read_bytes,
)
from mindinsight_profiler.analysis.perf.dtypes import DType, canonical, from_scalar_type

LIST_DTYPE = canonical("fp32")
LIST_NOTE = "tensor-list element type not recorded: 4-byte elements assumed"


def _work(
    flops: int, bytes_: int | None, category: str, dtype: DType | None, note: str = ""
) -> Work:
    return Work(flops, bytes_, category, dtype.name if dtype else "", note)


def copy(call: OpCall) -> Result:
    """copy_(self, src): src read, self written (each at its own element type)."""
    dst, src = call.tensor(0), call.tensor(1)
    if dst is None or src is None:
        return Unknown("source and destination shapes not recorded", "未记录源和目标的形状")
    bytes_ = add_bytes(read_bytes(call, (1,)), read_bytes(call, (0,)))
    return _work(0, bytes_, "copy", call.dtype(0))


def clone(call: OpCall, dtype_at: int = -1) -> Result:
    """clone/_to_copy-style: the input read, a copy written (at `dtype` when recorded)."""
    x = call.tensor(0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    codes = call.ints(dtype_at) if dtype_at >= 0 else None
    out = from_scalar_type(codes[0]) if codes else call.dtype(0)
    return _work(0, add_bytes(read_bytes(call, (0,)), nbytes([x], out)), "copy", call.dtype(0))


def concat(call: OpCall) -> Result:
    """cat/stack(tensors, dim): every input read, their sum written."""
    shapes = call.tensor_list(0)
    if not shapes:
        return Unknown("tensor-list shapes not recorded", "未记录张量列表的形状")
    total = 2 * sum(numel(s) for s in shapes) * LIST_DTYPE.size
    return Work(0, total, "copy", "", LIST_NOTE)


def index_select(call: OpCall) -> Result:
    """index_select(self, dim, index): index read, len(index) slices gathered and written."""
    x, index, dim = call.tensor(0), call.tensor(2), call.ints(1)
    if x is None or index is None:
        return Unknown("input and index shapes not recorded", "未记录 input 和 index 的形状")
    if not dim or not x:
        return Unknown("dimension not recorded", "未记录维度")
    out = numel(x) // max(x[dim[0] % len(x)], 1) * numel(index)
    dtype = call.dtype(0)
    return _work(0, add_bytes(read_bytes(call, (2,)), nbytes([[2 * out]], dtype)), "copy", dtype)


def gather(call: OpCall) -> Result:
    """gather(self, dim, index): one element per index read and written."""
    index = call.tensor(2)
    if index is None or call.tensor(0) is None:
        return Unknown("input and index shapes not recorded", "未记录 input 和 index 的形状")
    dtype = call.dtype(0)
    return _work(0, add_bytes(read_bytes(call, (2,)), nbytes([index, index], dtype)), "copy", dtype)


def scatter_add(call: OpCall, src_at: int) -> Result:
    """scatter_add_(self, dim, index, src) / index_add_(self, dim, index, source): one add per
    source element; index and source read, as many elements read and written in self."""
    src = call.tensor(src_at)
    if src is None or call.tensor(0) is None:
        return Unknown("input and source shapes not recorded", "未记录 input 和 source 的形状")
    dtype = call.dtype(0)
    bytes_ = add_bytes(read_bytes(call, (2, src_at)), nbytes([src, src], dtype))
    return _work(numel(src), bytes_, "copy", dtype)


def index_copy(call: OpCall) -> Result:
    """index_copy_(self, dim, index, source): index and source read, source's size written."""
    src = call.tensor(3)
    if src is None or call.tensor(0) is None:
        return Unknown("input and source shapes not recorded", "未记录 input 和 source 的形状")
    dtype = call.dtype(0)
    return _work(0, add_bytes(read_bytes(call, (2, 3)), nbytes([src], dtype)), "copy", dtype)


def slice_backward(call: OpCall) -> Result:
    """slice_backward(grad, input_sizes, dim, start, end, step): a zeroed input-sized
    gradient written, the slice's gradient read."""
    size = call.ints(1)
    if call.tensor(0) is None or not size:
        return Unknown(
            "input size not recorded (no Concrete Inputs)",
            "未记录输入的大小（没有 Concrete Inputs）",
        )
    dtype = call.dtype(0)
    return _work(0, add_bytes(read_bytes(call, (0,)), nbytes([size], dtype)), "copy", dtype)


def embedding(call: OpCall) -> Result:
    """embedding(weight, indices, ...): indices read, one row per index gathered and written."""
    w, idx = call.tensor(0), call.tensor(1)
    if w is None or idx is None or not w:
        return Unknown("weight and indices shapes not recorded", "未记录 weight 和 indices 的形状")
    rows = numel(idx) * w[-1]
    dtype = call.dtype(0)
    return _work(
        0, add_bytes(read_bytes(call, (1,)), nbytes([[2 * rows]], dtype)), "embedding", dtype
    )


def embedding_backward(call: OpCall) -> Result:
    """embedding_dense_backward(grad, indices, num_weights, ...): one add per gradient
    element; the whole weight gradient written (num_weights rows, when recorded)."""
    grad, idx = call.tensor(0), call.tensor(1)
    if grad is None or idx is None or not grad:
        return Unknown(
            "gradient and indices shapes not recorded", "未记录 gradient 和 indices 的形状"
        )
    count = call.ints(2)
    rows = count[0] if count else numel(grad) // max(grad[-1], 1)
    note = "" if count else "num_weights not recorded: only the touched rows counted"
    dtype = call.dtype(0)
    bytes_ = add_bytes(read_bytes(call, (0, 1)), nbytes([[rows, grad[-1]]], dtype))
    return _work(numel(grad), bytes_, "embedding", dtype, note)


def embedding_bag(call: OpCall) -> Result:
    """_embedding_bag(weight, indices, offsets, ..., include_last_offset, ...): each index's
    row read and added into its bag; the bags written."""
    w, idx, offsets = call.tensor(0), call.tensor(1), call.tensor(2)
    if w is None or idx is None or offsets is None or not w:
        return Unknown(
            "weight, indices and offsets shapes not recorded",
            "未记录 weight、indices 和 offsets 的形状",
        )
    bags = numel(offsets) - (1 if call.flag(7) else 0)
    dtype = call.dtype(0)
    rows = numel(idx) * w[-1]
    bytes_ = add_bytes(read_bytes(call, (1, 2, 6)), nbytes([[rows], [bags, w[-1]]], dtype))
    return _work(rows, bytes_, "embedding", dtype)


MEMORY_OPS: dict[str, Callable[[OpCall], Result]] = {
    "aten::copy_": copy,
    "aten::clone": clone,
    "aten::_to_copy": lambda c: clone(c, 1),
    "aten::flip": clone,
    "aten::roll": clone,
    "aten::cat": concat,
    "aten::_cat": concat,
    "aten::concat": concat,
    "aten::concatenate": concat,
    "aten::stack": concat,
    "aten::index_select": index_select,
    "aten::gather": gather,
    "aten::scatter_add": lambda c: scatter_add(c, 3),
    "aten::scatter_add_": lambda c: scatter_add(c, 3),
    "aten::index_add": lambda c: scatter_add(c, 3),
    "aten::index_add_": lambda c: scatter_add(c, 3),
    "aten::index_copy": index_copy,
    "aten::index_copy_": index_copy,
    "aten::slice_backward": slice_backward,
    "aten::select_backward": slice_backward,
    "aten::embedding": embedding,
    "aten::embedding_dense_backward": embedding_backward,
    "aten::_embedding_bag": embedding_bag,
    "aten::_embedding_bag_forward_only": embedding_bag,
}
