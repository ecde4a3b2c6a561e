"""Warnings found deep inside a read, gathered for the trace's `meta["warnings"]`.

A reader's helpers (text decoding, number checks, optional metadata files) meet problems
that do not stop the read: bytes that are not UTF-8, an event dropped for a time out of
range, an unreadable optional file. They have no trace to write to, so they call
`warn(path, problem)`; each reader runs inside `collected` (a decorator), which appends what
was gathered, once per message, to the warnings of the trace it returns. A context variable
scopes the gathering to one read, so concurrent reads (threads of a server) never mix.
Outside any read the warning goes to the log.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import ParamSpec

from mindinsight_profiler.model.trace import Trace

log = logging.getLogger(__name__)
P = ParamSpec("P")

_GATHERED: ContextVar[list[str] | None] = ContextVar("reader_warnings", default=None)


def warn(path: str | Path, problem: str) -> None:
    """Record a problem of `path` that the read survives (once per distinct message)."""
    text = f"{path}: {problem}"
    gathered = _GATHERED.get()
    if gathered is None:
        log.warning("%s", text)
    elif text not in gathered:
        gathered.append(text)


@contextmanager
def gathering() -> Iterator[list[str]]:
    """Gather the warnings of the code inside (a nested gathering keeps its own)."""
    gathered: list[str] = []
    token = _GATHERED.set(gathered)
    try:
        yield gathered
    finally:
        _GATHERED.reset(token)


def collected(read: Callable[P, Trace]) -> Callable[P, Trace]:
    """A reader whose gathered warnings end in its trace's `meta["warnings"]`."""

    @functools.wraps(read)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Trace:
        with gathering() as gathered:
            trace = read(*args, **kwargs)
        warnings = trace.meta.get("warnings")
        if not isinstance(warnings, list):
            warnings = trace.meta["warnings"] = []
        warnings.extend(w for w in gathered if w not in warnings)
        return trace

    return wrapper
