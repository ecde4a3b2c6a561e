"""`mindinsight advise` as a user runs it: JSON that matches the published schema, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from mindinsight_profiler.advisor.schemas import ROOT
from tests.conftest import shared
from tests.integration.cli import run_cli

SCHEMA = json.loads((ROOT / "docs" / "advice.schema.json").read_text(encoding="utf-8"))


def _advise(path: Path, ws: Path, *extra: str) -> tuple[int, dict]:
    out = run_cli("advise", path, "--format", "json", "--workspace", ws, *extra)
    assert out.returncode in (0, 3), out.stderr
    return out.returncode, json.loads(out.stdout)


def test_json_output_matches_the_published_schema(advisor_ws: Path) -> None:
    for relative in ("kineto/resnet50_num_workers_0", "mindspore_legacy/run_2/normal_run/profiler"):
        _, doc = _advise(shared(relative), advisor_ws)
        jsonschema.validate(doc, SCHEMA)
        assert doc["rules"] == (
            len(doc["findings"]) + len(doc["checked"]) + len(doc["not_evaluated"])
            + len(doc["suppressed"])
        )  # fmt: skip


def test_fail_on_exits_3_exactly_when_a_finding_is_severe_enough(advisor_ws: Path) -> None:
    path = shared("kineto/resnet50_num_workers_0")
    code, doc = _advise(path, advisor_ws, "--fail-on", "high")
    assert code == 3 and any(f["severity"] == "high" for f in doc["findings"])
    code, doc = _advise(path, advisor_ws, "--fail-on", "low", "--min-severity", "high")
    assert {f["severity"] for f in doc["findings"]} == {"high"} and code == 3
    quiet = shared("kineto/resnet50_num_workers_4")
    code, doc = _advise(quiet, advisor_ws, "--fail-on", "high")
    assert code == (3 if any(f["severity"] == "high" for f in doc["findings"]) else 0)


def test_text_output_in_both_languages(advisor_ws: Path) -> None:
    path = shared("kineto/resnet50_num_workers_0")
    en = run_cli("advise", path, "--workspace", advisor_ws, "-v")
    zh = run_cli("advise", path, "--workspace", advisor_ws, "--lang", "zh")
    assert en.returncode == zh.returncode == 0, en.stderr + zh.stderr
    assert "[HIGH] Training waits for input data" in en.stdout
    assert "训练在等待输入数据" in zh.stdout and "checked and fine" in en.stdout


def test_bad_inputs_exit_2_naming_the_problem(tmp_path: Path, advisor_ws: Path) -> None:
    out = run_cli("advise", tmp_path / "missing", "--workspace", advisor_ws)
    assert out.returncode == 2 and "missing" in out.stderr
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "x.toml").write_text("id = ")
    path = shared("kineto/resnet50_num_workers_4")
    out = run_cli("advise", path, "--rules-dir", tmp_path / "rules", "--workspace", advisor_ws)
    assert out.returncode == 2 and "x.toml" in out.stderr and "TOML" in out.stderr
