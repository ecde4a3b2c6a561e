"""Print, as JSON, the figures MindInsight 2.3.1 shows for ../shared/data/mindspore_legacy.

The expected values of `tests/integration/test_mindinsight_parity.py` come from this script.
It calls MindInsight's own profiler analysers and proposers the way its web API does
(`mindinsight/backend/profiler/profile_api.py`), one JSON key per dashboard view, on a
temporary copy of the folders (MindInsight only reads them, but it never gets the originals).

It needs MindInsight itself, so it runs with MindInsight's interpreter, never the project's
(MindInsight is not a dependency of this project; mindspore and torch are not needed):

    python3 -m venv ../mi-venv
    ../mi-venv/bin/pip install mindinsight==2.3.1
    ../mi-venv/bin/python scripts/mindinsight_reference.py [DATA_DIR] > mindinsight.json

DATA_DIR defaults to ../shared/data/mindspore_legacy beside the repository. Times are in
milliseconds, rounded as MindInsight rounds them (4 places for the step trace).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mindinsight.profiler.analyser.analyser_factory import AnalyserFactory
from mindinsight.profiler.analyser.minddata_analyser import MinddataAnalyser
from mindinsight.profiler.proposer.compose_proposer import ComposeProposal
from mindinsight.profiler.proposer.proposer_factory import ProposerFactory

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "mindspore_legacy"
RUN2 = "run_2/normal_run/profiler"
FIXTURES = "profiler_fixtures"
CLUSTER = "cluster_propose"
PIPELINES = "minddata_pipeline"
#: (folder, rank) of every step-trace file.
STEP_TRACES = [(RUN2, 1), (FIXTURES, 0), (FIXTURES, 10), *((CLUSTER, r) for r in range(4))]
STAGES = ("total", "iteration_interval", "fp_and_bp", "tail")
#: What `/profile/summary/propose` asks for (profile_api.get_profile_summary_proposal).
PROPOSALS = ["step_trace", "minddata", "minddata_pipeline", "common"]
PROPOSAL_OPTIONS = {
    "step_trace": {
        "iter_interval": {
            "filter_condition": {"mode": "proc", "proc_name": "iteration_interval", "step_id": 0}
        }
    }
}


def _analyser(kind: str, folder: Path, rank: int | None = None) -> Any:
    args = (str(folder),) if rank is None else (str(folder), str(rank))
    return AnalyserFactory.instance().get_analyser(kind, *args)


def _graph(analyser: Any, step: int) -> dict[str, Any]:
    """One step's training-trace graph (step 0 = the file's average row), by name."""
    graph = analyser.query({"filter_condition": {"mode": "step", "step_id": step}})
    lines = graph["training_trace_graph"]
    main = {p["name"]: p for p in lines[1] if p}
    return {
        "total": lines[0][0]["duration"],
        "iteration_interval": main["iteration_interval"]["duration"],
        "fp_and_bp": main["fp_and_bp"]["duration"],
        "tail": main["tail"]["duration"],
        "fp_start": main["fp_and_bp"]["start"],  # FP point - step start
        "bp_start": main["tail"]["start"],  # BP point - step start
        "reduce": {p["name"]: p["duration"] for line in lines[2:] for p in line if p.get("name")},
    }


def step_trace(data: Path) -> dict[str, Any]:
    """Training-trace page: each step's stages and FP/BP points, the average, the point names."""
    out = {}
    for folder, rank in STEP_TRACES:
        a = _analyser("step_trace", data / folder, rank)
        n = a.summary["total_steps"]
        steps = [_graph(a, s) for s in range(1, n + 1)]
        per_stage = {
            k: a.query({"filter_condition": {"mode": "proc", "proc_name": k}})["info"][k]
            for k in STAGES
        }
        names = list(dict.fromkeys(k for s in steps for k in s["reduce"]))  # first seen first
        out[f"{folder}#{rank}"] = {
            "steps": n,
            **per_stage,
            "fp_start": [s["fp_start"] for s in steps],
            "bp_start": [s["bp_start"] for s in steps],
            "reduce": {k: [s["reduce"].get(k) for s in steps] for k in names},
            "average": _graph(a, 0),
            "summary": a.summary,
            "point_info": a.point_info(1),
        }
    return out


def minddata_queues(data: Path) -> dict[str, Any]:
    """Data-preparation page: the chip (GetNext) and host queues, times and their verdict."""
    out = {}
    for folder, rank in ((RUN2, 1), (FIXTURES, 0)):
        a = _analyser("minddata", data / folder, rank)
        chip_queue, chip_time = a.analyse_get_next_info("all")
        host_queue, host_time = a.analyse_device_queue_info("all")
        out[f"{folder}#{rank}"] = {
            "get_next": {"queue": chip_queue, "time": chip_time},
            "device_queue": {"queue": host_queue, "time": host_time},
            "summary": MinddataAnalyser.analyse_queue_summary(chip_queue, host_queue),
        }
    return out


def minddata_pipeline(data: Path) -> dict[str, Any]:
    """Pipeline page: every op's queue figures, and the ops outside MindInsight's thresholds."""
    out = {}
    cases = [(RUN2, 1), (FIXTURES, 0), *((PIPELINES, r) for r in range(4))]
    for folder, rank in cases:
        a = _analyser("minddata_pipeline", data / folder, rank)
        every = a.query({})
        flagged = a.query({"filter_condition": {"threshold": [0.8, 0.6]}})  # the proposer's
        out[f"{folder}#{rank}"] = {"col_name": every["col_name"], "ops": every["object"],
                                   "flagged": [row[0] for row in flagged["object"]]}  # fmt: skip
    return out


def op_types(data: Path) -> dict[str, Any]:
    """Operator page, AI Core by type (`/profile/ops/search`, op_type aicore_type)."""
    out = {}
    for folder, rank in ((RUN2, 1), (FIXTURES, 1)):
        result = _analyser("aicore_type", data / folder, rank).query({})
        out[f"{folder}#{rank}"] = {"col_name": result["col_name"], "rows": result["object"]}
    return out


def flops(data: Path) -> dict[str, Any]:
    """FLOPs: `/profile/flops-summary` and `/profile/flops-scope` per rank (files or not),
    `/profile/cluster-flops`, and the FLOPs columns of the AI Core detail table
    (`/profile/ops/search`, op_type aicore_detail, in the order the page asks for:
    avg_execution_time descending), the only table that shows FLOPs per operator."""
    summary, scope = {}, {}
    for folder, rank in [(FIXTURES, 0), (FIXTURES, 1), *((CLUSTER, r) for r in range(4))]:
        a = _analyser("flops", data / folder, rank)
        summary[f"{folder}#{rank}"] = a.get_flops_summary()
        scope[f"{folder}#{rank}"] = a.get_flops_scope()
    order = {"sort_condition": {"name": "avg_execution_time", "type": "descending"}}
    detail = _analyser("aicore_detail", data / FIXTURES, 1).query(order)
    names = detail["col_name"]
    keep = [c for c in names if c in ("op_name", "avg_execution_time") or "FLOP" in c]
    rows = [[row[names.index(c)] for c in keep] for row in detail["object"]]
    return {
        "summary": summary,
        "scope": scope,
        "cluster": _analyser("cluster_flops", data / CLUSTER).get_flops(),
        "aicore_detail": {f"{FIXTURES}#1": {"col_name": keep, "rows": rows}},
    }


def cluster_step_trace(data: Path) -> dict[str, Any]:
    """Cluster page, step trace per rank (`/profile/cluster-step-trace-summary`), by step."""
    out = {}
    for folder in (CLUSTER, RUN2):
        a = _analyser("cluster_step_trace", data / folder, 0)
        first = a.query({})
        by_step = {}
        for step in range(int(first["total_step_num"]) + 1):  # 0 = the files' average rows
            result = a.query({"filter_condition": {"step_id": step}})
            key = "step_bottleneck_info" if first["parallel-mode"] != "data-parallel" else (
                "step_trace_info")  # fmt: skip
            by_step[str(step)] = {str(i["rank_id"]): i[key] for i in result["info"]}
        out[folder] = {"parallel_mode": first["parallel-mode"], "stage_num": first["stage_num"],
                       "by_step": by_step}  # fmt: skip
    return out


def proposals(data: Path) -> dict[str, Any]:
    """The Helper sidebar (`/profile/summary/propose`) and the cluster proposer."""
    out: dict[str, Any] = {}
    for folder, rank in ((RUN2, 1), (FIXTURES, 0)):
        compose = ComposeProposal(str(data / folder), str(rank), PROPOSALS)
        out[f"{folder}#{rank}"] = compose.get_proposal(PROPOSAL_OPTIONS)
    parallel = ProposerFactory.instance().get_proposer("parallel", str(data / CLUSTER), 0)
    out[CLUSTER] = parallel.analyze(None)
    return out


def cpu_utilization(data: Path) -> dict[str, Any]:
    """`/profile/minddata-cpu-utilization-summary`: average per series (samples dropped)."""
    out = {}
    for folder, rank in ((RUN2, 1), (FIXTURES, 0)):
        info = _analyser("minddata_cpu_utilization", data / folder, rank).query({})
        out[f"{folder}#{rank}"] = {
            "step_info": info["step_info"],
            "device_info": {k: v["avg_value"] for k, v in info["device_info"].items()},
            "process_info": {k: v["avg_value"] for k, v in info["process_info"].items()},
            "op_info": {
                str(op["op_id"]): {k: v["avg_value"] for k, v in op["metrics"].items()}
                for op in info["op_info"]["op_list"]
            },
            "samples_used": len(info["device_info"]["user_utilization"]["metrics"]),
        }
    return out


VIEWS = {
    "step_trace": step_trace,
    "minddata_queues": minddata_queues,
    "minddata_pipeline": minddata_pipeline,
    "op_types": op_types,
    "flops": flops,
    "cluster_step_trace": cluster_step_trace,
    "proposals": proposals,
    "cpu_utilization": cpu_utilization,
}


def main(argv: list[str]) -> int:
    import mindinsight

    source = Path(argv[0]) if argv else DEFAULT_DATA
    out: dict[str, Any] = {"mindinsight": mindinsight.__version__, "views": {}}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "mindspore_legacy"
        shutil.copytree(source, data)
        for name, view in VIEWS.items():
            out["views"][name] = view(data)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
