"""Module view against torch's own `key_averages()` rows for `nn.Module: ...`."""

from __future__ import annotations

import json

import pytest

from mindinsight_profiler.analysis.operators.modules import module_section
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared
from tests.integration.test_key_averages import SAME_SESSION


@pytest.mark.parametrize("model", sorted(SAME_SESSION))
def test_occurrences_and_host_totals_equal_key_averages(model: str) -> None:
    trace = read_kineto(shared(f"torch_cpu/small/{SAME_SESSION[model]}"))
    section = module_section(trace, op_tree(trace))
    assert section is not None
    ka = {
        r["key"]: r
        for r in json.loads(shared(f"torch_cpu/small/{model}_key_averages.json").read_text())
    }
    rows = {r["name"]: r for r in section["modules"]}
    assert set(rows) == {k for k in ka if k.startswith("nn.Module: ")}
    for name, row in rows.items():
        assert row["occurrences"] == ka[name]["count"], name
        assert row["host_total_us"] == pytest.approx(ka[name]["cpu_time_total_us"], rel=1e-3, abs=1)


def test_hierarchy_partitions_the_root() -> None:
    trace = read_kineto(shared(f"torch_cpu/small/{SAME_SESSION['transformer_nw0']}"))
    rows = module_section(trace, op_tree(trace))["modules"]  # type: ignore[index]
    roots = [r for r in rows if r["parent"] is None]
    # The model, and the loss module called outside it.
    assert {r["name"] for r in roots} == {
        "nn.Module: SmallTransformer_0",
        "nn.Module: CrossEntropyLoss_0",
    }
    # Self times of all modules add up to the roots' total time (each instant counted once).
    assert sum(r["host_self_us"] for r in rows) == pytest.approx(
        sum(r["host_total_us"] for r in roots)
    )
    by_name = {r["name"]: r for r in rows}
    assert (
        by_name["nn.Module: MultiheadAttention_0"]["parent"]
        == "nn.Module: TransformerEncoderLayer_0"
    )


def test_no_modules_gives_none() -> None:
    trace = read_kineto(
        shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    )
    assert module_section(trace, op_tree(trace)) is None
