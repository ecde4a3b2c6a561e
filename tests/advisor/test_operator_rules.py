"""Operator and precision rules: real MindSpore/Kineto data and real torch runs with a plant."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.advisor.model import Advice
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

TRANSFORMER = "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json"


def _checked(advice: Advice, rule_id: str) -> dict:
    does_not_fire(advice, rule_id)
    return next(c.facts for c in advice.checked if c.id == rule_id)


def test_matmul_dominates_the_mindspore_run(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/run_2/normal_run/profiler"), advisor_ws)
    f = fires(advice, "hot_operator_type")
    # MindSpore's own aicore_intermediate_1_type.csv: MatMul 20.65774 ms, percent 89.47.
    assert f.facts["operator.top_type"] == "MatMul"
    assert f.facts["operator.top_type_share"] == pytest.approx(0.8947, abs=1e-4)
    assert f.severity == "low" and "MatMul" in f.title.en
    [ev] = f.evidence
    assert (ev.kind, ev.page, ev.name) == ("operator_type", "operators", "MatMul")
    assert ev.value == pytest.approx(20657.74, abs=0.01)


def test_no_operator_type_dominates_resnet50(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    facts = _checked(advice, "hot_operator_type")
    # The plugin's golden device-self pie: cudnn_convolution_backward_weight 142,461 us of
    # 603,558 us (23.60 %).
    assert facts["operator.top_type"] == "cudnn_convolution_backward_weight"
    assert facts["operator.top_type_share"] == pytest.approx(142461 / 603558, abs=1e-4)


def test_dropout_rng_dominates_the_cpu_transformer(advisor_ws: Path) -> None:
    # CPU-only: host self time is the compute. aten::bernoulli_ (dropout masks) 146.4 ms of
    # 451.4 ms of operator self time (32.4 %), more than mm (20.2 %): above the host
    # threshold (0.30), below the device one (0.40), so it fires through `on_host`.
    f = fires(advise_path(shared(TRANSFORMER), advisor_ws), "hot_operator_type")
    assert f.facts["operator.top_type"] == "bernoulli_"
    assert f.facts["operator.on_host"] is True
    assert f.facts["operator.top_type_share"] == pytest.approx(0.324, abs=0.002)
    texts = [a.en for a in f.actions]
    assert any("dropout" in t for t in texts) and not any("multiples of 8" in t for t in texts)


def test_cnn_on_cpu_has_no_dominant_type(advisor_ws: Path) -> None:
    # SmallCNN on the CPU: mkldnn_convolution 21.3 %, convolution_backward 21.1 %, batch
    # norm 19.4 %: several types share the time, none dominates.
    cnn = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"
    facts = _checked(advise_path(shared(cnn), advisor_ws), "hot_operator_type")
    assert facts["operator.on_host"] is True and facts["operator.top_type_share"] < 0.25


def test_float64_model_fires_precision_rule(planted: Path, advisor_ws: Path) -> None:
    f = fires(advise_path(planted / "float64", advisor_ws), "float64_compute")
    # model.double(): every matmul, attention and norm runs on float64. The share is of
    # measured time, so a loaded machine moves it (0.85 seen with both cores busy, > 0.9 idle).
    assert f.facts["precision.float64_share"] > 0.75
    assert f.estimated_saving_us == pytest.approx(0.5 * f.facts["precision.float64_us"], rel=1e-3)
    assert f.severity == "high"
    # the five operators with most float64 time: which matmul ranks where depends on timing
    names = {e.name for e in f.evidence}
    assert len(names) == 5 and names & {"aten::mm", "aten::addmm", "aten::bmm"}
    assert all(e.kind == "operator" and e.page == "operators" and e.value for e in f.evidence)
    assert all(e.label.endswith("with float64 inputs") for e in f.evidence)


def test_float32_model_has_no_float64_compute(planted: Path, advisor_ws: Path) -> None:
    # Python floats (x / 8.0, lr) reach operators as 0-dim double tensors: not float64 data.
    facts = _checked(advise_path(planted / "manual_attention", advisor_ws), "float64_compute")
    assert facts["precision.float64_share"] == 0.0


def test_real_transformer_is_float32(advisor_ws: Path) -> None:
    facts = _checked(advise_path(shared(TRANSFORMER), advisor_ws), "float64_compute")
    assert facts["precision.float64_share"] == 0.0


def test_hand_written_attention_is_found(planted: Path, advisor_ws: Path) -> None:
    f = fires(advise_path(planted / "manual_attention", advisor_ws), "fusible_attention")
    # Two blocks, each with one matmul -> softmax -> matmul, per step; six steps profiled.
    assert f.facts["operator.manual_attention_per_step"] == 2
    ranges = [e for e in f.evidence if e.kind == "time_range"]
    assert len(ranges) == 10  # 12 found, the engine attaches at most 10 per fact
    assert all(e.end_ns > e.start_ns > 0 and e.page == "timeline" for e in ranges)


@pytest.mark.parametrize("plant", ["none"])
def test_sdpa_attention_is_not_flagged(planted: Path, advisor_ws: Path, plant: str) -> None:
    facts = _checked(advise_path(planted / plant, advisor_ws), "fusible_attention")
    assert facts["operator.manual_attention_per_step"] == 0


def test_transformer_encoder_layer_uses_sdpa(advisor_ws: Path) -> None:
    facts = _checked(advise_path(shared(TRANSFORMER), advisor_ws), "fusible_attention")
    assert facts["operator.manual_attention_per_step"] == 0


def test_operator_rules_need_a_pytorch_trace(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/run_2/normal_run/profiler"), advisor_ws)
    missing = {n.id for n in advice.not_evaluated}
    assert {"float64_compute", "fusible_attention"} <= missing
