"""Every /api/v1 endpoint against the CLI's JSON for the same input (same numbers).

A temporary base dir holds a Kineto GPU run, an Ascend two-rank run and a MindSpore run.
The real CLI (`analyse`, `advise`, `diff --format json`) analyses them into a workspace;
the timeline index is added the way the background analysis will (`load_timeline`); then
a Flask test client over `create_app` asks the API, which reads only that cache.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.cluster.summary import cluster_summary
from mindinsight_profiler.analysis.cluster.view import cluster_outliers, comm_matrix
from mindinsight_profiler.analysis.memory.ledger import memory_ledgers
from mindinsight_profiler.analysis.timeline.export import export_chrome_trace
from mindinsight_profiler.analysis.timeline.window import search_events, timeline_window
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import load_timeline
from mindinsight_profiler.server.answers import answer_types
from mindinsight_profiler.server.answers import publish as api_schema
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.server.service import without_windows

RUNS = {
    "kineto": ("kineto/resnet50_num_workers_0", "kineto/resnet50"),
    "ascend": ("ascend_pytorch/level1", "ascend/level1"),
    "ms": ("mindspore_legacy/run_2/normal_run/profiler", "ms/profiler"),
}
WORKERS = {"kineto": ["worker0"], "ascend": ["rank0", "rank1"], "ms": ["rank1"]}


def cli_json(*args: str | Path) -> Any:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Api:
    """The test client, the runs' ids and folders, and the CLI's answers per run/worker."""

    def __init__(self, base: Path, ws: Path) -> None:
        self.base, self.ws = base, ws
        # a MindSpore profiler folder's run is the folder holding it
        self.folder = {"kineto": base / "kineto/resnet50", "ascend": base / "ascend/level1",
                       "ms": base / "ms"}  # fmt: skip
        self.cli: dict[tuple[str, str], dict[str, Any]] = {}
        self.advice: dict[str, dict[str, Any]] = {}
        for key, workers in WORKERS.items():
            for w in workers:
                self.cli[key, w] = cli_json("analyse", self.folder[key], "--worker", w,
                                            "--format", "json", "--workspace", ws)  # fmt: skip
            # the index first: adding it rewrites the cache entry, which drops stored advice
            for file in discover(self.folder[key])[0].files:
                load_timeline(file.path, Workspace(ws), None, file.format, file.worker)
            self.advice[key] = cli_json("advise", self.folder[key], "--format", "json",
                                        "--workspace", ws)  # fmt: skip
        app = create_app(Settings(base, workspace=ws), start_background_work=False)
        self.client: FlaskClient = app.test_client()
        runs = self.client.get("/api/v1/runs").json["runs"]
        by_path = {r["name"]: r["id"] for r in runs}
        self.id = {k: by_path[self.folder[k].relative_to(base).as_posix()] for k in RUNS}

    def get(self, key: str, path: str, **params: Any) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/runs/{self.id[key]}/{path}", query_string=params)
        assert response.status_code == 200, response.json
        body: dict[str, Any] = response.json
        return body


@pytest.mark.parametrize("key", list(RUNS))
def test_report_sections_equal_the_cli(api: Api, key: str) -> None:
    for worker in WORKERS[key]:
        cli = api.cli[key, worker]
        overview = api.get(key, "overview", worker=worker)
        assert overview["worker"] == worker and overview["span"] == cli["span"]
        for section in ("format", "steps", "breakdown_us", "gpu", "op_types", "distributed"):
            assert overview[section] == cli[section], section
        if cli["memory"]:
            peaks = [d["peak_allocated"] for d in overview["memory"]["devices"]]
            assert peaks == [d["peak_allocated"] for d in cli["memory"]["devices"]]
        wait = overview["data_pipeline"]["data_wait"]
        assert wait["average_us"] == cli["data_pipeline"]["data_wait"]["average_us"]
        for path, section in (("step-trace", "step_trace"), ("data-pipeline", "data_pipeline"),
                              ("memory", "memory"), ("communication", "communication"),
                              ("modules", "modules")):  # fmt: skip
            assert api.get(key, path, worker=worker)["data"] == cli[section], path


def _all_rows(api: Api, key: str, path: str, **params: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while True:
        page = api.get(key, path, offset=len(rows), limit=40, **params)
        rows += page["rows"]
        if len(rows) >= page["total"]:
            return rows


def _by_name(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.parametrize("key", list(RUNS))
def test_operator_and_kernel_tables_page_through_the_cli_rows(api: Api, key: str) -> None:
    cli = api.cli[key, WORKERS[key][0]]
    ops = _all_rows(api, key, "operators")
    assert _by_name(ops) == _by_name(cli["operators"])
    times = [r["device_self_us"] for r in ops]
    assert times == sorted(times, reverse=True)
    kernels = _all_rows(api, key, "kernels", sort="total_us", order="asc")
    assert _by_name(kernels) == _by_name(cli["kernels"])
    assert [r["total_us"] for r in kernels] == sorted(r["total_us"] for r in cli["kernels"])
    if cli["kernels"]:
        needle = cli["kernels"][0]["name"][:6].lower()
        hits = api.get(key, "kernels", search=needle.upper(), limit=1000)
        assert hits["total"] == sum(needle in r["name"].lower() for r in cli["kernels"])
    # every type; the report keeps the top ten and sums the rest into "others"
    types = api.get(key, "operators", group_by="type", limit=1000)["rows"]
    if cli["op_types"]["by"] == "kernel_ns":
        # Ascend: the overview's types are the kernels' (op_statistic.csv's); the operators
        # page groups the framework's operators, so its types are aten's
        assert types and all(t["type"] != cli["op_types"]["types"][0]["type"] for t in types)
        return
    top = [t for t in cli["op_types"]["types"] if t["type"] != "others"]
    assert types[: len(top)] == top
    rest = cli["op_types"]["types"][len(top) :]
    assert sum(t["calls"] for t in types[len(top) :]) == sum(t["calls"] for t in rest)


def test_groupings_and_instances_equal_the_cli(api: Api) -> None:
    folder = api.folder["kineto"]
    cli = cli_json("analyse", folder, "--format", "json", "--workspace", api.ws,
                   "--group-by", "name_input", "--kernel-group-by", "name_op_launch")  # fmt: skip
    ops = _all_rows(api, "kineto", "operators", group_by="name_input")
    assert _by_name(ops) == _by_name(cli["operators"])
    kernels = _all_rows(api, "kineto", "kernels", group_by="name_op_launch")
    assert _by_name(kernels) == _by_name(cli["kernels"])
    by_name = api.cli["kineto", "worker0"]["operators"]
    conv = api.get("kineto", "operators", group_by="instance", search="aten::conv2d",
                   sort="device_total_ns", limit=5)  # fmt: skip
    row = next(r for r in by_name if r["name"] == "aten::conv2d")
    assert conv["total"] == row["calls"]
    assert len(conv["rows"]) == 5 and all(r["name"] == "aten::conv2d" for r in conv["rows"])


def test_a_quoted_search_is_one_exact_name(api: Api) -> None:
    """`aten::add` is also part of `aten::add_`: plain text finds both, quotes only it."""
    by_name = {r["name"]: r for r in api.cli["kineto", "worker0"]["operators"]}
    assert {"aten::add", "aten::add_"} <= set(by_name)
    part = _all_rows(api, "kineto", "operators", group_by="instance", search="ATEN::ADD")
    assert {"aten::add", "aten::add_"} <= {r["name"] for r in part}
    exact = _all_rows(api, "kineto", "operators", group_by="instance", search='"aten::add"')
    assert {r["name"] for r in exact} == {"aten::add"}
    assert len(exact) == by_name["aten::add"]["calls"]
    named = api.get("kineto", "operators", search='"aten::add"', limit=100)["rows"]
    assert [r["name"] for r in named] == ["aten::add"]
    assert api.get("kineto", "operators", search='"ATEN::ADD"')["total"] == 0  # exact: case too


def test_operator_evidence_lands_on_rows(api: Api) -> None:
    """The dashboard opens `operator` evidence as a "quoted" name search and `operator_type`
    evidence in the by-type view: every name the advisor cites must be a row there."""
    cited: set[str] = set()
    for key in RUNS:
        for finding in api.get(key, "advice")["advice"]["findings"]:
            for ev in finding["evidence"]:
                if ev.get("page") != "operators" or not ev.get("name"):
                    continue
                if ev["kind"] == "operator_type":
                    rows = api.get(key, "operators", group_by="type", search=ev["name"])["rows"]
                    assert ev["name"] in [r["type"] for r in rows], (key, finding["id"], ev)
                else:
                    found = api.get(key, "operators", search=f'"{ev["name"]}"')
                    assert found["total"] == 1, (key, finding["id"], ev["name"])
                cited.add(ev["kind"])
    assert cited == {"operator", "operator_type"}


def test_cluster_diff_and_advice_equal_the_cli(api: Api) -> None:
    reports = [api.cli["ascend", w] for w in WORKERS["ascend"]]
    cluster = api.get("ascend", "cluster")
    assert {k: cluster[k] for k in ("ranks", "slowest", "collectives")} == cluster_summary(reports)
    assert cluster["outliers"] == cluster_outliers(cluster["ranks"], cluster["stages"])
    assert cluster["comm_matrix"] == comm_matrix(reports) and cluster["comm_matrix"]["transports"]
    assert cluster["workers"] == ["rank0", "rank1"]
    cli_diff = cli_json("diff", api.folder["kineto"], api.folder["ms"], "--format", "json",
                        "--top", "7", "--workspace", api.ws)  # fmt: skip
    diff = api.get("kineto", "diff", other=api.id["ms"], top=7)
    assert {k: diff[k] for k in cli_diff} == cli_diff
    assert diff["other"]["run"] == api.id["ms"]
    for key in RUNS:
        served = api.get(key, "advice")["advice"]
        file = discover(api.folder[key])[0].select()
        index = load_timeline(file.path, Workspace(api.ws), None, file.format, file.worker)[1]
        origin = int(index["timeline_meta"]["origin_ns"][0])
        windows = 0
        for finding in served["findings"]:
            for ev in finding["evidence"]:
                if "start_ns" in ev:  # a time range, also relative to the timeline's origin
                    assert ev["window_ns"] == [ev["start_ns"] - origin, ev["end_ns"] - origin]
                    windows += 1
                assert ("window_ns" in ev) == ("start_ns" in ev)
        assert without_windows(served) == api.advice[key]
        assert windows > 0 or key != "kineto"  # the GPU run's idle gaps are time ranges
    high = without_windows(api.get("kineto", "advice", min_severity="high")["advice"])["findings"]
    assert high == [f for f in api.advice["kineto"]["findings"] if f["severity"] == "high"]


def test_perf_model_is_the_cli_section_with_windows_from_the_origin(api: Api) -> None:
    """The rows' longest calls come relative to the timeline's origin (a browser's doubles
    cannot hold epoch ns, and the timeline's times start there); the rest is the CLI's."""
    for key in RUNS:
        cli = copy.deepcopy(api.cli[key, WORKERS[key][0]]["perf_model"])  # shared: popped
        served = api.get(key, "perf-model", worker=WORKERS[key][0])["data"]
        if cli is None:
            assert served is None, key
            continue
        file = discover(api.folder[key])[0].select()
        index = load_timeline(file.path, Workspace(api.ws), None, file.format, file.worker)[1]
        origin = int(index["timeline_meta"]["origin_ns"][0])
        moved = 0
        for table in ("operators", "shapes", "kernels"):
            for row, mine in zip(served[table], cli[table], strict=True):
                start, end = row.pop("longest_call_ns")
                assert [start + origin, end + origin] == mine.pop("longest_call_ns"), key
                assert 0 <= start <= end, (key, row["name"])
                moved += 1
        assert served == cli, key
        assert moved > 0 or key != "kineto"


@pytest.mark.parametrize("key", list(RUNS))
def test_timeline_window_search_and_export(api: Api, key: str, tmp_path: Path) -> None:
    file = discover(api.folder[key])[0].select()
    trace, index = load_timeline(file.path, Workspace(api.ws), None, file.format, file.worker)
    origin = int(index["timeline_meta"]["origin_ns"][0])
    window = api.get(key, "timeline", start_ns=1000, end_ns=50_000_000, width_px=800)["window"]
    ledgers = memory_ledgers(trace)
    assert window == timeline_window(trace, index, None, origin + 1000, origin + 50_000_000, 800,
                                     ledgers=ledgers)  # fmt: skip
    whole = api.get(key, "timeline", tracks="0,1", max_items=300)["window"]
    assert [t["id"] for t in whole["tracks"]] == [0, 1] and whole["t0_ns"] == 0
    name = trace.strings.to_list()[int(trace.events["name"][0])]
    found = api.get(key, "timeline/search", q=name[:8], limit=20)["window"]
    assert found == search_events(trace, name[:8], 20) and found["total"] >= 1
    response = api.client.get(f"/api/v1/runs/{api.id[key]}/timeline/export")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    export_chrome_trace(trace, tmp_path / "direct.json.gz")
    got = json.loads(gzip.decompress(response.data))
    assert got == json.loads(gzip.decompress((tmp_path / "direct.json.gz").read_bytes()))


@pytest.mark.parametrize("key", list(RUNS))
def test_timeline_counters_hold_the_memory_peaks_and_check_their_window(api: Api, key: str) -> None:
    """The whole-trace window's memory counters reach each device's peak; a bad window or
    width is a 400 naming the parameter."""
    file = discover(api.folder[key])[0].select()
    trace, _ = load_timeline(file.path, Workspace(api.ws), None, file.format, file.worker)
    whole = api.get(key, "timeline", width_px=300)["window"]
    series = {(c["name"], c["device"]): c for c in whole["counters"]}
    assert ("device_busy", "") in series
    assert all(0 <= v <= 1 for v in series["device_busy", ""]["values"])
    ledgers = memory_ledgers(trace)
    assert ledgers or key == "ms"  # this MindSpore run was profiled without memory
    for ledger in ledgers:
        if (ledger.allocated >= 0).any():
            got = series["memory_allocated", ledger.device]["values"]
            assert max(got) == ledger.allocated.max(), ledger.device
    getnext = trace.tables.get("getnext")
    if key == "ms":  # the device's data queue at each GetNext: its emptiest moment kept
        assert getnext is not None and len(getnext["queue_size"])
        assert min(series["device_queue", ""]["values"]) == getnext["queue_size"].min()
    for params, name in (({"start_ns": 10, "end_ns": 10}, "end_ns"), ({"start_ns": -1}, "start_ns"),
                         ({"width_px": 0}, "width_px"), ({"end_ns": "x"}, "end_ns")):  # fmt: skip
        response = api.client.get(f"/api/v1/runs/{api.id[key]}/timeline", query_string=params)
        assert response.status_code == 400, (params, response.json)
        assert name in json.dumps(response.json), response.json


def test_openapi_lists_every_route(api: Api) -> None:
    doc = api.client.get("/api/v1/openapi.json").json
    assert doc["openapi"].startswith("3.") and doc["servers"] == [{"url": "/api/v1"}]
    app = api.client.application
    routes = {r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/api/v1/")}
    documented = {"/api/v1" + p.replace("{run}", "<run>") for p in doc["paths"]}
    assert routes <= documented
    params = {p["name"] for p in doc["paths"]["/runs/{run}/operators"]["get"]["parameters"]}
    assert {"run", "worker", "span", "sort", "search", "offset", "limit", "group_by"} <= params


def test_openapi_answers_are_the_declared_structs(api: Api) -> None:
    """The document's answer components are the answer structs' schemas (the same as
    docs/schema/api.schema.json's $defs), and every reference resolves."""
    doc = api.client.get("/api/v1/openapi.json").json
    components = doc["components"]["schemas"]
    published = json.loads(api_schema.render())["$defs"]
    for name, schema in published.items():
        if name in {c.__name__ for c in answer_types()} or name in components:
            text = json.dumps(schema, sort_keys=True).replace("#/$defs/", "#/components/schemas/")
            assert json.dumps(components[name], sort_keys=True) == text, name
    ok = doc["paths"]["/runs/{run}/overview"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Overview"}
    refs = re.findall(r'"#/components/schemas/([A-Za-z0-9_.]+)"', json.dumps(doc))
    assert refs and set(refs) <= set(components)


def test_not_analysed_yet_is_409(tmp_path: Path) -> None:
    base = tmp_path / "base"
    shutil.copytree(shared(RUNS["ms"][0]), base / "ms" / "profiler")
    client = create_app(Settings(base, workspace=tmp_path / "ws"), False).test_client()
    rid = client.get("/api/v1/runs").json["runs"][0]["id"]
    for path in ("overview", "operators", "timeline", "advice", "cluster", "timeline/export"):
        response = client.get(f"/api/v1/runs/{rid}/{path}")
        assert response.status_code == 409 and response.json["error"]["code"] == "not_ready"
