"""`task_heap`: glibc's adaptive thresholds for one analysis where the environment fixed them
(Dask's nanny), the environment's values restored afterwards; nothing touched elsewhere.

mallopt is replaced by a recorder: what matters is which values are set, in which order.
"""

from __future__ import annotations

import threading

import pytest

from mindinsight_profiler.util import heap
from mindinsight_profiler.util.heap import (
    M_MMAP_THRESHOLD,
    M_TRIM_THRESHOLD,
    TASK_MMAP_THRESHOLD,
    TASK_TRIM_THRESHOLD,
    fixed_thresholds,
    task_heap,
)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []

    def mallopt(param: int, value: int) -> int:
        seen.append((param, value))
        return 1

    monkeypatch.setattr(heap, "_MALLOPT", mallopt)
    monkeypatch.setattr(heap, "_TRIM", lambda pad: seen.append((0, pad)) or 1)
    for name in heap.FIXED_BY:
        monkeypatch.delenv(name, raising=False)
    return seen


TASK = [(M_MMAP_THRESHOLD, TASK_MMAP_THRESHOLD), (M_TRIM_THRESHOLD, TASK_TRIM_THRESHOLD)]


def test_dask_environment_gets_adaptive_values_then_its_own(
    calls: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    with task_heap():
        assert calls == TASK
    # freed pages returned (malloc_trim), then the nanny's trim threshold and glibc's
    # default mmap threshold (which the fixed trim threshold had frozen) set again
    assert calls[2:] == [(0, 0), (M_TRIM_THRESHOLD, 65536), (M_MMAP_THRESHOLD, 128 << 10)]


def test_plain_environment_is_left_alone(calls: list[tuple[int, int]]) -> None:
    with task_heap():
        pass
    assert calls == []  # the pool: glibc adapts by itself


def test_restored_after_a_failing_task(
    calls: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "262144")
    with pytest.raises(ValueError), task_heap():
        raise ValueError("the rank failed")
    assert calls[-1] == (M_MMAP_THRESHOLD, 262144)


def test_overlapping_tasks_restore_once_at_the_end(
    calls: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with task_heap():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with task_heap():
        pass
    assert calls == TASK  # the other task still runs: nothing restored yet
    release.set()
    thread.join(10)
    assert calls[2:] == [(0, 0), (M_TRIM_THRESHOLD, 65536), (M_MMAP_THRESHOLD, 128 << 10)]


def test_fixed_thresholds_reads_what_glibc_reads() -> None:
    assert fixed_thresholds({}) == {}
    assert fixed_thresholds({"MALLOC_TRIM_THRESHOLD_": "65536"}) == {M_TRIM_THRESHOLD: 65536}
    assert fixed_thresholds({"MALLOC_TRIM_THRESHOLD_": "lots", "OTHER": "1"}) == {}


def test_release_trims_only_a_large_free_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trim gives pages back that the next stage faults in again: worth it only when much
    is free (small trims cost a cold x15 0.07 s of 1.8 s, and Dask's workers 20 % more CPU)."""
    trims: list[int] = []
    monkeypatch.setattr(heap, "_TRIM", lambda pad: trims.append(pad) or 1)
    free = {"bytes": heap.MIN_FREE_TO_TRIM - 1}

    class Info:
        @property
        def fordblks(self) -> int:
            return free["bytes"]

    monkeypatch.setattr(heap, "_MALLINFO2", Info)
    heap.release_free_memory()
    assert trims == []
    free["bytes"] = heap.MIN_FREE_TO_TRIM
    heap.release_free_memory()
    assert trims == [0]
    monkeypatch.setattr(heap, "_MALLINFO2", None)  # no mallinfo2 (older glibc): always trim
    heap.release_free_memory()
    assert trims == [0, 0]


def test_mallinfo2_reads_this_heap() -> None:
    if heap._MALLINFO2 is None:
        pytest.skip("not glibc 2.33 or later")
    info = heap._MALLINFO2()
    assert info.arena > 0 and info.fordblks <= info.arena
