"""Give memory that Python and numpy freed back to the operating system.

glibc serves allocations below its (adaptive, up to 32 MB) mmap threshold from the heap and
keeps freed heap pages for reuse, so after a large trace's per-chunk column pieces are
merged and freed, the process would keep their pages resident for the rest of its life:
the peak of the next stage would then be the model plus the freed pieces. `malloc_trim`
returns those pages. Elsewhere (musl, macOS) it is a no-op.

`task_heap` undoes, for the duration of one analysis, an environment that fixed glibc's
thresholds (`MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_`): Dask's nanny starts every
worker with `MALLOC_TRIM_THRESHOLD_=65536`, which also turns off the adaptive mmap
threshold. Then every array over 128 KiB is a fresh `mmap` and every free an `munmap`, and
the analysis faults its pages in again and again: measured on three x3 ranks, twice the
system CPU (1.2 s against 0.6 s) and 20 % more CPU in all than the same work in a plain
process. Inside `task_heap` the thresholds are what the adaptive ones grow to (mmap above
32 MiB, trim above twice that: the task's peak RSS is then the pool's, 255 MB for an x3
rank, where a trim threshold of 256 MiB saved a little more system time for 7 MB more), the
freed pages go back to the OS when the task ends (`malloc_trim`) and the environment's
values are set again, so the worker is as lean between tasks as its owner asked.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: mallopt parameters (glibc malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: glibc's defaults, and the largest mmap threshold its adaptive rule reaches (64-bit).
DEFAULT_TRIM_THRESHOLD = 128 << 10
DEFAULT_MMAP_THRESHOLD = 128 << 10
TASK_MMAP_THRESHOLD = 32 << 20
TASK_TRIM_THRESHOLD = 64 << 20
#: The environment variables that fix glibc's thresholds (and stop it adapting them).
FIXED_BY = {"MALLOC_TRIM_THRESHOLD_": M_TRIM_THRESHOLD, "MALLOC_MMAP_THRESHOLD_": M_MMAP_THRESHOLD}


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library, loaded once. glibc's own name first: `ctypes.util.find_library` runs
    `ldconfig -p` in a subprocess (4 ms each, three times at every start of the CLI)."""
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # pragma: no cover - not glibc: look it up (slow, once)
        from ctypes.util import find_library

        name = find_library("c")
        try:
            return ctypes.CDLL(name) if name else None
        except OSError:
            return None


def libc_function(
    name: str, *argtypes: type, restype: type = ctypes.c_int
) -> Callable[..., Any] | None:
    """The C library's function `name`, or None where it has none (not glibc, or older)."""
    try:
        fn = getattr(_libc(), name)
    except AttributeError:  # pragma: no cover - not glibc, or no C library at all
        return None
    fn.argtypes = list(argtypes)
    fn.restype = restype
    return fn


_TRIM = libc_function("malloc_trim", ctypes.c_size_t)
_MALLOPT = libc_function("mallopt", ctypes.c_int, ctypes.c_int)
_tasks = 0
_tasks_lock = threading.Lock()


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost",
    )]  # fmt: skip


_MALLINFO2 = libc_function("mallinfo2", restype=_MallInfo2)  # glibc 2.33 and later
#: Free heap below this is left as it is. A trim hands pages back that the next stage faults
#: in again: worth it when a stage of a large trace has freed hundreds of MB (the 10 GB
#: trace's peak), not for smaller ones. At 64 MB, the trims of x3 ranks (227k events) cost
#: Dask's workers, whose heap keeps 64 MiB free during a task (`task_heap`), 20 % more CPU:
#: 64 ranks took 18.5-19.1 s against 16.1 s at 256 MB (the pool: 14.0 s); the x300 peak
#: moved from 2,905 to 2,934 MB and a cold x15 got no slower (1.69-1.76 s).
MIN_FREE_TO_TRIM = 256 << 20


def release_free_memory(force: bool = False) -> None:
    """Return freed heap pages to the OS (call after freeing much memory). Nothing happens
    when less than MIN_FREE_TO_TRIM bytes of the heap are free, unless `force` (a task's
    end: the worker gives back all it can before it idles)."""
    if _TRIM is None:
        return
    if not force and _MALLINFO2 is not None and _MALLINFO2().fordblks < MIN_FREE_TO_TRIM:
        return
    _TRIM(0)


def fixed_thresholds(environ: dict[str, str] | os._Environ[str]) -> dict[int, int]:
    """{mallopt parameter: value} the environment fixed (none: glibc adapts them itself;
    an unparsable value is ignored by glibc too)."""
    found = {}
    for name in FIXED_BY:
        value = environ.get(name, "").strip()
        if value.isdigit():
            found[FIXED_BY[name]] = int(value)
    return found


def _set(thresholds: dict[int, int]) -> None:
    if _MALLOPT is not None:
        for param, value in thresholds.items():
            _MALLOPT(param, value)


@contextlib.contextmanager
def task_heap() -> Iterator[None]:
    """Run one large task (a rank's analysis) with glibc's adaptive thresholds even where
    the environment fixed them (see module doc); a no-op where it did not. Tasks that
    overlap in threads share it: the environment's values come back when the last ends."""
    global _tasks
    fixed = fixed_thresholds(os.environ)
    if not fixed or _MALLOPT is None:
        yield
        return
    with _tasks_lock:
        _tasks += 1
        if _tasks == 1:
            _set({M_MMAP_THRESHOLD: TASK_MMAP_THRESHOLD, M_TRIM_THRESHOLD: TASK_TRIM_THRESHOLD})
    try:
        yield
    finally:
        with _tasks_lock:
            _tasks -= 1
            if _tasks == 0:
                release_free_memory(force=True)
                defaults = {M_TRIM_THRESHOLD: DEFAULT_TRIM_THRESHOLD,
                            M_MMAP_THRESHOLD: DEFAULT_MMAP_THRESHOLD}  # fmt: skip
                _set({**defaults, **fixed})
