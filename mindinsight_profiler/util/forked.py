"""Compute a value in a forked child process while this process goes on with other work.

For CPU-bound analyses of data this process already holds: the child sees it as it is
(copy-on-write pages, nothing is sent) and sends back only the small result, so on a
machine with a spare core two independent halves of the work take the time of the longer
one. The child can only change the speed: when a fork is unsafe (this process runs other
threads: a server) or impossible (no `fork`, a daemonic pool worker, no memory), or the
child fails in any way, `result()` computes the value here, so errors are raised by this
process exactly as without the child.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from mindinsight_profiler.util.heap import libc_function

T = TypeVar("T")


def fork_is_safe() -> bool:
    """Whether forking now is safe: a platform with fork, and no other thread running (a
    forked child gets only the calling thread, so locks another thread held stay held)."""
    return hasattr(os, "fork") and threading.active_count() == 1


#: prctl(2) option: the signal this process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
_PRCTL = libc_function("prctl", ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                       ctypes.c_ulong)  # fmt: skip


def tie_to_parent(parent_pid: int, parent_end: Connection | None = None) -> None:
    """Called first in a helper process: it must not outlive its parent.

    A parent killed by SIGKILL or the OOM killer runs no cleanup, and a forked helper would
    live on holding what it inherited: the parent's end of their pipe (so its next send
    blocks forever instead of failing) and every file the parent had open, the workspace
    lock of the input among them, so that each later analysis of that input waited on the
    lock for ever (seen: an OOM-killed `analyse` in a memory cgroup). The inherited end is
    closed here, and on Linux the kernel is asked to kill this process when the parent
    dies; one that died already ends it now."""
    if parent_end is not None:
        parent_end.close()
    if _PRCTL is not None:  # Linux; elsewhere the closed pipe end still ends it
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def _child(
    fn: Callable[[], Any], conn: Connection, parent_pid: int, parent_end: Connection
) -> None:
    tie_to_parent(parent_pid, parent_end)
    try:
        message: tuple[bool, Any] = (True, fn())
    except BaseException:  # the parent recomputes it and meets the error itself
        message = (False, None)
    try:
        conn.send(message)
    except Exception:  # an unpicklable result: the parent recomputes it
        conn.send((False, None))
    finally:
        conn.close()


class Forked(Generic[T]):
    """`fn()` started in a forked child (when `use` and a fork is safe); `result()` waits
    for it, or computes it here when there is no child or the child failed."""

    def __init__(self, fn: Callable[[], T], use: bool = True) -> None:
        self._fn = fn
        self._conn: Connection | None = None
        self._proc: Any = None
        if not (use and fork_is_safe()):
            return
        ctx = mp.get_context("fork")
        conn, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(fn, send, os.getpid(), conn), daemon=True)
        try:
            proc.start()
        except (OSError, AssertionError):  # out of memory, or we are a daemonic worker
            conn.close()
            send.close()
            return
        send.close()
        self._conn, self._proc = conn, proc

    @property
    def in_child(self) -> bool:
        """Whether a child process is computing the value."""
        return self._proc is not None

    def result(self) -> T:
        if self._conn is not None:
            try:
                ok, value = self._conn.recv()
            except (EOFError, OSError):  # the child died (killed, out of memory)
                ok, value = False, None
            finally:
                self._conn.close()
                self._proc.join()
                self._conn = self._proc = None
            if ok:
                return value
        return self._fn()
