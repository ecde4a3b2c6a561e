"""Arrays kept in unlinked temporary files instead of on the heap, for traces too large to hold.

Why: the columns of a 10 GB trace are about 1.8 GB. On the heap they are memory the kernel
can never take back (there is rarely swap), so the analysis would need that much RAM on top
of its working set. In a file mapping they are page cache: the kernel keeps the pages in
use, drops those that are not and reads them back on the next touch, and a container's
memory limit counts them but reclaims them before it kills anything. The analysis then
needs memory for its working set only.

A spill file is created unlinked (`tempfile.TemporaryFile`, O_TMPFILE where the kernel has
it) in `spill_dir()`, so nothing is left behind however the process ends; its mapping keeps
the data alive until the last view of it is gone. The mapping is private (copy-on-write):
code that writes into a spilled array gets private pages and the file never changes, so a
spilled array behaves like the array it replaced.

A folder on tmpfs gains nothing (its pages are memory too): `MINDINSIGHT_SPILL_DIR` names
another folder where the system's temporary folder is a tmpfs.
"""

from __future__ import annotations

import dataclasses
import mmap
import os
import tempfile
from typing import IO, Any, TypeVar, cast

import numpy as np

#: Folder of the spill files (default: the system's temporary folder).
SPILL_DIR_ENV = "MINDINSIGHT_SPILL_DIR"

#: Bytes written to a file per `write` call, so that a spill never copies a whole array.
_WRITE_BYTES = 16 << 20


def spill_dir() -> str:
    """The folder spill files are made in."""
    return os.environ.get(SPILL_DIR_ENV) or tempfile.gettempdir()


class SpillFile:
    """One array written piece by piece to an unlinked file, then mapped (`array()`)."""

    def __init__(self, dtype: np.dtype | str) -> None:
        self.dtype = np.dtype(dtype)
        self.length = 0  # elements written so far
        # held open until mapped or closed: the file has no name to reopen it by
        self._file: IO[bytes] | None = tempfile.TemporaryFile(dir=spill_dir())  # noqa: SIM115

    def append(self, values: np.ndarray) -> None:
        """Write `values` (cast to the file's dtype) after what is already there."""
        if self._file is None:
            raise ValueError("the spill file is already mapped")
        flat = np.ascontiguousarray(values, dtype=self.dtype).reshape(-1)
        view = flat.data.cast("B")
        for start in range(0, len(view), _WRITE_BYTES):
            self._file.write(view[start : start + _WRITE_BYTES])
        self.length += len(flat)

    def fill(self, value: float | int, count: int) -> None:
        """Write `count` copies of `value`."""
        block = np.full(min(count, _WRITE_BYTES // max(self.dtype.itemsize, 1)), value, self.dtype)
        left = count
        while left > 0:
            self.append(block[: min(left, len(block))])
            left -= len(block)

    def array(self) -> np.ndarray:
        """The written elements as a copy-on-write mapped array; the file is closed (its
        data lives as long as the array or a view of it)."""
        if self._file is None:
            raise ValueError("the spill file is already mapped")
        file, self._file = self._file, None
        with file:
            file.flush()
            if self.length == 0:
                return np.empty(0, self.dtype)
            mapping = mmap.mmap(file.fileno(), self.length * self.dtype.itemsize, mmap.MAP_PRIVATE)
        return np.frombuffer(mapping, dtype=self.dtype)

    def close(self) -> None:
        """Drop the file without mapping it."""
        if self._file is not None:
            self._file.close()
            self._file = None


def spill(values: np.ndarray) -> np.ndarray:
    """`values` moved to a spill file: an equal mapped array (1-D; other shapes are kept)."""
    if values.ndim != 1 or values.dtype.hasobject:
        return values
    out = SpillFile(values.dtype)
    try:
        out.append(values)
        return out.array()
    finally:
        out.close()


T = TypeVar("T")

#: Arrays at least this large are worth a spill file (smaller ones cost more in faults).
SPILL_MIN_BYTES = 16 << 20


def spill_large(value: T, min_bytes: int | None = None) -> T:
    """`value` with its large 1-D arrays spilled: the array itself, or those among a dict's
    values or a dataclass's fields (one level down); anything else unchanged. For results
    kept while a large trace is analysed (the operator tree, a device timeline).
    `min_bytes`: the smallest array spilled (default `SPILL_MIN_BYTES`)."""
    least = SPILL_MIN_BYTES if min_bytes is None else min_bytes

    def one(item: Any) -> Any:
        if isinstance(item, np.ndarray) and item.nbytes >= least:
            return spill(item)
        return item

    out: Any = value
    if isinstance(value, np.ndarray):
        out = one(value)
    elif isinstance(value, dict):
        out = {key: one(item) for key, item in value.items()}
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: one(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        out = dataclasses.replace(value, **changed)
    return cast(T, out)
