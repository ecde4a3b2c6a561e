"""One operator call as the work model sees it, and what the model says about it.

A call is its name plus, per input, the shape, the element type and (where the trace has
it) the concrete value the profiler printed for a scalar argument: Kineto's `Input Dims`,
`Input type` and `Concrete Inputs`, or torch_npu's `;`-separated equivalents. Formulas
read arguments by position, as the operator's schema orders them, through the accessors
here, which answer None when an argument is absent or is not what the formula needs, so a
formula says "unknown" with a reason instead of failing.

The model's answer is one of:
- `Work`: FLOPs, bytes moved, category and compute dtype of the call;
- `NoWork`: the call does no arithmetic or memory traffic of its own (a view, an
  allocation, a dispatch wrapper, an autograd node): whatever work it contains is in the
  operators it calls;
- `Unknown`: no formula applies, with the reason.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.analysis.perf.dtypes import DType, element_type

Shape = list[int]

#: Categories of work. The first three are matrix work: what PyTorch's FLOP counter counts
#: and what model-FLOPs utilisation is usually computed from.
MATRIX_CATEGORIES = ("gemm", "conv", "attention")
CATEGORIES = (
    *MATRIX_CATEGORIES,
    *("norm", "softmax", "elementwise", "reduction", "copy", "embedding", "optimizer", "loss"),
)


@dataclass(frozen=True)
class Work:
    """FLOPs (a multiply-add is 2) and bytes (inputs read + outputs written, once each) of
    one call; `bytes` is None when the trace does not give element types. `note` names any
    assumption the figures rest on."""

    flops: int
    bytes: int | None
    category: str
    dtype: str
    note: str = ""


@dataclass(frozen=True)
class NoWork:
    """The call does no work of its own (`why`: view, allocation, wrapper, autograd node)."""

    why: str


@dataclass(frozen=True)
class Unknown:
    """No formula gives this call's work; `reason` says why in words, `zh` the same in
    Simplified Chinese (same names and shapes: the zh dashboard and report show it)."""

    reason: str
    zh: str


Result = Work | NoWork | Unknown


@dataclass(frozen=True)
class OpCall:
    """An operator's name and its inputs' shapes, element types and concrete values."""

    name: str
    shapes: tuple[Any, ...]
    dtypes: tuple[str, ...] = ()
    concrete: tuple[str, ...] = ()
    #: Output shapes where the trace has them (Ascend kernel details); empty otherwise.
    outputs: tuple[Shape, ...] = ()

    def _dtype_text(self, i: int) -> str | None:
        return self.dtypes[i] if 0 <= i < len(self.dtypes) else None

    def tensor(self, i: int) -> Shape | None:
        """Shape of input `i` when it is a tensor (a 0-dim tensor is `[]`), else None
        (also for i < 0: a schema without that argument)."""
        if not 0 <= i < len(self.shapes):
            return None
        shape = self.shapes[i]
        if not is_shape(shape):
            return None
        text = self._dtype_text(i)
        if text is None:  # no element types in the trace: any non-empty shape is a tensor
            return list(shape) if shape else None
        return list(shape) if element_type(text) is not None else None

    def dtype(self, i: int) -> DType | None:
        text = self._dtype_text(i)
        return element_type(text) if text is not None else None

    def tensor_list(self, i: int) -> list[Shape] | None:
        """Shapes of a TensorList input (Kineto records them as a list of shapes)."""
        if not 0 <= i < len(self.shapes):
            return None
        value = self.shapes[i]
        if not isinstance(value, list) or any(not isinstance(s, list) for s in value):
            return None  # a shape (a list of ints) or a scalar, not a list of shapes
        return [list(s) for s in value] if all(is_shape(s) for s in value) else None

    def text(self, i: int) -> str:
        """The concrete value printed for input `i`, "" when not recorded."""
        return self.concrete[i].strip() if 0 <= i < len(self.concrete) else ""

    def ints(self, i: int) -> list[int] | None:
        """An int or int-list argument ("[2, 2]", "2"), None when not recorded."""
        return parse_ints(self.text(i))

    def flag(self, i: int) -> bool | None:
        """A bool argument ("True", "False", "1", "0"), None when not recorded."""
        return parse_flag(self.text(i))

    def flags(self, i: int) -> list[bool] | None:
        """A bool-list argument ("[True, False, True]"), None when not recorded."""
        text = self.text(i)
        if not (text.startswith("[") and text.endswith("]")):
            return None
        parts = [parse_flag(p) for p in text[1:-1].split(",") if p.strip()]
        return None if any(p is None for p in parts) else [bool(p) for p in parts]


def is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    )


def parse_ints(text: str) -> list[int] | None:
    if not text:
        return None
    body = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        return [int(p) for p in body.split(",") if p.strip()]
    except ValueError:
        return None


def parse_flag(text: str) -> bool | None:
    key = text.strip().lower()
    if key in ("true", "1"):
        return True
    if key in ("false", "0"):
        return False
    return None


def numel(shape: Shape) -> int:
    return math.prod(shape)


def nbytes(shapes: list[Shape | None], dtype: DType | None) -> int | None:
    """Bytes of the tensors `shapes` (None entries skipped) of one element type."""
    if dtype is None:
        return None
    return sum(numel(s) for s in shapes if s is not None) * dtype.size


def read_bytes(call: OpCall, indices: range | list[int] | tuple[int, ...]) -> int | None:
    """Bytes of the tensor inputs at `indices`, each at its own element size (non-tensor
    inputs add nothing); None when a tensor's element type is not in the trace."""
    total = 0
    for i in indices:
        shape = call.tensor(i)
        if shape is None:
            continue
        dtype = call.dtype(i)
        if dtype is None:
            return None
        total += numel(shape) * dtype.size
    return total


def add_bytes(*parts: int | None) -> int | None:
    """Sum of byte counts; None when any part is unknown."""
    if any(p is None for p in parts):
        return None
    return sum(p for p in parts if p is not None)


def broadcast(a: Shape, b: Shape) -> Shape | None:
    """NumPy broadcasting of two shapes, None when they do not broadcast."""
    n = max(len(a), len(b))
    out: Shape = []
    for x, y in zip([1] * (n - len(a)) + a, [1] * (n - len(b)) + b, strict=True):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


# --- parsing the trace's texts -------------------------------------------------------------


def parse_shapes(text: str) -> list[Any]:
    """Input shapes from Kineto's JSON (`[[2, 3], []]`) or torch_npu's `2,3;\\r\\n;` text."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [_npu_shape(part) for part in text.split(";")]
    return value if isinstance(value, list) else [value]


def _npu_shape(part: str) -> Any:
    part = part.strip()
    if not part:
        return []
    try:
        return [int(p) for p in part.split(",")]
    except ValueError:
        return part


def parse_words(text: str) -> list[str]:
    """Per-input words from Kineto's JSON list (`["float", "Scalar"]`) or `float;Scalar`."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [p.strip() for p in text.split(";")]
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _looks_like_types(text: str) -> bool:
    return any(c.isalpha() for c in text)


def call_from_texts(name: str, dims: str, types: str, concrete: str) -> OpCall:
    """An OpCall from a trace's texts. Some torch_npu database exports write the shapes in
    the dtype column and the dtypes in the shape column; the reader puts them back (with a
    warning), and the texts still decide here, for traces cached before it did."""
    if _looks_like_types(dims) and types and not _looks_like_types(types):
        dims, types = types, dims
    return OpCall(
        name, tuple(parse_shapes(dims)), tuple(parse_words(types)), tuple(parse_words(concrete))
    )
