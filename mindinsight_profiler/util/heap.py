"""Give memory that Python and numpy freed back to the operating system.

glibc serves allocations below its (adaptive, up to 32 MB) mmap threshold from the heap and
keeps freed heap pages for reuse, so after a large trace's per-chunk column pieces are
merged and freed, the process would keep their pages resident for the rest of its life:
the peak of the next stage would then be the model plus the freed pieces. `malloc_trim`
returns those pages. Elsewhere (musl, macOS) it is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable


def _trim_function() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _trim_function()


def release_free_memory() -> None:
    """Return freed heap pages to the OS (milliseconds; call after freeing much memory)."""
    if _TRIM is not None:
        _TRIM(0)
