"""Every /api/v1 answer on real data is what `server/answers` declares, strictly.

The dashboard's TypeScript types are generated from those declarations, so an answer that
drifts from them (a key renamed, added or dropped, a number turned into a string) would be
a blank or wrong page that no type check sees. Here a test server over six real runs
(Kineto GPU, Ascend two ranks, legacy MindSpore, MindSpore's 4-rank cluster files, torch
CPU with modules and memory, MindSpore CPU) answers every JSON route for every input, with
the parameter variants that change an answer's shape, and each answer must pass
`msgspec.convert(answer, Struct, strict=True)`. The routes' marshmallow response schemas
(which filter what is sent) must name exactly the declared fields.

Skipped, with the reason, when ../shared/data is absent.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.schema import to_report
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import load_timeline
from mindinsight_profiler.server.answers import ENDPOINT_ANSWERS, operators_answer
from mindinsight_profiler.server.answers.runs import RunSummary
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.jobs import input_summary
from mindinsight_profiler.server.routes.common import ENDPOINTS
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.msdata import scale_hccl_transfers
from tests.server.test_api_endpoints import cli_json

#: Real runs: shared data folder -> where the test's base dir holds it.
RUNS = {
    "kineto/resnet50_num_workers_0": "kineto/resnet50",
    "ascend_pytorch/level1": "ascend/level1",
    "mindspore_legacy/run_2/normal_run/profiler": "ms/profiler",
    "mindspore_legacy/cluster_propose": "msc/cluster_propose",  # a run named "msc"
    "torch_cpu/small": "torch/small",
    "mindspore_cpu": "mscpu/mindspore_cpu",
    "hta/call_stack": "hta/call_stack",  # a fragment: the advice's `window_limit` is set
}

#: Copied into the legacy run's copy as its rank's file (see `served`).
DYNAMIC_SHAPE_FILE = "mindspore_legacy/profiler_fixtures/dynamic_shape_info_0.json"

#: Per-worker routes and the parameter variants whose answers differ in shape.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "overview": [{}],
    "step-trace": [{}],
    "data-pipeline": [{}],
    "memory": [{}],
    "communication": [{}],
    "modules": [{}],
    "advice": [{}],
    "operators": [
        *({"group_by": g} for g in ("name", "name_input", "name_stack", "type", "instance")),
        {"focus": "aten::mm"},  # an evidence link's row: its page, and `focus_index`
    ],
    "kernels": [{}, {"group_by": "name_op_launch"}, {"focus": "no such kernel"}],
    "aicpu": [{}],
    "dynamic-shape": [{}],
    "perf-model": [{}],
    "mindspore-flops": [{}],
    "timeline": [{}],
    "timeline/search": [{"q": "a"}],
    "timeline/event": [{"index": 0}],
    "memory/curve": [{}],
    "memory/events": [{}, {"mode": "live"}],
    "memory/operators": [{}],
}
#: Routes that answer with a file, not JSON.
DOWNLOADS = {
    "/runs/<run>/timeline/export",
    "/runs/<run>/timeline/export-ranks",
    "/runs/<run>/report",
}


class Served:
    """A test client over the runs, every input analysed (report, timeline, advice)."""

    def __init__(self, base: Path, ws: Path) -> None:
        self.reports: list[dict[str, Any]] = []  # `analyse --format json` of every input
        for run in discover(base):
            for f in run.files:
                span = ("--span", f.span) if f.span else ()
                args = ("--worker", f.worker, *span, "--workspace", ws)
                self.reports.append(cli_json("analyse", run.path, *args, "--format", "json"))
                load_timeline(f.path, Workspace(ws), None, f.format, f.worker)  # before advice
                cli_json("advise", run.path, *args, "--format", "json")
        app = create_app(Settings(base, workspace=ws), start_background_work=False)
        self.client: FlaskClient = app.test_client()
        self.checked: Counter[str] = Counter()

    def check(self, rule: str, path: str, cls: type, **params: Any) -> Any:
        response = self.client.get(f"/api/v1{path}", query_string=params)
        assert response.status_code == 200, (path, params, response.json)
        try:
            msgspec.convert(response.json, cls, strict=True)
        except msgspec.ValidationError as exc:
            raise AssertionError(f"{path} {params}: {exc} (declared as {cls.__name__})") from None
        self.checked[rule] += 1
        return response.json


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    base = tmp_path_factory.mktemp("base").resolve()
    for src, dst in RUNS.items():
        shutil.copytree(shared(src), base / dst)
    # the cluster's links move 3-6 KB per call (latency-bound: no slow_link); scaled up, its
    # slow link is reported and the link evidence's landing can be checked
    scale_hccl_transfers(base / RUNS["mindspore_legacy/cluster_propose"])
    # No run above has a dynamic-shape file: the legacy run's copy gets the fixtures' one (a
    # GPU run's, rank 0), so that the section's answer is checked with its data too.
    fixture = shared(DYNAMIC_SHAPE_FILE)
    shutil.copy(fixture, base / "ms/profiler" / "dynamic_shape_info_1.json")
    return Served(base, tmp_path_factory.mktemp("ws"))


def _struct(rule: str, params: dict[str, Any]) -> type:
    if rule == "/runs/<run>/operators":
        return operators_answer(params.get("group_by", "name"))
    found = ENDPOINT_ANSWERS[rule]
    assert isinstance(found, type)
    return found


def test_every_answer_is_its_declared_struct(served: Served) -> None:
    runs = served.check("/runs", "/runs", _struct("/runs", {}))["runs"]
    assert len(runs) >= len(RUNS)  # some folders hold several runs
    ids = [r["id"] for r in runs]
    for rid in ids:
        detail = served.check("/runs/<run>", f"/runs/{rid}", _struct("/runs/<run>", {}))
        for item in detail["inputs"]:
            where = {"worker": item["worker"], **({"span": item["span"]} if item["span"] else {})}
            for view, variants in VARIANTS.items():
                rule = f"/runs/<run>/{view}"
                for params in variants:
                    served.check(rule, f"/runs/{rid}/{view}", _struct(rule, params), **where,
                                 **params)  # fmt: skip
        served.check(
            "/runs/<run>/cluster", f"/runs/{rid}/cluster", _struct("/runs/<run>/cluster", {})
        )
        served.check("/runs/<run>/clock", f"/runs/{rid}/clock", _struct("/runs/<run>/clock", {}))
    diff = "/runs/<run>/diff"
    served.check(diff, f"/runs/{ids[0]}/diff", _struct(diff, {}), other=ids[1])
    routes = {
        r.rule.removeprefix("/api/v1") for r in served.client.application.url_map.iter_rules()
    }
    json_routes = {r for r in routes if r.startswith("/runs")} - DOWNLOADS
    assert json_routes == set(ENDPOINT_ANSWERS), "declare each new route's answer"
    assert set(served.checked) == json_routes, "every route answered on real data"


def test_answers_on_real_data_cover_the_optional_shapes(served: Served) -> None:
    """The drift test is only as good as its data: the shapes that only some inputs give
    (memory pages with rows, table-only instances, cluster links, MindData queue steps,
    modules, time-range evidence) are among the answers checked."""
    c = served.client
    runs = {r["name"]: r["id"] for r in c.get("/api/v1/runs").json["runs"]}
    torch = runs["torch/small/cnn_nw0_active5"]  # one of the unrelated runs in torch/small
    worker = c.get(f"/api/v1/runs/{torch}").json["inputs"][0]["worker"]
    assert c.get(f"/api/v1/runs/{torch}/modules", query_string={"worker": worker}).json["data"]
    events = c.get(f"/api/v1/runs/{torch}/memory/events", query_string={"worker": worker}).json
    assert events["rows"] and events["reason"] is None
    ms = c.get(f"/api/v1/runs/{runs['ms']}/operators", query_string={"group_by": "instance"}).json
    assert all("calls" in r for r in ms["rows"]) and "sums" in ms
    assert c.get(f"/api/v1/runs/{runs['ms']}/data-pipeline").json["queue_steps"]
    assert c.get(f"/api/v1/runs/{runs['ms']}/dynamic-shape").json["data"]["types"]
    assert c.get(f"/api/v1/runs/{runs['ascend/level1']}/cluster").json["comm_matrix"]["transports"]
    msc = c.get(f"/api/v1/runs/{runs['msc']}/communication").json["data"]
    assert msc["source"] == "hccl_raw"
    advice = c.get(f"/api/v1/runs/{runs['kineto/resnet50']}/advice").json["advice"]
    ranges = [ev for f in advice["findings"] for ev in f["evidence"] if "window_ns" in ev]
    assert ranges and any("event" in ev for ev in ranges) and all("tracks" in ev for ev in ranges)
    msc = c.get(f"/api/v1/runs/{runs['msc']}/advice").json["advice"]
    assert any("worker" in ev for f in msc["findings"] for ev in f["evidence"])
    # a window that cannot be judged: the advice says why (en+zh), the overview carries it
    frag = runs["hta/call_stack"]
    notice = c.get(f"/api/v1/runs/{frag}/advice").json["advice"]["window_limit"]
    assert "profile complete training steps" in notice["en"] and "完整" in notice["zh"]
    assert c.get(f"/api/v1/runs/{frag}/overview").json["window"]["limit"]["kind"] == "fragment"
    resnet = c.get(f"/api/v1/runs/{runs['kineto/resnet50']}/advice").json["advice"]
    assert resnet["window_limit"] is None


def test_ranks_of_evidence_name_their_worker(served: Served) -> None:
    """The MindSpore cluster run's rank and link evidence names the worker of its rank (the
    cluster view's), whose communication holds the link: the link lands on that worker."""
    c = served.client
    runs = {r["name"]: r["id"] for r in c.get("/api/v1/runs").json["runs"]}
    rid = runs["msc"]
    workers = {r["rank"]: r["worker"] for r in c.get(f"/api/v1/runs/{rid}/cluster").json["stages"]}
    assert len(workers) == 4
    evidence = [ev for f in c.get(f"/api/v1/runs/{rid}/advice").json["advice"]["findings"]
                for ev in f["evidence"]]  # fmt: skip
    ranked = [ev for ev in evidence if "rank" in ev]
    assert len(ranked) >= 8 and all(ev["worker"] == workers[ev["rank"]] for ev in ranked)
    assert all("worker" not in ev for ev in evidence if "rank" not in ev)
    links = [ev for ev in ranked if ev["page"] == "communication"]
    assert links
    for ev in links:  # the page lists `link transport` (ui/src/components/stages/comm.ts)
        comm = c.get(f"/api/v1/runs/{rid}/communication", query_string={"worker": ev["worker"]})
        keys = {f"{x['link']} {x['transport']}" for x in comm.json["data"]["links"]}
        assert ev["name"] in keys, (ev, keys)


def test_run_summaries_are_declared(served: Served) -> None:
    """A run's `summary` is written by the background analysis (not run here): the same
    function over every input's real report must give a `RunSummary`."""
    for report in served.reports:
        typed = to_report({k: v for k, v in report.items() if k not in ("worker", "span")})
        msgspec.convert(input_summary(typed), RunSummary, strict=True)
    assert len(served.reports) >= len(RUNS)


def test_response_schemas_name_the_declared_fields() -> None:
    """marshmallow's `dump` sends only the fields a response schema names: a declared field
    missing there would never be sent, one not declared would be sent unchecked."""
    assert ENDPOINTS, "routes are registered on import"
    for endpoint in ENDPOINTS:
        if endpoint.response is None:
            assert endpoint.rule in DOWNLOADS
            continue
        found = ENDPOINT_ANSWERS[endpoint.rule]
        declared: set[str] = set()
        for cls in found if isinstance(found, tuple) else (found,):
            declared |= set(cls.__struct_fields__)
        assert set(endpoint.response().fields) == declared, endpoint.rule
