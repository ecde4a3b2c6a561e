"""A damaged optional file reaches the user: report `warnings`, CLI stderr (cached re-runs
too), the advisor's not-evaluated reasons, and no verdict judged on what is left.

The input is run_2 (MindInsight's fixture) copied with two files damaged the way outside
reviewers damaged them: an empty `device_queue_profiling_1.txt` (before: the host queue
fell back to the dataset-iterator log and the verdict read "none", dropping a high finding)
and an AI Core detail file with a broken header (before: kernel time 0 and a false
"untracked time" finding).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import shared
from tests.integration.cli import run_cli

QUEUE = "device_queue_profiling_1.txt"
AICORE = "aicore_intermediate_1_detail.csv"


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    run = tmp_path / "run_2"
    shutil.copytree(shared("mindspore_legacy/run_2"), run)
    profiler = run / "normal_run/profiler"
    (profiler / QUEUE).write_text("")
    (profiler / AICORE).write_bytes(b"garbage,\xff\xfe\n1,2\n")
    return run


def _analyse(run: Path, ws: Path) -> tuple[dict, list[str]]:
    r = run_cli("analyse", run, "--format", "json", "--workspace", str(ws))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr.splitlines()


def test_warnings_in_the_report_and_on_stderr_also_when_cached(damaged: Path, tmp_path: Path):
    report, err = _analyse(damaged, tmp_path / "ws")
    files = {w["file"] for w in report["warnings"]}
    assert {QUEUE, AICORE} <= files
    queue = next(w for w in report["warnings"] if w["file"] == QUEUE)
    assert queue["message"] == f"{QUEUE}: skipped: the file is empty"
    assert not any(str(tmp_path) in w["message"] for w in report["warnings"])  # no abs paths
    for lines in (err, _analyse(damaged, tmp_path / "ws")[1]):  # the second run is cached
        said = [ln for ln in lines if ln.startswith("mindinsight: warning: ")]
        assert any(QUEUE in ln for ln in said) and any(AICORE in ln for ln in said), lines
    # the host queue is unknown, not judged from another file: no verdict at all
    dp = report["data_pipeline"]
    assert [q["name"] for q in dp["queues"]] == ["chip_queue"] and dp["verdict"] is None


def test_rules_on_a_damaged_file_are_not_evaluated_naming_it(damaged: Path, tmp_path: Path):
    r = run_cli("advise", damaged, "--format", "json", "--workspace", str(tmp_path / "ws"))
    assert r.returncode == 0, r.stderr
    advice = json.loads(r.stdout)
    reasons = {n["id"]: n["reason"] for n in advice["not_evaluated"]}
    assert reasons["minddata_host_queue_empty"] == (
        f"computed from {QUEUE}, which could not be read: the file is empty"
    )
    assert reasons["untracked_time"].startswith(f"computed from {AICORE}, which could not be")
    fired = {f["id"] for f in advice["findings"]}
    assert not fired & {"untracked_time", "minddata_host_queue_empty", "hot_operator_type"}


def test_a_sound_input_has_no_warnings(tmp_path: Path) -> None:
    r = run_cli(
        "analyse", shared("torch_cpu/small"), "--run", "cnn_nw0_active5", "--format", "json",
        "--workspace", str(tmp_path / "ws"),
    )  # fmt: skip
    assert r.returncode == 0 and json.loads(r.stdout)["warnings"] == []
    assert "warning" not in r.stderr
