"""The run list and one run's inputs (`/api/v1/runs`, `/api/v1/runs/<run>`)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from mindinsight_profiler.server.services import run_json, services

bp = Blueprint("runs", __name__)


@bp.get("/runs")
def list_runs() -> Response:
    return jsonify({"runs": [run_json(e) for e in services().registry.runs()]})


@bp.get("/runs/<run>")
def get_run(run: str) -> Response:
    entry = services().registry.get(run)
    inputs = services().states.inputs(entry.files)
    for item in inputs:
        if "error" in item:
            item["error"] = services().public(item["error"])
        for stage in item.get("stages", {}).values():
            if "error" in stage:
                stage["error"] = services().public(stage["error"])
    return jsonify(dict(run_json(entry), inputs=inputs))
