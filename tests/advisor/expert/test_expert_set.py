"""The advisor against the labelled evaluation set (README.md): precision and recall.

Every labelled input is advised through the real pipeline; its findings are scored against
the label written before the rules were tuned. The report (per input: the findings judged
false, the expected classes missed) is printed; the test fails when precision or recall
falls below its floor. Issue 18's target is 95 % precision and 90 % recall; the floors are
the figures the advisor reached when the labels were written, and only ever go up.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mindinsight_profiler.formats.discovery import discover, pick_run
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace
from tests.advisor.expert.scoring import (
    Label,
    Score,
    class_of_rule,
    classes,
    labels,
    problems,
    score,
    totals,
)
from tests.conftest import SHARED_DATA

#: When the labels were written (2026-11-25): precision 0.60-0.61, recall 0.49-0.51 over 45
#: inputs in three runs (the planted CPU traces vary a little run to run). With the ledger
#: and the window model: precision 0.68, recall 0.58; with the class fixes that followed
#: (float64 by compute dtype, fused optimizers, syncs under 1 %, annotations not op types):
#: precision 0.73; with device-aware actions and the one-job check for ranks: precision
#: 0.74-0.75, recall 0.56-0.58 (the planted CPU runs move recall by about 0.02 run to run).
#: With the device-compute families (low_mfu, gemm_efficiency, fusion_candidates,
#: conv_layout, sdpa_math_backend, create_on_device) and PyTorch 1.8's optimizer spans read:
#: precision 0.74-0.75, recall 0.68-0.69 (on the 31 shared inputs alone 0.72 / 0.66; the
#: planted CPU runs on a loaded machine add or drop untracked_time / step_outlier findings).
#: With window limits (sampled, fragment, toy windows are not judged in steady state) and
#: the MindData/cluster/loader fixes: precision 0.97-0.98 (the false findings left are on
#: the planted CPU runs, which vary run to run), recall unchanged.
#: The floors keep a margin for that variation; raise them as the advisor improves.
FLOORS = {"precision": 0.90, "recall": 0.62}
TARGET = {"precision": 0.95, "recall": 0.90}
#: Ids of the holdout inputs (labels/holdout_*.toml): labelled on 2026-11-25 after the
#: rules were tuned on the other labels; their score is printed apart.
HOLDOUT = ("hold-", "holdp-")
MIN_INPUTS = 25


def test_labels_are_well_formed() -> None:
    vocabulary = classes()
    class_of_rule(vocabulary)  # a rule in two classes is an error
    found = labels()
    assert len({x.id for x in found}) == len(found), "label ids must be unique"
    assert [p for x in found for p in problems(x, vocabulary)] == []


def _input(label: Label, made: dict[str, Path]) -> Path | None:
    if label.path.startswith("planted-ranks"):  # "planted-ranks" or "planted-ranks:<variant>"
        return made.get(label.path)
    if label.path.startswith("planted:"):
        return made["planted"] / label.path.split(":", 1)[1] if "planted" in made else None
    path = SHARED_DATA / label.path
    return path if path.exists() else None


#: Per input id: (combined saving share, the largest finding share, their sum): the ledger
#: checks read them (filled while scoring, so each input is advised once).
SHARES: dict[str, tuple[float | None, float, float]] = {}
#: Per input id on Ascend or MindSpore: finding texts that speak CUDA (issue 18: never).
CUDA_WORDS: dict[str, list[str]] = {}
_CUDA = re.compile(r"CUDA|cuDNN|NCCL|Nsight|tensor core|torch\.cuda", re.IGNORECASE)


def _advise(label: Label, path: Path, ws: Path) -> list[str]:
    run = pick_run(discover(path), label.worker)
    advice = advise_file(run.select(label.worker, label.span), run, Workspace(ws), ())
    shares = [f.saving_share or 0.0 for f in advice.findings]
    if label.path.startswith(("ascend", "mindspore")):
        texts = [
            t.en for f in advice.findings for t in (f.title, f.message, *f.actions)
        ]  # fmt: skip
        CUDA_WORDS[label.id] = [f"{m.group(0)}: {t[:80]}" for t in texts if (m := _CUDA.search(t))]
    SHARES[label.id] = (advice.combined_saving_share, max(shares, default=0.0), sum(shares))
    return [f.id for f in advice.findings]


@pytest.fixture(scope="module")
def scores(advisor_ws: Path, request: pytest.FixtureRequest) -> list[Score]:
    found = labels()
    made: dict[str, Path] = {}  # traces the tests make with real torch runs
    if any(x.path.startswith("planted:") for x in found):
        made["planted"] = request.getfixturevalue("planted")
    for ranks in sorted({x.path for x in found if x.path.startswith("planted-ranks")}):
        # "planted-ranks:<variant>" is made by the conftest fixture planted_ranks_<variant>
        made[ranks] = request.getfixturevalue(ranks.replace("-", "_").replace(":", "_"))
    rule_class = class_of_rule(classes())
    out = []
    for label in found:
        path = _input(label, made)
        if path is not None:
            out.append(score(label, _advise(label, path, advisor_ws), rule_class))
    if not out:
        pytest.skip("no labelled input is available (../shared/data missing)")
    return out


def _report(scores: list[Score]) -> str:
    lines = []
    for s in scores:
        mark = "ok" if not s.false and not s.missed else "  "
        lines.append(f"{mark} {s.label.id}: {len(s.true)} true, {len(s.false)} false, "
                     f"{len(s.found)}/{len(s.label.expect)} expected found")  # fmt: skip
        lines += [f"     false: {f}" for f in s.false]
        lines += [f"     missed: {m}" for m in s.missed]
    precision, recall = totals(scores)
    lines.append(f"precision {precision}, recall {recall} over {len(scores)} inputs "
                 f"(target {TARGET['precision']:.0%} / {TARGET['recall']:.0%})")  # fmt: skip
    held = [s for s in scores if s.label.id.startswith(HOLDOUT)]
    if held:
        precision, recall = totals(held)
        lines.append(f"of which the holdout (labelled after the tuning): "
                     f"precision {precision}, recall {recall} over {len(held)} inputs")  # fmt: skip
    return "\n".join(lines)


def test_precision_and_recall_do_not_fall(scores: list[Score]) -> None:
    print("\n" + _report(scores))
    precision, recall = totals(scores)
    if len(scores) == len(labels()):
        assert len(scores) >= MIN_INPUTS, f"the set needs at least {MIN_INPUTS} inputs"
    assert precision is None or precision >= FLOORS["precision"], _report(scores)
    assert recall is None or recall >= FLOORS["recall"], _report(scores)


def test_savings_add_up_to_no_more_than_the_step(scores: list[Score]) -> None:
    """Issue 18: on every input the findings' combined saving is at most the step, and no
    finding claims more than the step (the ledger, advisor/ledger.py)."""
    over = {
        x.label.id: SHARES[x.label.id]
        for x in scores
        if (SHARES[x.label.id][0] or 0.0) > 1 + 1e-9 or SHARES[x.label.id][1] > 1 + 1e-9
    }
    assert over == {}, over
    summed = max(SHARES[x.label.id][2] for x in scores)
    print(f"\nlargest plain sum of finding shares: {summed:.2f} (combined: never above 1)")


def test_no_cuda_advice_on_ascend_or_mindspore(scores: list[Score]) -> None:
    """Actions carry the devices and frameworks they fit (rules/*.toml `devices`,
    `frameworks`): CUDA wording never reaches an Ascend or MindSpore run."""
    assert CUDA_WORDS, "the set has Ascend/MindSpore inputs"
    assert {k: v for k, v in CUDA_WORDS.items() if v} == {}
