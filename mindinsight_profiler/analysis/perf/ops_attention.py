"""Scaled dot-product attention, forward and backward, PyTorch's and Ascend's fused kernels.

For each query head (GQA: key/value heads are shared, the products are still per query
head) attention is two matrix products, Q K^T (S_q x D by D x S_k) and P V (S_q x S_k by
S_k x D_v):

    forward FLOPs  = 2 * B * H_q * S_q * S_k * (D + D_v)
    backward FLOPs = 2 * B * H_q * S_q * S_k * (3 D + 2 D_v)

as `torch.utils.flop_counter.sdpa_flop_count` and `sdpa_backward_flop_count` count them
(the backward recomputes Q K^T, then dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q).
Softmax and scaling are not counted. Where the trace says the mask is causal, only the
(query, key) pairs the mask keeps are computed, and the count is scaled by their share:
(S + 1) / (2 S) of the square for S_q = S_k (one half for long sequences; torch's counter
ignores causality). PyTorch's `is_causal` aligns the mask to the top left; the flash and
efficient kernels' own ops (`_flash_attention_*`, `_efficient_attention_*` with
`custom_mask_type` 2) to the bottom right, which differs only when S_q != S_k.

Layouts: `scaled_dot_product_attention` and its `_scaled_dot_product_*` ops take
(batch..., heads, seq, dim); `_flash_attention_*` and `_efficient_attention_*` take
(batch, seq, heads, dim). Bytes: every tensor input read, the output (forward) or the
gradients of q, k and v (backward) written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Result,
    Shape,
    Unknown,
    Work,
    add_bytes,
    nbytes,
    numel,
    read_bytes,
)


@dataclass(frozen=True)
class Dims:
    """Attention sizes: `lead` = batch * query heads."""

    lead: int
    sq: int
    sk: int
    d: int
    dv: int


def causal_pairs(sq: int, sk: int, bottom_right: bool) -> int:
    """(query, key) pairs a causal mask keeps: key j <= query i (+ sk - sq, bottom right)."""
    offset = sk - sq if bottom_right else 0
    # row i keeps min(max(i + offset + 1, 0), sk) keys
    first = max(0, -offset)  # first row that keeps any key
    full = max(first, min(sq, sk - offset - 1))  # rows from here on keep all sk keys
    partial_rows = full - first
    partial = partial_rows * (first + offset + 1) + partial_rows * (partial_rows - 1) // 2
    return partial + (sq - full) * sk


def _bhsd(q: Shape, k: Shape, v: Shape) -> Dims | Unknown:
    if min(len(q), len(k), len(v)) < 2 or k[-2] != v[-2] or q[-1] != k[-1]:
        return Unknown(
            f"q {q}, k {k}, v {v} do not fit (batch..., heads, seq, dim)",
            f"q {q}、k {k}、v {v} 不符合 (batch..., heads, seq, dim)",
        )
    return Dims(numel(q[:-2]), q[-2], k[-2], q[-1], v[-1])


def _bshd(q: Shape, k: Shape, v: Shape) -> Dims | Unknown:
    if len(q) != 4 or len(k) != 4 or len(v) != 4 or k[1] != v[1] or q[3] != k[3]:
        return Unknown(
            f"q {q}, k {k}, v {v} do not fit (batch, seq, heads, dim)",
            f"q {q}、k {k}、v {v} 不符合 (batch, seq, heads, dim)",
        )
    return Dims(q[0] * q[2], q[1], k[1], q[3], v[3])


@dataclass(frozen=True)
class AttnArgs:
    """Positions in a schema: q/k/v (grad_out for a backward), and the causal argument."""

    q: int
    causal: int  # -1: no causal argument
    backward: bool = False
    grad: int = 0
    bshd: bool = False
    bottom_right: bool = False
    mask_type: bool = False  # the causal argument is efficient attention's custom_mask_type


def attention(call: OpCall, args: AttnArgs) -> Result:
    q, k, v = call.tensor(args.q), call.tensor(args.q + 1), call.tensor(args.q + 2)
    if q is None or k is None or v is None:
        return Unknown(
            "query, key and value shapes not recorded", "未记录 query、key 和 value 的形状"
        )
    dims = (_bshd if args.bshd else _bhsd)(q, k, v)
    if isinstance(dims, Unknown):
        return dims
    causal, bottom_right, note = False, args.bottom_right, ""
    if args.causal >= 0:
        if args.mask_type:
            mask_type = call.ints(args.causal)
            causal = bool(mask_type and mask_type[0] in (1, 2))
            bottom_right = bool(mask_type and mask_type[0] == 2)
            note = "" if mask_type else "mask type not recorded: counted as full"
        else:
            flag = call.flag(args.causal)
            causal = bool(flag)
            note = "" if flag is not None else "causal flag not recorded: counted as full"
    return _work(call, args, dims, q, k, v, causal, bottom_right, note)


def _work(
    call: OpCall, args: AttnArgs, n: Dims, q: Shape, k: Shape, v: Shape,
    causal: bool, bottom_right: bool, note: str,
) -> Work:  # fmt: skip
    pairs = causal_pairs(n.sq, n.sk, bottom_right) if causal else n.sq * n.sk
    per_pair = (3 * n.d + 2 * n.dv) if args.backward else (n.d + n.dv)
    flops = 2 * n.lead * pairs * per_pair
    dtype = call.dtype(args.q)
    read = read_bytes(call, range(len(call.shapes)))
    out = [q, k, v] if args.backward else [[n.lead, n.sq, n.dv]]
    bytes_ = add_bytes(read, nbytes(list(out), dtype))
    return Work(flops, bytes_, "attention", dtype.name if dtype else "", note)


_LAYOUTS = ("BSH", "SBH", "BNSD", "BSND")


def npu_layout(q: Shape, k: Shape, given: str) -> tuple[str, str]:
    """(layout, note) of Ascend attention inputs: the recorded `input_layout`, else read from
    the shapes (3-D: BSH unless dim 0 differs between q and k; 4-D: BNSD unless dim 2 is
    the heads, i.e. q and k differ in dim 1 or dim 2 is the shorter one)."""
    if given in _LAYOUTS:
        return given, ""
    if len(q) == 3:
        sbh = q[0] != k[0] and q[1] == k[1]
        return ("SBH" if sbh else "BSH"), "layout inferred from shapes"
    bsnd = (q[1] != k[1] and q[2] == k[2]) or (q[1] == k[1] and q[2] == k[2] and q[2] < q[1])
    return ("BSND" if bsnd else "BNSD"), "layout inferred from shapes"


def npu_attention(call: OpCall, backward: bool, layout_at: int = -1, mode_at: int = -1) -> Result:
    """FlashAttentionScore(Grad) kernels and torch_npu's npu_fusion_attention(_grad)."""
    q, k, v = call.tensor(0), call.tensor(1), call.tensor(2)
    if q is None or k is None or v is None or len(q) not in (3, 4):
        return Unknown(
            "query, key and value shapes not recorded", "未记录 query、key 和 value 的形状"
        )
    given = call.text(layout_at).strip("'\"")
    if given and given not in _LAYOUTS:
        return Unknown(
            f"layout {given} not modelled (packed sequences' lengths are not traced)",
            f"未对布局 {given} 建模（trace 中没有打包序列的长度）",
        )
    layout, note = npu_layout(q, k, given)
    if layout in ("BSH", "SBH"):
        if len(k) != 3 or len(v) != 3 or k[2] == 0:
            return Unknown(
                f"q {q}, k {k}, v {v} do not fit {layout}", f"q {q}、k {k}、v {v} 不符合 {layout}"
            )
        b, sq, sk = (q[0], q[1], k[1]) if layout == "BSH" else (q[1], q[0], k[0])
        # per query head D and D_v; summed over heads: H_q and H_q * H_v / H_k
        hq, dv_total = q[2], q[2] * v[2] // k[2]
        dims = Dims(b, sq, sk, hq, dv_total)
    else:
        if len(k) != 4 or len(v) != 4:
            return Unknown(
                f"q {q}, k {k}, v {v} do not fit {layout}", f"q {q}、k {k}、v {v} 不符合 {layout}"
            )
        perm = [0, 2, 1, 3] if layout == "BSND" else [0, 1, 2, 3]
        q, k, v = ([s[p] for p in perm] for s in (q, k, v))
        dims = Dims(q[0] * q[1], q[2], k[2], q[3], v[3])
    mode = call.ints(mode_at)
    causal = bool(mode and mode[0] in (2, 3))
    if mode_at < 0 or mode is None:
        note = ", ".join(filter(None, [note, "mask not modelled: counted as full"]))
    args = AttnArgs(0, -1, backward=backward)
    q_, k_, v_ = call.tensor(0) or [], call.tensor(1) or [], call.tensor(2) or []
    return _work(call, args, dims, q_, k_, v_, causal, mode is not None and mode[0] == 3, note)


ATTENTION_ARGS = {
    "aten::scaled_dot_product_attention": AttnArgs(0, 5),
    "aten::_scaled_dot_product_attention_math": AttnArgs(0, 5),
    "aten::_scaled_dot_product_flash_attention": AttnArgs(0, 4),
    "aten::_scaled_dot_product_flash_attention_for_cpu": AttnArgs(0, 4),
    "aten::_scaled_dot_product_efficient_attention": AttnArgs(0, 6),
    "aten::_scaled_dot_product_cudnn_attention": AttnArgs(0, 6),
    "aten::_scaled_dot_product_fused_attention_overrideable": AttnArgs(0, 5),
    "aten::_scaled_dot_product_flash_attention_backward": AttnArgs(1, 11, backward=True),
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward": AttnArgs(1, 7, backward=True),
    "aten::_scaled_dot_product_efficient_attention_backward": AttnArgs(1, 11, backward=True),
    "aten::_scaled_dot_product_cudnn_attention_backward": AttnArgs(1, 14, backward=True),
    "aten::_flash_attention_forward": AttnArgs(0, 8, bshd=True, bottom_right=True),
    "aten::_flash_attention_backward": AttnArgs(1, 11, backward=True, bshd=True, bottom_right=True),
    "aten::_efficient_attention_forward": AttnArgs(0, 9, bshd=True, mask_type=True),
    "aten::_efficient_attention_backward": AttnArgs(
        1, 14, backward=True, bshd=True, mask_type=True
    ),
}

_VARLEN = {  # positions of cum_seq_q in the flash/efficient ops that take packed sequences
    "aten::_flash_attention_forward": 3,
    "aten::_flash_attention_backward": 6,
    "aten::_efficient_attention_forward": 4,
    "aten::_efficient_attention_backward": 6,
}


def _attention_op(name: str, args: AttnArgs) -> Callable[[OpCall], Result]:
    def formula(call: OpCall) -> Result:
        at = _VARLEN.get(name)
        if at is not None and call.tensor(at) is not None:
            return Unknown(
                "packed variable-length sequences: their lengths are not in the trace",
                "打包的变长序列：trace 中没有它们的长度",
            )
        return attention(call, args)

    return formula


ATTENTION_OPS: dict[str, Callable[[OpCall], Result]] = {
    **{name: _attention_op(name, args) for name, args in ATTENTION_ARGS.items()},
    "FlashAttentionScore": lambda c: npu_attention(c, backward=False),
    "FlashAttentionScoreGrad": lambda c: npu_attention(c, backward=True),
    "npu::npu_fusion_attention": lambda c: npu_attention(c, False, layout_at=4, mode_at=16),
    # the grad's sparse_mode position differs between torch_npu versions: not read
    "npu::npu_fusion_attention_grad": lambda c: npu_attention(c, True, layout_at=5),
}
