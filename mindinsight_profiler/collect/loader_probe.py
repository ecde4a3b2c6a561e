"""DataLoader probe: how long each training step waited for its batch.

The PyTorch counterpart of MindData's queue profiling. Wrapping the loader
(`for batch in profiler.wrap(loader)`) is the only change to the user's code. Per fetch it
records the profiler's current step, the wait (the time `next()` took) and, for
multi-process loaders, how many batches were already ready (a near-empty queue at every
fetch means the workers cannot keep up).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def loader_config(loader: Any) -> dict[str, Any]:
    """The settings that decide input throughput (absent ones are None)."""
    return {
        "num_workers": getattr(loader, "num_workers", None),
        "prefetch_factor": getattr(loader, "prefetch_factor", None),
        "pin_memory": getattr(loader, "pin_memory", None),
        "batch_size": getattr(loader, "batch_size", None),
        "persistent_workers": getattr(loader, "persistent_workers", None),
        "type": type(loader).__name__,
    }


def ready_batches(iterator: Any) -> int | None:
    """Batches a multi-process DataLoader iterator holds ready, or None if it cannot tell.

    Reads torch's private iterator state (the result queue and the reorder buffer);
    anything unexpected yields None rather than a wrong number.
    """
    queue = getattr(iterator, "_data_queue", None)
    tasks = getattr(iterator, "_task_info", None)
    if queue is None or tasks is None:
        return None
    try:
        buffered = sum(1 for v in tasks.values() if len(v) == 2)
        return int(queue.qsize()) + buffered
    except (NotImplementedError, AttributeError, TypeError, OSError):
        return None


class ProbedLoader:
    """An iterable that times every fetch of the wrapped loader."""

    def __init__(self, loader: Iterable[Any], current_step: Callable[[], int]) -> None:
        self.loader = loader
        self.current_step = current_step
        self.config = loader_config(loader)
        self.rows: list[tuple[int, int, int]] = []  # (step, wait_ns, ready or -1)

    def __len__(self) -> int:
        return len(self.loader)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        iterator = iter(self.loader)
        while True:
            ready = ready_batches(iterator)
            step = self.current_step()
            start = time.perf_counter_ns()
            try:
                batch = next(iterator)
            except StopIteration:
                return
            self.rows.append((step, time.perf_counter_ns() - start, -1 if ready is None else ready))
            yield batch

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "columns": ["step", "wait_ns", "ready_batches"],
            "rows": [list(r) for r in self.rows],
        }
