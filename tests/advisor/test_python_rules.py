"""The user's own Python behind lost step time, on real torch CPU runs with Python stacks
(planted.py: with_stack=True): python_hotspot and per_step_logging."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mindinsight_profiler.advisor.facts.python_hot import (
    _per_step_own,
    is_framework_frame,
    is_user_frame,
)
from mindinsight_profiler.analysis import intervals as iv
from tests.advisor.helpers import advise_path, does_not_fire, fires


def test_frame_kinds() -> None:
    assert is_user_frame("tests/advisor/planted.py(138): _tokenise")
    assert is_user_frame("/home/me/train.py(12): main")
    for lib in (
        "torch/nn/modules/module.py(1782): _call_impl",
        "/usr/lib/python3.11/json/decoder.py(337): decode",
        "/opt/venv/lib/python3.11/site-packages/PIL/Image.py(3200): open",
        "<built-in method tensor of type object at 0x7f>",
        "<frozen runpy>(88): _run_code",
        "nn.Module: Classifier_0",
        "",
    ):
        assert not is_user_frame(lib), lib
    assert is_framework_frame("<built-in method run_backward of torch._C._EngineBase object>")
    assert is_framework_frame("nn.Module: Block_0")
    assert is_framework_frame("<built-in function sleep>")  # waiting is not Python work
    # what the user calls outside the framework stays the user's time
    assert not is_framework_frame("/opt/venv/lib/python3.11/site-packages/PIL/Image.py(1): open")
    assert not is_framework_frame("/opt/venv/site-packages/torchvision/io/image.py(1): decode")


def test_inline_tokeniser_is_named(planted: Path, advisor_ws: Path) -> None:
    # 16 samples tokenised per step by a Python loop in the training loop: about half of
    # each step (6.3 ms of 13.5 ms on an idle machine), with no operator running.
    advice = advise_path(planted / "py_preprocess", advisor_ws)
    f = fires(advice, "python_hotspot")
    assert f.facts["python.hot_function"] == "tests/advisor/planted.py(138): _tokenise"
    assert f.facts["python.hot_function_share"] > 0.25
    assert f.severity == "high"
    assert "_tokenise" in f.message.en and "_tokenise" in f.message.zh
    assert "_tokenise" in f.evidence[0].label and "16.0 calls" in f.evidence[0].label
    # the loop's own Python glue (loop body, forward methods) is far below the tokeniser
    assert all(e.value < 0.1 * f.evidence[0].value for e in f.evidence[1:])
    # the same time is the ledger's untracked part: the saving is capped by it
    assert advice.ledger_us and f.estimated_saving_us is not None
    assert f.estimated_saving_us <= advice.ledger_us["untracked"] + 1e-6
    does_not_fire(advice, "per_step_logging")  # it builds the batch but reads nothing back


def test_clean_loops_have_no_python_hotspot(planted: Path, advisor_ws: Path) -> None:
    # sleep_every: time.sleep(0.02) in the loop, a wait that untracked_time reports
    for plant in ("none", "wide", "grad_logging", "sleep_every"):
        advice = advise_path(planted / plant, advisor_ws / plant)
        does_not_fire(advice, "python_hotspot")
        facts = next(c.facts for c in advice.checked if c.id == "python_hotspot")
        # idle machine: under 2 % (the loop's glue, forward methods); on a loaded one the
        # loop's own frame was seen at 5.9 % (1.4 ms of a 24 ms step): below the 10 % bar
        assert facts["python.hot_function_share"] < 0.10, (plant, facts)


def test_per_step_gradient_logging_is_found(planted: Path, advisor_ws: Path) -> None:
    # each of 27 parameters: grad norm and mean |weight|, each read with .item(): 54 reads
    # and 81 small operators per step, 0.7-0.9 ms of a 6.3 ms step on an idle machine.
    f = fires(advise_path(planted / "grad_logging", advisor_ws), "per_step_logging")
    assert f.facts["logging.reads_per_step"] == 54
    assert f.facts["logging.line"].startswith("tests/advisor/planted.py(")
    assert f.facts["logging.per_step_share"] > 0.05
    assert f.evidence and "54 value reads" in f.evidence[0].label


def test_clean_loops_do_not_log_every_step(planted: Path, advisor_ws: Path) -> None:
    for plant in ("none", "wide"):
        advice = advise_path(planted / plant, advisor_ws / plant)
        does_not_fire(advice, "per_step_logging")
        facts = next(c.facts for c in advice.checked if c.id == "per_step_logging")
        assert facts["logging.reads_per_step"] == 0, (plant, facts)


def test_traces_without_stacks_are_not_judged(planted: Path, advisor_ws: Path) -> None:
    advice = advise_path(planted / "compile", advisor_ws)  # with_stack=False
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "with_stack=True" in reasons["python_hotspot"], reasons.get("python_hotspot")
    assert "with_stack=True" in reasons["per_step_logging"], reasons.get("per_step_logging")


def test_own_time_is_split_by_step() -> None:
    # A spans both steps [0, 50) and [50, 100); B [10, 30) and C [40, 60) are its calls, C
    # crossing the step boundary; the free time is [0, 95) (an operator runs at the end).
    free = iv.Ranges(np.array([0]), np.array([95]))
    s, e = np.array([0, 10, 40]), np.array([100, 30, 60])
    parent = np.array([-1, 0, 0])
    fi, kk, own = _per_step_own(free, s, e, parent, np.array([0, 50]), np.array([50, 100]))
    got = {(int(f), int(k)): float(o) for f, k, o in zip(fi, kk, own, strict=True)}
    assert got == {(0, 0): 20, (0, 1): 35, (1, 0): 20, (2, 0): 10, (2, 1): 10}
