"""A table's columns in one file of the cache, written once and mapped back read-only.

One `.npy` file per column made about 60 files per entry: on the small inputs of a
MindSpore folder, opening and closing them was most of an analysis (0.33 ms per file here),
and a 1,000-rank workspace held 60,000 files. A table is now one file: its columns' raw
bytes one after the other, each at a 64-byte aligned offset, described in the manifest
(`dtype`, `shape`, `offset`). Reopening maps the file once and makes each column a plain
read-only ndarray view of the mapping: no copy, no per-column open, no memmap bookkeeping
per slice.
"""

from __future__ import annotations

import io
import mmap
import zlib
from pathlib import Path
from typing import Any

import numpy as np

_ALIGN = 64
_PAD = bytes(_ALIGN)


class _Checksummed(io.RawIOBase):
    """A file being written that sums (CRC-32) and counts what passes through it, so that
    the manifest's record is not computed by reading gigabytes back."""

    def __init__(self, f: io.BufferedWriter) -> None:
        self.f = f
        self.crc = 0
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.crc = zlib.crc32(view, self.crc)
        self.size += view.nbytes
        return self.f.write(view)


def write_table(path: Path, columns: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """Write `columns` into one file: (its file record {size, crc32}, the columns' layout
    {name: {dtype, shape, offset}}). Object columns are refused: the cache holds numbers."""
    layout: dict[str, dict[str, Any]] = {}
    with open(path, "wb") as f:
        out = _Checksummed(f)
        for name, values in columns.items():
            values = np.ascontiguousarray(values)
            if values.dtype.hasobject:
                raise TypeError(f"column {name!r} holds Python objects")
            if out.size % _ALIGN:
                out.write(_PAD[: _ALIGN - out.size % _ALIGN])
            layout[name] = {"dtype": values.dtype.str, "shape": list(values.shape),
                            "offset": out.size}  # fmt: skip
            if values.nbytes:
                out.write(values.reshape(-1).view(np.uint8))
    return {"size": out.size, "crc32": out.crc}, layout


def crc32_of(path: Path) -> int:
    crc = 0
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            crc = zlib.crc32(chunk, crc)
    return crc


def map_table(path: Path, layout: dict[str, dict[str, Any]]) -> dict[str, np.ndarray]:
    """The columns of a table file as read-only views of one mapping of it. Raises
    ValueError when the layout does not fit the file (a damaged manifest or file)."""
    size = path.stat().st_size
    if size == 0:
        buffer: Any = b""
    else:
        with open(path, "rb") as f:
            buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    columns = {}
    for name, spec in layout.items():
        dtype = np.dtype(spec["dtype"])
        shape = tuple(int(n) for n in spec["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        offset = int(spec["offset"])
        if dtype.hasobject or offset < 0 or offset + count * dtype.itemsize > size:
            raise ValueError(f"{path.name}: column {name!r} does not fit the file")
        columns[name] = np.frombuffer(buffer, dtype, count, offset).reshape(shape)
    return columns


def is_mapped(values: np.ndarray) -> bool:
    """Whether `values` is a view of a mapped table file (it was reopened, not recomputed)."""
    base: Any = values
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return isinstance(base, mmap.mmap)
