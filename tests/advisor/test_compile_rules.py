"""torch.compile recompilation: real CPU runs (tests/advisor/planted.py: `recompile` changes
the sequence length after two steady compiled steps, `compile` does not) and hand-made
traces of the same shape."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared
from tests.tracegen import op, write_trace


def _compiled_run(folder: Path, recompile_at: int | None) -> Path:
    """Five 20-ms steps calling a compiled frame; step 0 compiles it (300 ms of Dynamo), and
    at `recompile_at` frame 0 is compiled again (compile id 0/1)."""
    events = []
    version = 0
    for s in range(5):
        t = 1000 + 400_000 * s
        compiles = s == 0 or s == recompile_at
        if s == recompile_at:
            version = 1
        events += [
            op(f"ProfilerStep#{s}", t, 350_000 if compiles else 20_000, cat="user_annotation"),
            op(f"Torch-Compiled Region: 0/{version}", t + 10, 340_000 if compiles else 10_000),
            op("TorchDynamo Cache Lookup", t + 20, 100),
        ]
        if compiles:
            events.append(op("entire_frame_compile", t + 200, 300_000))
    folder.mkdir()
    return write_trace(folder / "w.pt.trace.json", events)


def test_recompile_in_steady_state_fires(tmp_path: Path, advisor_ws: Path) -> None:
    _compiled_run(tmp_path / "re", recompile_at=3)
    f = fires(advise_path(tmp_path / "re", advisor_ws), "compile_recompiles")
    assert f.facts["compile.recompiles"] == 1
    # step 3 (its compile and its 0.1-ms cache lookup), not step 0
    assert f.facts["compile.steady_compile_us"] == 300_100
    assert [e.step for e in f.evidence if e.kind == "step"] == ["3"]
    assert any("TORCH_LOGS=recompiles" in a.en for a in f.actions)


def test_first_compilation_alone_is_not_a_recompile(tmp_path: Path, advisor_ws: Path) -> None:
    _compiled_run(tmp_path / "once", recompile_at=None)
    advice = advise_path(tmp_path / "once", advisor_ws)
    does_not_fire(advice, "compile_recompiles")
    facts = next(c.facts for c in advice.checked if c.id == "compile_recompiles")
    # the cache lookups of steps 1-4 (0.1 ms each) are not compilation
    assert facts["compile.recompiles"] == 0 and facts["compile.steady_compile_us"] == 0


def test_planted_recompile(planted: Path, advisor_ws: Path) -> None:
    f = fires(advise_path(planted / "recompile", advisor_ws), "compile_recompiles")
    # Torch-Compiled Region: 0/1 at step 5; in the fixture's one process the compile plant
    # compiled the same forward first, so there the versions are 0/1 (step 2) and 0/2
    assert f.facts["compile.recompiles"] >= 1
    steps = [e.step for e in f.evidence if e.kind == "step"]
    assert steps == ["5"]  # the first step with the shorter batches, after steady steps 3-4
    does_not_fire(advise_path(planted / "compile", advisor_ws), "compile_recompiles")


def test_eager_run_is_not_evaluated(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "Torch-Compiled Region" in reasons["compile_recompiles"]
