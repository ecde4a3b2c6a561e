"""A small, strict CSV reader for the Ascend profiler's text export.

The export has traps a plain `csv.DictReader` walks into: time columns end with a TAB
(`1736405443881410.320\t`), lines end with CRLF, and quoted call stacks span several lines
(`a;\\r\\nb`). Rows are read by `side_files.read_csv` (shared with the MindSpore readers:
stripped cells, strict quoting, one `InputError` per defect); this module declares the
columns and converts each at once with numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices, side_files
from mindinsight_profiler.formats.event_times import NOT_NUMBER, OK, times_from_text
from mindinsight_profiler.model.strings import StringTable

#: Cells that mean "no value" in the export.
ABSENT = frozenset({"", "N/A", "NA", "-", "None", "null"})

#: Column types: exact microsecond text -> int64 ns, integer, float, interned string.
TIME_US, INT, FLOAT, STR = "time_us", "int", "float", "str"


@dataclass(frozen=True)
class Col:
    """One declared column: its header in the file, its type, whether it must exist, and the
    largest value that makes sense (every number of the export is zero or more)."""

    header: str
    type: str
    required: bool = True
    hi: float | None = None


def _first(mask: np.ndarray) -> int:
    return int(np.argmax(mask))


def _out_of_range(path: Path, name: str, cells: list[str], bad: np.ndarray) -> None:
    i = _first(bad)
    notices.warn(
        path, f"{int(bad.sum())} value(s) of {name} out of range read as absent "
        f"(the first: row {i + 2}: {cells[i][:40]!r})",
    )  # fmt: skip


def _times(path: Path, name: str, cells: list[str]) -> np.ndarray:
    absent = np.fromiter((c in ABSENT for c in cells), dtype=bool, count=len(cells))
    texts = [
        b"0" if a else c.encode("ascii", "replace") for c, a in zip(cells, absent, strict=True)
    ]
    values, problem = times_from_text(texts)
    if (problem == NOT_NUMBER).any():
        i = _first(problem == NOT_NUMBER)
        raise InputError(path, f"row {i + 2}: {name} is not a number: {cells[i][:40]!r}")
    bad = problem != OK
    if bad.any():
        _out_of_range(path, name, cells, bad)
    values[absent | bad] = -1
    return values


def _number(text: str, integer: bool) -> float | int | None:
    """The value of a cell, or None when it is not a finite number."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if integer:
        digits = text.lstrip("+-")
        return int(text) if digits.isascii() and digits.isdigit() else int(value)
    return value


def _numbers(path: Path, col: Col, cells: list[str]) -> np.ndarray:
    """An INT (int64, absent -1) or FLOAT (float64, absent NaN) column; values outside
    [0, col.hi] are read as absent with a warning, cells that are no number are an error."""
    integer = col.type == INT
    hi = col.hi if col.hi is not None else (2**62 if integer else math.inf)
    fill = -1 if integer else math.nan
    texts = [str(fill) if c in ABSENT else c for c in cells]
    try:  # the usual file: every cell a number within range, converted at once
        fast = np.array(texts, dtype=np.float64 if not integer else np.int64)
        absent = np.fromiter((c in ABSENT for c in cells), dtype=bool, count=len(cells))
        if ((np.isfinite(fast) & (fast >= 0) & (fast <= hi)) | absent).all():
            return fast
    except (ValueError, OverflowError):
        pass
    values = [None if c in ABSENT else _number(c, integer) for c in cells]
    for i, (c, v) in enumerate(zip(cells, values, strict=True)):
        if v is None and c not in ABSENT:
            raise InputError(path, f"row {i + 2}: {col.header} is not a number: {c[:40]!r}")
    bad = np.array([v is not None and not 0 <= v <= hi for v in values], dtype=bool)
    if bad.any():
        _out_of_range(path, col.header, cells, bad)
    kept = [fill if v is None or b else v for v, b in zip(values, bad.tolist(), strict=True)]
    return np.array(kept, dtype=np.int64 if integer else np.float64)


def read_csv(
    path: Path, columns: dict[str, Col], strings: StringTable, allow_empty: bool = False
) -> dict[str, np.ndarray]:
    """Columns of a CSV file as numpy arrays, keyed as in `columns`.

    Times become int64 ns (absent: -1), ints int64 (absent: -1), floats float64 (absent:
    NaN), strings codes into `strings` (absent: -1); a number out of range (negative, above
    its column's `hi`, beyond the times `event_times` accepts) is read as absent with a
    warning. An optional column missing from the
    header is filled with its absent value. Raises InputError for an empty or header-only
    file (unless `allow_empty`), missing required columns, rows with the wrong number of
    cells and cells that are not numbers where numbers are declared.
    """
    required = [c.header for c in columns.values() if c.required]
    table = side_files.read_csv(path, required, allow_empty, strict=True)
    header, rows = table.header, table.rows
    out: dict[str, np.ndarray] = {}
    for key, col in columns.items():
        cells = _column(header, rows, col.header)
        if col.type == TIME_US:
            out[key] = _times(path, col.header, cells)
        elif col.type in (INT, FLOAT):
            out[key] = _numbers(path, col, cells)
        else:
            codes = np.array([-1 if c in ABSENT else strings.intern(c) for c in cells], np.int32)
            out[key] = codes
    return _rows_with_times(path, columns, out)


def _rows_with_times(
    path: Path, columns: dict[str, Col], out: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The rows that have every required time: a row without one (absent, or out of range)
    cannot be placed, and its -1 would pass for a time in sums and differences."""
    needed = [k for k, c in columns.items() if c.required and c.type == TIME_US]
    lacking = np.zeros(len(next(iter(out.values()))) if out else 0, dtype=bool)
    for k in needed:
        lacking |= out[k] < 0
    if not lacking.any():
        return out
    names = ", ".join(columns[k].header for k in needed)
    if lacking.all():
        raise InputError(path, f"no row has a usable {names}")
    notices.warn(
        path, f"{int(lacking.sum())} row(s) without a usable {names} left out "
        f"(the first: row {_first(lacking) + 2})",
    )  # fmt: skip
    return {k: v[~lacking] for k, v in out.items()}


def _column(header: list[str], rows: Sequence[list[str]], name: str) -> list[str]:
    if name not in header:
        return [""] * len(rows)
    j = header.index(name)
    return [row[j] for row in rows]
