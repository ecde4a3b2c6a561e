"""Outlier ranks (median and MAD) and the communication matrix, on constructed rank rows and
on the real four-rank MindSpore cluster run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.cluster.view import comm_matrix, outlier_ranks
from tests.conftest import shared
from tests.integration.cli import run_cli


def rows(values: list[float | None], key: str = "step_us") -> list[dict]:
    return [{"rank": i, key: v} for i, v in enumerate(values)]


def test_one_straggler_among_eight_is_found_and_the_mean_would_hide_it() -> None:
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 130.0, 100.1]
    found = outlier_ranks(rows(values), ["step_us"])
    assert [(o["rank"], o["key"]) for o in found] == [(6, "step_us")]
    assert found[0]["median"] == pytest.approx(float(np.median(values)))
    assert found[0]["over_median_pct"] == pytest.approx(
        100 * (130 - np.median(values)) / np.median(values)
    )
    # mean + 3 sigma, the naive rule, would not flag it: the straggler inflates sigma
    v = np.array(values)
    assert v.mean() + 3 * v.std() > 130.0


def test_equal_ranks_and_small_differences_are_not_outliers() -> None:
    assert outlier_ranks(rows([100.0] * 8), ["step_us"]) == []
    # MAD is 0, but 2 % off the median is not worth a flag
    assert outlier_ranks(rows([100.0] * 7 + [102.0]), ["step_us"]) == []
    flagged = outlier_ranks(rows([100.0] * 7 + [120.0]), ["step_us"])
    assert [o["rank"] for o in flagged] == [7] and flagged[0]["z"] is None


def test_fast_outliers_missing_values_and_too_few_ranks() -> None:
    found = outlier_ranks(rows([100.0, 101.0, 99.0, 100.0, 60.0, None]), ["step_us"])
    assert [o["rank"] for o in found] == [4] and found[0]["over_median_pct"] < 0
    assert outlier_ranks(rows([100.0, 200.0]), ["step_us"]) == []


def test_comm_matrix_merges_links_over_the_reporting_ranks(tmp_path: Path) -> None:
    folder = shared("mindspore_legacy/cluster_propose")
    reports = []
    for rank in range(4):
        done = run_cli("analyse", folder, "--worker", f"rank{rank}", "--format", "json",
                       "--workspace", tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout))
    matrix = comm_matrix(reports)
    expected: dict[tuple[str, int, int], list[float]] = {}
    for report in reports:
        for link in report["communication"]["links"]:
            key = (link["transport"], link["src"], link["dst"])
            expected.setdefault(key, []).append(link["bandwidth"])
    got = {
        (t["transport"], s, d): b
        for t in matrix["transports"]
        for s, d, b in zip(t["src"], t["dst"], t["bandwidth"], strict=True)
    }
    assert set(got) == set(expected) and len(got) > 0
    for key, values in expected.items():
        assert got[key] == pytest.approx(float(np.mean(values)))
    assert matrix["devices"] == sorted({d for k in expected for d in k[1:]})
