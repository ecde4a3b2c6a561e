"""Exact conversion of JSON microsecond timestamps to int64 nanoseconds.

PyTorch 2.x writes `"ts": 1712195495505582.988` (microseconds with nanosecond decimals).
A float64 holds that only to 0.25 us, which reorders the ends of nested ranges and breaks
the operator tree. The decoder therefore keeps each `ts` as its raw JSON text, and this
module parses all of them at once with numpy.

Timestamps in one trace almost always share a layout (same length, same position of the
dot), so rows are grouped by layout and each group becomes one integer matrix product.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_WIDTH = 24
_ZERO, _DOT, _MINUS = 48, 46, 45
_MAX_INT_DIGITS = 16
_MAX_WHOLE_US = (2**63 - 1) // 1000 - 1


class NumberFormatError(ValueError):
    """A value is not a plain JSON number; `index` is the first offending row."""

    def __init__(self, index: int, text: bytes) -> None:
        self.index = index
        self.text = text
        super().__init__(f"not a number: {text[:40]!r}")


def _slow_row(text: bytes, index: int) -> int:
    """One unusual row (exponent, many digits): exact via Decimal."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.decode("ascii"))
        if not value.is_finite() or text[:1] in (b"+", b" "):
            raise InvalidOperation
        return int((value * 1000).to_integral_value())
    except (InvalidOperation, UnicodeDecodeError, OverflowError):
        raise NumberFormatError(index, text) from None


def _horner(m: np.ndarray, cols: list[int]) -> np.ndarray:
    """Integer value of the digit columns `cols` (Horner's rule, one column at a time).

    Integer matmul in numpy is not BLAS and is 10x slower than this loop.
    """
    value = np.zeros(len(m), dtype=np.int64)
    for c in cols:
        value *= 10
        value += m[:, c]
    value -= _ZERO * sum(10**k for k in range(len(cols)))
    return value


def _parse_group(m: np.ndarray, neg: bool, dot: int, length: int) -> np.ndarray | None:
    """Values of rows sharing one layout, or None if any row is not a plain decimal."""
    int_cols = list(range(1 if neg else 0, dot))
    frac_cols = list(range(dot + 1, min(length, dot + 5)))
    if not int_cols and not frac_cols:
        return None
    if len(int_cols) > _MAX_INT_DIGITS or (dot < length and not frac_cols):
        return None
    sub = m[:, int_cols + frac_cols]
    if ((sub < _ZERO) | (sub > _ZERO + 9)).any():
        return None
    whole = _horner(m, int_cols)
    if (whole > _MAX_WHOLE_US).any():
        return None
    frac = _horner(m, frac_cols[:3]) * 10 ** (3 - len(frac_cols[:3]))
    if len(frac_cols) == 4:  # round half up on the 4th decimal; later ones are below 1 ns
        frac += m[:, frac_cols[3]] >= _ZERO + 5
    value = whole * 1000 + frac
    return -value if neg else value


def us_text_to_ns(raw: Sequence[bytes]) -> np.ndarray:
    """Parse decimal microsecond texts (`b"123"`, `b"-4.5"`, `b"1.5e3"`) to int64 ns.

    Rounds to the nearest nanosecond. Raises NumberFormatError for anything that is not a
    finite JSON number (quoted strings, null, NaN, ...).
    """
    out, status = us_text_to_ns_where(raw)
    if status.any():
        i = int(np.argmax(status != PARSED))
        raise NumberFormatError(i, bytes(raw[i]))
    return out


#: Row status of `us_text_to_ns_where`.
PARSED, NOT_A_NUMBER, BEYOND_INT64 = 0, 1, 2


def us_text_to_ns_where(raw: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """(int64 ns, status per row) of microsecond texts: `us_text_to_ns` for inputs where a
    bad row is left out rather than failing the whole file. Status NOT_A_NUMBER rows hold 0;
    BEYOND_INT64 rows (numbers too large for int64 ns) hold the int64 limit of their sign."""
    n = len(raw)
    out = np.zeros(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return out, status
    m = np.fromiter(raw, dtype=f"S{_WIDTH}", count=n).view(np.uint8).reshape(n, _WIDTH)
    length = np.count_nonzero(m, axis=1)
    is_dot = m == _DOT
    has_dot = is_dot.any(axis=1)
    dot = np.where(has_dot, is_dot.argmax(axis=1), length)
    neg = m[:, 0] == _MINUS
    # A layout key per row; rows of one key share every digit position.
    key = (length * (_WIDTH + 1) + dot) * 2 + neg
    counts = np.bincount(key)
    slow = np.zeros(n, dtype=bool)
    for k in np.flatnonzero(counts).tolist():
        rows = np.flatnonzero(key == k) if counts[k] < n else slice(None)
        is_neg, rest = bool(k % 2), k // 2
        ln, dt = divmod(rest, _WIDTH + 1)
        values = _parse_group(m[rows], is_neg, dt, ln) if ln < _WIDTH else None
        if values is None:
            slow[rows] = True
        else:
            out[rows] = values
    for i in np.flatnonzero(slow).tolist():
        try:
            value = _slow_row(bytes(raw[i]), i)
        except NumberFormatError:
            status[i] = NOT_A_NUMBER
            continue
        if -(2**63) <= value < 2**63:
            out[i] = value
        else:
            status[i] = BEYOND_INT64
            out[i] = 2**63 - 1 if value > 0 else -(2**63)
    return out, status


def unquoted(raw: bytes) -> bytes:
    """The text of a JSON number written bare (`12.5`) or as a string (`"12.5"`)."""
    return raw[1:-1] if raw[:1] == b'"' else raw


def json_us_to_ns(raws: Sequence[bytes]) -> np.ndarray:
    """Microseconds written as JSON numbers or numeric strings (Ascend, MindSpore) to ns.

    Raises NumberFormatError, as `us_text_to_ns`, for anything that is not a number.
    """
    return us_text_to_ns([unquoted(bytes(r)) for r in raws])


def as_int(value: int | str | None) -> int:
    """Ints as they are; numeric strings ("0x0", "7") parsed; anything else -1.

    Ids beyond int64 (seen on HCCL flows) keep their low 63 bits: they are only compared.
    """
    if isinstance(value, str):
        try:
            value = int(value, 0)
        except ValueError:
            return -1
    if isinstance(value, int):
        return value if -1 <= value < 2**63 else value & (2**63 - 1)
    return -1
