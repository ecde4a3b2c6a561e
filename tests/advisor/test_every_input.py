"""Issue 18's guarantees on every input in ../shared/data, labelled or not: every worker of
every run discovered there is advised, and
- the findings' combined saving (the union over the step ledger's parts) is at most the
  step, and no finding claims more than the step;
- no finding on an Ascend or MindSpore run speaks CUDA (device-aware actions);
- no fact fails with an internal error (the registry keeps the advice alive and logs it, so
  only a sweep sees a rule silently lost to a bug).

The expert set (expert/) checks the same on its labelled inputs; this sweep catches the
inputs nobody labelled (other ranks, other workers, fixtures).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.formats.discovery import Run, discover
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import SHARED_DATA

_CUDA = re.compile(r"CUDA|cuDNN|NCCL|Nsight|tensor core|torch\.cuda", re.IGNORECASE)
#: Formats whose runs are on Ascend NPUs or MindSpore: no CUDA wording may reach them.
_NOT_CUDA = {FormatTag.ASCEND_PT, FormatTag.MINDSPORE2, FormatTag.MINDSPORE_LEGACY}


def _runs() -> list[Run]:
    if not SHARED_DATA.exists():
        return []
    return discover(SHARED_DATA)


RUNS = _runs()


def _advise(run: Run, worker: str, ws: Path) -> tuple[Advice, str]:
    file = run.select(worker)
    return advise_file(file, run, Workspace(ws), ()), file.format


@pytest.mark.skipif(not RUNS, reason="../shared/data is absent: nothing to sweep")
@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_every_worker_keeps_the_ledger_and_the_device(run: Run, advisor_ws: Path) -> None:
    problems = []
    for worker in run.workers:
        advice, fmt = _advise(run, worker, advisor_ws)
        combined = advice.combined_saving_share
        if combined is not None and combined > 1 + 1e-9:
            problems.append(f"{worker}: combined saving {combined:.3f} of the step")
        for n in advice.not_evaluated:
            if "internal error" in n.reason:
                problems.append(f"{worker}: {n.id} lost to a fact error ({n.missing})")
        for f in advice.findings:
            if (f.saving_share or 0.0) > 1 + 1e-9:
                problems.append(f"{worker}: {f.id} claims {f.saving_share:.3f} of the step")
            if fmt in _NOT_CUDA:
                for text in (f.title, f.message, *f.actions):
                    if m := _CUDA.search(text.en):
                        problems.append(f"{worker}: {f.id} says {m.group(0)}: {text.en[:80]}")
    assert problems == []


def test_the_sweep_sees_every_format() -> None:
    """The sweep is only worth something if it reaches the formats it guards."""
    if not RUNS:
        pytest.skip("../shared/data is absent: nothing to sweep")
    formats = {f.format for r in RUNS for f in r.files}
    assert {FormatTag.KINETO, FormatTag.ASCEND_PT, FormatTag.MINDSPORE_LEGACY} <= formats
    assert sum(len(r.workers) for r in RUNS) >= 40
