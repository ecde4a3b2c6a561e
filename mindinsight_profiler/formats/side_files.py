"""Robust reading of the small CSV, text and JSON side files of profiler exports.

MindSpore and Ascend (torch_npu) write them in many versions, and fixtures are hand-edited:
they come with CRLF or LF line ends, a BOM, trailing tabs, multi-line quoted cells, JSON
inside quoted cells, a summary row at the end, and sometimes are cut short. Every problem
becomes one `InputError` naming the file, the row and the column, so a user learns which
file to regenerate.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.numbers import NumberFormatError, json_us_to_ns

#: Files larger than this are not MindSpore side files; refusing them bounds memory.
MAX_SIDE_FILE_BYTES = 512 << 20


def read_text(path: Path) -> str:
    """The file's text (UTF-8, BOM dropped), or InputError if it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_SIDE_FILE_BYTES:
            raise InputError(path, f"file too large for a profiler side file ({size} bytes)")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (byte {exc.start})") from None


class CsvTable:
    """A CSV file as named string columns; numeric accessors raise InputError with the row."""

    def __init__(self, path: Path, header: list[str], rows: list[list[str]]) -> None:
        self.path = path
        self.header = header
        self.rows = rows
        self._index = {name: i for i, name in enumerate(header)}

    def __len__(self) -> int:
        return len(self.rows)

    def has(self, name: str) -> bool:
        return name in self._index

    def text(self, name: str) -> list[str]:
        i = self._index[name]
        return [r[i] for r in self.rows]

    def numbers(self, name: str, dtype: str = "float64", blank: float | None = None) -> np.ndarray:
        """Column `name` parsed as numbers; `blank` (if given) stands for empty cells."""
        return parse_numbers(self.path, self.text(name), f"column {name!r}, row", dtype, blank, 2)

    def select(self, keep: np.ndarray) -> CsvTable:
        """The same table with only the rows where `keep` is true."""
        rows = [r for r, k in zip(self.rows, keep.tolist(), strict=True) if k]
        return CsvTable(self.path, self.header, rows)


def read_csv(
    path: Path, required: Iterable[str], allow_empty: bool = False, strict: bool = False
) -> CsvTable:
    """Read a CSV with a header row; checks required columns and equal row widths.

    Cells are stripped (time columns of the Ascend export end with a TAB) and blank rows
    dropped. `strict` rejects malformed quoting instead of reading it leniently.
    """
    try:
        text = read_text(path)
    except InputError as exc:
        raise InputError(path, f"unreadable CSV: {exc.problem}") from None
    try:
        reader = csv.reader(io.StringIO(text, newline=""), strict=strict)
        records = [[c.strip() for c in r] for r in reader]
    except csv.Error as exc:
        raise InputError(path, f"unreadable CSV: {exc}") from None
    records = [r for r in records if any(r)]
    if not records:
        raise InputError(path, "the file is empty (no header)")
    header, rows = records[0], records[1:]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            path, f"missing columns: {', '.join(missing)} (the header has {header[:12]})"
        )
    for n, row in enumerate(rows):
        if len(row) != len(header):
            raise InputError(
                path,
                f"row {n + 2}: {len(row)} cells where the header has {len(header)}"
                " (a garbage or truncated row)",
            )
    if not rows and not allow_empty:
        raise InputError(path, "no data rows (header only)")
    return CsvTable(path, header, rows)


def read_json(path: Path) -> Any:
    """A whole JSON document (these side files are small); InputError says where it breaks."""
    text = read_text(path)
    if not text.strip():
        raise InputError(path, "the file is empty")
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}") from None


def read_number_lines(path: Path, min_fields: int) -> list[list[str]]:
    """Whitespace-separated lines (blank lines skipped), each with at least `min_fields`."""
    lines = [ln.split() for ln in read_text(path).splitlines()]
    out = []
    for n, fields in enumerate(lines):
        if not fields:
            continue
        if len(fields) < min_fields:
            raise InputError(path, f"line {n + 1}: expected {min_fields} fields, got {fields}")
        out.append(fields)
    if not out:
        raise InputError(path, "the file is empty")
    return out


def parse_numbers(
    path: Path,
    cells: list[str],
    what: str,
    dtype: str = "float64",
    blank: float | None = None,
    first: int = 1,
) -> np.ndarray:
    """Cells as a numeric array; InputError names the first cell that is not a finite number.

    `what` and `first` describe the cells for the message ("line", 1 -> "line 1: ...").
    """
    integer = np.dtype(dtype).kind in "iu"
    out = np.empty(len(cells), dtype=dtype)
    for i, cell in enumerate(cells):
        if cell == "" and blank is not None:
            out[i] = blank
            continue
        try:
            value = int(cell) if integer else float(cell)
            if not integer and not np.isfinite(value):
                raise ValueError
            out[i] = value
        except (ValueError, OverflowError):
            raise InputError(path, f"{what} {i + first}: not a number: {cell[:40]!r}") from None
    return out


def event_times_ns(path: Path, raw: list[bytes], what: str) -> np.ndarray:
    """`ts`/`dur` of trace events, in us as numbers or strings, to ns; InputError if not."""
    try:
        return json_us_to_ns(raw)
    except NumberFormatError as exc:
        raise InputError(
            path, f"event {exc.index}: {what} is not a number: {exc.text[:40]!r}"
        ) from None


def decode_event_array(path: Path, decoder: msgspec.json.Decoder, what: str) -> list[Any]:
    """Decode a file holding a JSON array of trace events; one InputError if it is not."""
    text = read_text(path)
    if not text.strip():
        raise InputError(path, "the file is empty")
    try:
        return list(decoder.decode(text))
    except msgspec.ValidationError as exc:
        raise InputError(path, f"not {what}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON (truncated?): {exc}") from None


def complete_event_times(path: Path, events: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(start_ns, dur_ns) of complete events whose `ts`/`dur` are raw JSON numbers or strings."""
    start = event_times_ns(path, [bytes(e.ts) for e in events], "ts")
    dur = event_times_ns(path, [bytes(e.dur) for e in events], "dur")
    if (dur < 0).any():
        raise InputError(path, f"event {int(np.argmax(dur < 0))}: negative dur")
    return start, dur
