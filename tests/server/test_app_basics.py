"""The app factory on real data: run listing with opaque ids, health, headers, JSON errors."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from tests.conftest import shared


def test_runs_health_and_headers() -> None:
    client = create_app(Settings(shared("kineto"))).test_client()
    runs = client.get("/api/v1/runs").json["runs"]
    # tb_plugin_expected holds the plugin's GPU-metrics traces, named `*.json`: taken by text;
    # they are two unrelated traces (no distributedInfo), so two runs
    names = sorted(r["name"] for r in runs)
    assert names == [
        "resnet50_num_workers_0", "resnet50_num_workers_4",
        "tb_plugin_expected/gpu_metrics_expected", "tb_plugin_expected/gpu_metrics_input",
    ]  # fmt: skip
    one = client.get(f"/api/v1/runs/{runs[0]['id']}")
    assert one.status_code == 200 and one.json["workers"] == ["worker0"]
    assert one.json["pages"][0] == "overview" and "modules" in one.json["pages"]


def test_a_run_lists_the_pages_its_formats_can_have() -> None:
    client = create_app(Settings(shared("mindspore_legacy"))).test_client()
    runs = client.get("/api/v1/runs").json["runs"]
    assert runs and all(r["formats"] == ["mindspore_legacy"] for r in runs)
    assert all("modules" not in r["pages"] and "timeline" in r["pages"] for r in runs)
    health = client.get("/healthz")
    assert health.json == {"status": "ok"}
    assert "default-src 'self'" in health.headers["Content-Security-Policy"]
    assert health.headers["X-Content-Type-Options"] == "nosniff"


def test_bad_and_unknown_run_ids_are_json_errors() -> None:
    client = create_app(Settings(shared("kineto"))).test_client()
    bad = client.get("/api/v1/runs/..%2F..%2Fetc")
    assert bad.status_code in (400, 404) and "error" in bad.json
    assert bad.headers["Cache-Control"] == "no-store"
    assert client.get("/api/v1/runs/zz").json["error"]["code"] == "bad_parameter"
    missing = client.get("/api/v1/runs/0123456789abcdef")
    assert missing.status_code == 404 and missing.json["error"]["code"] == "not_found"


def test_symlink_out_of_the_base_dir_is_not_a_run(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "evil").mkdir(parents=True)
    (base / "evil" / "worker0.1.pt.trace.json").symlink_to("/etc/passwd")
    client = create_app(Settings(base)).test_client()
    assert client.get("/api/v1/runs").json["runs"] == []


def test_settings_round_trip_through_the_environment(tmp_path: Path) -> None:
    settings = Settings(tmp_path, workspace=tmp_path / "ws", port=9000, rules_dirs=(tmp_path,))
    assert Settings.from_env(settings.to_env()) == settings


def test_start_takes_its_options_from_the_environment(tmp_path: Path) -> None:
    from tests.integration.cli import run_cli

    missing = tmp_path / "no-such-dir"
    out = run_cli("start", env={"MINDINSIGHT_SUMMARY_BASE_DIR": str(missing)})
    assert out.returncode == 2 and str(missing) in out.stderr
    out = run_cli("start", "--summary-base-dir", tmp_path, env={"MINDINSIGHT_PORT": "abc"})
    assert out.returncode == 2 and "--port" in out.stderr and "'abc'" in out.stderr
