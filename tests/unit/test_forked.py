"""util.forked: a child can only change the speed, never the value or the error."""

from __future__ import annotations

import os
import threading

import pytest

from mindinsight_profiler.util.forked import Forked, fork_is_safe

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


_CHILD_CHECK = """
import os
from mindinsight_profiler.util.forked import Forked
job = Forked(lambda: (os.getpid(), list(range(5))))
assert job.in_child, "no child"
pid, values = job.result()
assert pid != os.getpid() and values == [0, 1, 2, 3, 4], (pid, values)
print("ok")
"""


def test_the_value_comes_from_the_child() -> None:
    """In a fresh interpreter: this test process may run other tests' threads (no fork)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CHILD_CHECK], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_child_that_dies_is_replaced_by_computing_here() -> None:
    parent = os.getpid()

    def work() -> int:
        if os.getpid() != parent:
            os._exit(3)  # killed, out of memory...
        return 42

    assert Forked(work).result() == 42


def test_an_error_is_raised_here_as_without_the_child() -> None:
    calls = []

    def work() -> None:
        calls.append(os.getpid())
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        Forked(work).result()
    assert calls == [os.getpid()]  # the child's attempt is not in this process's list


def test_no_child_while_another_thread_runs_or_when_not_wanted() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        job = Forked(os.getpid)
        assert not job.in_child and job.result() == os.getpid()
    finally:
        stop.set()
        thread.join()
    job = Forked(os.getpid, use=False)
    assert not job.in_child and job.result() == os.getpid()


def test_a_report_built_in_two_processes_equals_one_built_in_one(monkeypatch) -> None:
    """The sections a child builds on large traces (report.CHILD_SECTIONS) are the same as
    built here: a real trace, with the size limit lowered so that it forks."""
    from mindinsight_profiler.analysis import report
    from mindinsight_profiler.formats.kineto.reader import read_kineto
    from tests.conftest import shared

    path = shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    trace = read_kineto(path)
    alone = report.build_report(trace)
    monkeypatch.setattr(report, "FORK_MIN_EVENTS", 0)
    forks = []
    real = report.Forked

    def counted(fn, use=True):  # type: ignore[no-untyped-def]
        job = real(fn, use)
        forks.append(job.in_child)
        return job

    monkeypatch.setattr(report, "Forked", counted)
    together = report.build_report(trace)
    assert forks == [fork_is_safe()]
    assert together == alone and list(together) == list(alone)


def test_each_section_declares_the_shared_analyses_it_reads() -> None:
    """`SectionSpec.uses` says which large shared analyses a section reads: the report drops
    each after its last declared reader, so an undeclared read would compute it again."""
    from mindinsight_profiler.analysis.sections import SECTIONS, SHARED, ReportInputs
    from mindinsight_profiler.formats.kineto.reader import read_kineto
    from tests.conftest import shared

    trace = read_kineto(
        shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    )
    for section in SECTIONS:
        inputs = ReportInputs(trace)
        section.build(inputs)
        read = {name for name in SHARED if name in inputs.__dict__}
        assert read <= section.uses, (section.key, read - section.uses)


def test_shared_analyses_are_dropped_after_their_last_reader(monkeypatch) -> None:
    from mindinsight_profiler.analysis import report
    from mindinsight_profiler.formats.kineto.reader import read_kineto
    from tests.conftest import shared

    trace = read_kineto(
        shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    )
    built: list[tuple[str, set[str]]] = []
    real_build = report._build

    def watched(inputs, sections):  # type: ignore[no-untyped-def]
        out = real_build(inputs, sections)
        built.append(("end", {n for n in report.SHARED if n in inputs.__dict__}))
        return out

    monkeypatch.setattr(report, "_build", watched)
    monkeypatch.setattr(report, "FORK_MIN_EVENTS", 10**9)  # one process
    report.build_report(trace)
    assert built and all(held == set() for _, held in built)  # nothing large is left held
