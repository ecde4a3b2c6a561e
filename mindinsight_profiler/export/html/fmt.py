"""Numbers as the dashboard prints them (`ui/src/format.ts`, `ui/src/covered.ts`), in Python.

The report must show the figures a reader sees on the dashboard, character for character, so
the rules are the UI's: a duration in the unit that keeps 3-4 significant digits with two
decimals (`177.59 ms`), a share as a percentage with one decimal (`33.4 %`), bytes in binary
units with one decimal (`55.1 MiB`), counts grouped (`1,234`). Rounding is JavaScript's
`Number.prototype.toFixed`: the exact binary value rounded half away from zero (Python's
`format` rounds half to even, which differs on exact ties such as 0.125), so `fixed` goes
through `Decimal`, which holds a float's exact value.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

DASH = "–"  # what the dashboard shows for a missing value


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def fixed(x: float, digits: int) -> str:
    """`x.toFixed(digits)`: half away from zero on the exact binary value."""
    exact = Decimal(0.0 if x == 0 else x)  # -0.0 prints as "0" in JavaScript, -0.001 as "-0.00"
    return str(exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def us(value: Any, digits: int = 2) -> str:
    """`formatUs`: a duration in microseconds, in s, ms, µs or ns."""
    if not _finite(value):
        return DASH
    a = abs(value)
    if a >= 1e6:
        return f"{fixed(value / 1e6, digits)} s"
    if a >= 1e3:
        return f"{fixed(value / 1e3, digits)} ms"
    if a >= 1 or a == 0:
        return f"{fixed(value, 0 if a == 0 else min(digits, 1))} µs"
    return f"{fixed(value * 1e3, 0)} ns"


def share(value: Any, digits: int = 1) -> str:
    """`formatShare`: a share in [0, 1] as a percentage."""
    return f"{fixed(value * 100, digits)} %" if _finite(value) else DASH


def pct(value: Any, digits: int = 1) -> str:
    """`formatPct`: a value that already is a percentage."""
    return f"{fixed(value, digits)} %" if _finite(value) else DASH


def nbytes(value: Any, digits: int = 1) -> str:
    """`formatBytes`: binary units (KiB, MiB, ...)."""
    if not _finite(value):
        return DASH
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    v, i = abs(value), 0
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    sign = "-" if value < 0 else ""
    return f"{sign}{fixed(v, 0) if i == 0 else fixed(v, digits)} {units[i]}"


def count(value: Any) -> str:
    """`formatCount`: a whole number with thousands separators (en-US)."""
    if not _finite(value):
        return DASH
    text = fixed(value, 0)
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    return sign + f"{int(digits):,}"


def number(value: Any, digits: int = 2) -> str:
    """`formatNumber`: fixed-point."""
    return fixed(value, digits) if _finite(value) else DASH


def sig(value: Any, digits: int = 3) -> str:
    """`formatSig`: `digits` significant digits; large values grouped, never exponents."""
    if not _finite(value):
        return DASH
    if value == 0:
        return "0"
    if abs(value) >= 10**digits:
        return count(value)
    exponent = Decimal(value).adjusted() - digits + 1
    rounded = float(Decimal(value).quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP))
    return js_number(rounded)


def js_number(x: float) -> str:
    """`String(x)` in JavaScript: the shortest digits that read back as `x`, positional
    from 1e-6 up to 1e21 (0.0000589, where Python writes 5.89e-05), exponent form outside
    (3.2e-8)."""
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(repr(x)), "f")
    mantissa, exp = repr(x).split("e")
    return f"{mantissa}e{'-' if exp.startswith('-') else '+'}{int(exp.lstrip('+-'))}"


def cell(kind: str, value: Any) -> str:
    """A table cell of `kind` (the dashboard's `formatCell`)."""
    if value is None or value == "":
        return DASH
    formats = {"us": us, "count": count, "share": share, "pct": pct, "number": number,
               "sig": sig, "bytes": nbytes}  # fmt: skip
    if kind == "bool":
        return "✓" if value else "✗"
    return formats[kind](value) if kind in formats else str(value)


def shorten(name: str, limit: int = 160) -> str:
    """A long name cut in the middle, keeping its start and end (the UI's `shorten`)."""
    if len(name) <= limit:
        return name
    head = math.ceil((limit - 1) * 0.6)
    return f"{name[:head]}…{name[len(name) - (limit - 1 - head) :]}"
