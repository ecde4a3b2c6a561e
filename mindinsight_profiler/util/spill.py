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
import logging
import mmap
import os
import tempfile
from typing import IO, Any, TypeVar, cast

import numpy as np

from mindinsight_profiler.errors import ResourceError

log = logging.getLogger(__name__)

#: Folder of the spill files (default: the system's temporary folder).
SPILL_DIR_ENV = "MINDINSIGHT_SPILL_DIR"

#: Bytes written to a file per `write` call, so that a spill never copies a whole array.
_WRITE_BYTES = 16 << 20


def spill_dir() -> str:
    """The folder spill files are made in."""
    return os.environ.get(SPILL_DIR_ENV) or tempfile.gettempdir()


def _unwritable(exc: OSError) -> ResourceError:
    return ResourceError(
        f"cannot write a spill file for a large trace in {spill_dir()}: "
        f"{exc.strerror or exc}; set {SPILL_DIR_ENV} to a folder on a disk with free space "
        "(about the size of the trace's columns: 1.8 GB for 10 GB of JSON)"
    )


class SpillFile:
    """One array written piece by piece to an unlinked file, then mapped (`array()`).

    A folder that cannot take the file (missing, read-only, full) raises `ResourceError`
    naming it and the way out."""

    def __init__(self, dtype: np.dtype | str) -> None:
        self.dtype = np.dtype(dtype)
        self.length = 0  # elements written so far
        try:
            # held open until mapped or closed: the file has no name to reopen it by
            self._file: IO[bytes] | None = tempfile.TemporaryFile(dir=spill_dir())  # noqa: SIM115
        except OSError as exc:
            raise _unwritable(exc) from None

    def append(self, values: np.ndarray) -> None:
        """Write `values` (cast to the file's dtype) after what is already there."""
        if self._file is None:
            raise ValueError("the spill file is already mapped")
        flat = np.ascontiguousarray(values, dtype=self.dtype).reshape(-1)
        view = flat.data.cast("B")
        try:
            for start in range(0, len(view), _WRITE_BYTES):
                self._file.write(view[start : start + _WRITE_BYTES])
        except OSError as exc:
            self.close()
            raise _unwritable(exc) from None
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
            if self.length == 0:
                return np.empty(0, self.dtype)
            try:
                file.flush()
                size = self.length * self.dtype.itemsize
                mapping = mmap.mmap(file.fileno(), size, mmap.MAP_PRIVATE)
            except OSError as exc:
                raise _unwritable(exc) from None
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


#: How many MB of a trace's columns stay on the heap before they spill (0: spill all).
SPILL_MB_ENV = "MINDINSIGHT_SPILL_MB"


def spill_after_bytes(default_mb: float) -> int:
    """`MINDINSIGHT_SPILL_MB` in bytes; a value that is not a number of MB >= 0 is reported
    (a warning) and the default used, rather than failing every import of the reader."""
    text = os.environ.get(SPILL_MB_ENV, "").strip()
    try:
        mb = float(text) if text else default_mb
        if not mb >= 0:  # negative or NaN
            raise ValueError(text)
    except ValueError:
        log.warning("%s=%r is not a number of MB >= 0; using %s", SPILL_MB_ENV, text, default_mb)
        mb = default_mb
    return int(min(mb, 2.0**50) * 2**20)
