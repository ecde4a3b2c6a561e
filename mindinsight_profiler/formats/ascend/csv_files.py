"""A small, strict CSV reader for the Ascend profiler's text export.

The export has traps a plain `csv.DictReader` walks into: time columns end with a TAB
(`1736405443881410.320\t`), lines end with CRLF, and quoted call stacks span several lines
(`a;\\r\\nb`). Rows are read by `side_files.read_csv` (shared with the MindSpore readers:
stripped cells, strict quoting, one `InputError` per defect); this module declares the
columns and converts each at once with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import side_files
from mindinsight_profiler.formats.numbers import NumberFormatError, us_text_to_ns
from mindinsight_profiler.model.strings import StringTable

#: Cells that mean "no value" in the export.
ABSENT = frozenset({"", "N/A", "NA", "-", "None", "null"})

#: Column types: exact microsecond text -> int64 ns, integer, float, interned string.
TIME_US, INT, FLOAT, STR = "time_us", "int", "float", "str"


@dataclass(frozen=True)
class Col:
    """One declared column: its header in the file, its type, and whether it must exist."""

    header: str
    type: str
    required: bool = True


def _times(path: Path, name: str, cells: list[str]) -> np.ndarray:
    absent = np.fromiter((c in ABSENT for c in cells), dtype=bool, count=len(cells))
    texts = [
        b"0" if a else c.encode("ascii", "replace") for c, a in zip(cells, absent, strict=True)
    ]
    try:
        values = us_text_to_ns(texts)
    except NumberFormatError as exc:
        raise InputError(
            path, f"row {exc.index + 2}: {name} is not a number: {exc.text!r}"
        ) from None
    values[absent] = -1
    return values


def _numbers(path: Path, name: str, cells: list[str], dtype: str) -> np.ndarray:
    fill = "-1" if dtype == INT else "nan"
    texts = [fill if c in ABSENT else c for c in cells]
    try:
        if dtype == INT:
            return np.array([int(float(t)) if "." in t or "e" in t else int(t) for t in texts])
        return np.array(texts, dtype=np.float64)
    except (ValueError, OverflowError):
        bad = next(i for i, t in enumerate(texts) if not _is_number(t))
        raise InputError(path, f"row {bad + 2}: {name} is not a number: {texts[bad]!r}") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_csv(
    path: Path, columns: dict[str, Col], strings: StringTable, allow_empty: bool = False
) -> dict[str, np.ndarray]:
    """Columns of a CSV file as numpy arrays, keyed as in `columns`.

    Times become int64 ns (absent: -1), ints int64 (absent: -1), floats float64 (absent:
    NaN), strings codes into `strings` (absent: -1). An optional column missing from the
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
            out[key] = _numbers(path, col.header, cells, col.type).astype(
                np.int64 if col.type == INT else np.float64
            )
        else:
            codes = np.array([-1 if c in ABSENT else strings.intern(c) for c in cells], np.int32)
            out[key] = codes
    return out


def _column(header: list[str], rows: Sequence[list[str]], name: str) -> list[str]:
    if name not in header:
        return [""] * len(rows)
    j = header.index(name)
    return [row[j] for row in rows]
