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
from mindinsight_profiler.formats import notices, phases, utf8
from mindinsight_profiler.formats.event_times import (
    MAX_TIME_NS,
    MISSING,
    NOT_NUMBER,
    judge,
    settle,
    times_from_text,
)

#: Files larger than this are not MindSpore side files; refusing them bounds memory.
MAX_SIDE_FILE_BYTES = 512 << 20
#: Largest number taken from a side file (a count, an id, a size; times are bounded further
#: by `to_ns`).
MAX_NUMBER = 2**62
#: What a document nested beyond the decoders' depth limit (msgspec's, Python's) is.
TOO_DEEP = "JSON nested too deeply to read (thousands of levels): not profiler output"

_ANY_JSON = msgspec.json.Decoder()


def read_text(path: Path) -> str:
    """The file's text (UTF-8, BOM dropped; a few bytes that are not UTF-8 read as U+FFFD,
    with a warning), or InputError if it cannot be read or is not UTF-8 text."""
    try:
        size = path.stat().st_size
        if size > MAX_SIDE_FILE_BYTES:
            raise InputError(path, f"file too large for a profiler side file ({size} bytes)")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        text, replaced = utf8.decoded(data)
    except utf8.NotText as exc:
        raise InputError(path, str(exc)) from None
    if replaced:
        notices.warn(path, utf8.replaced_warning(replaced))
    return text


def decode_json(path: Path, data: bytes | str, decoder: msgspec.json.Decoder | None = None) -> Any:
    """`data` decoded (by `decoder`, else to Python objects). Bytes that are not UTF-8 are read
    as U+FFFD with a warning; nesting too deep for the decoder is an InputError. msgspec's own
    errors (invalid JSON, wrong types) pass through for the caller to word."""
    try:
        return (decoder or _ANY_JSON).decode(data)
    except UnicodeDecodeError:
        fixed, replaced = utf8.repaired(
            data.encode("utf-8", "replace") if isinstance(data, str) else data
        )
        notices.warn(path, utf8.replaced_warning(replaced))
        return decode_json(path, fixed, decoder)
    except RecursionError:
        raise InputError(path, TOO_DEEP) from None


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
        return decode_json(path, text)
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
    """Cells as a numeric array; InputError names the first cell that is not a finite number
    within [0, MAX_NUMBER] (every number these files hold is a count, an id, a size, a time
    or a share: none is negative; `blank` stands for empty cells).

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
        except (ValueError, OverflowError):
            raise InputError(path, f"{what} {i + first}: not a number: {cell[:40]!r}") from None
        if not 0 <= value <= MAX_NUMBER:
            raise InputError(path, f"{what} {i + first}: out of range: {cell[:40]!r}")
        out[i] = value
    return out


def to_ns(path: Path, values: np.ndarray, unit_ns: float, what: str) -> np.ndarray:
    """Times in a unit of `unit_ns` ns (1000 for us, 1e6 for ms) as int64 ns, rounded;
    InputError naming the first beyond the times `event_times` accepts."""
    ns = np.asarray(values, dtype=np.float64) * unit_ns
    bad = ~((ns >= 0) & (ns <= MAX_TIME_NS))  # NaN is bad too
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(path, f"{what}: a time out of range: {float(values[i])!r}")
    return np.rint(ns).astype(np.int64)


def event_times_ns(path: Path, raw: list[bytes], what: str) -> np.ndarray:
    """Times in us (JSON numbers or strings) to ns; InputError unless each is a number within
    the range of times (`event_times`)."""
    values, problem = times_from_text([bytes(r) for r in raw], quoted=True)
    if problem.any():
        i = int(np.argmax(problem != 0))
        text = bytes(raw[i])[:40]
        why = "is not a number" if problem[i] in (MISSING, NOT_NUMBER) else "is out of range"
        raise InputError(path, f"event {i}: {what} {why}: {text!r}")
    return values


def decode_event_array(path: Path, decoder: msgspec.json.Decoder, what: str) -> list[Any]:
    """Decode a file holding a JSON array of trace events; one InputError if it is not."""
    text = read_text(path)
    if not text.strip():
        raise InputError(path, "the file is empty")
    try:
        return list(decode_json(path, text, decoder))
    except msgspec.ValidationError as exc:
        raise InputError(path, f"not {what}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON (truncated?): {exc}") from None


def complete_events(path: Path, events: list[Any]) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """(complete events, start_ns, dur_ns) of decoded trace events whose `ts`/`dur` are raw
    JSON numbers or strings: the `X` events and the ranges of matched `B`/`E` pairs, less
    those whose times are unusable (left out with a warning; an error when they are most)."""
    complete = [e for e in events if e.ph == "X"]
    pairs, unmatched = phases.paired([e for e in events if e.ph in phases.PHASES])
    complete += [
        msgspec.structs.replace(b, ph="X", dur=msgspec.Raw(phases.us_text(ns))) for b, ns in pairs
    ]
    if unmatched:
        notices.warn(path, phases.unmatched_warning(unmatched))
    unknown = phases.unknown([e.ph for e in events])
    if unknown:
        notices.warn(path, phases.unknown_warning(unknown))
    start, ts_problem = times_from_text([bytes(e.ts) for e in complete], quoted=True)
    dur, dur_problem = times_from_text([bytes(e.dur) for e in complete], True, quoted=True)

    def describe(i: int, what: str) -> str:
        value = bytes(getattr(complete[i], what))[:40].decode("utf-8", "replace")
        return f" (name {str(complete[i].name)[:80]!r}, {what} {value})"

    keep, bad = judge({"ts": ts_problem, "dur": dur_problem}, describe)
    settle(path, bad, len(complete), "complete events")
    if bad.total:
        complete = [e for e, k in zip(complete, keep.tolist(), strict=True) if k]
        start, dur = start[keep], dur[keep]
    return complete, start, dur
