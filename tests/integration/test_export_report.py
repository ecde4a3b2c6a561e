"""The Excel workbook and the Markdown summary of real runs, against independent sources.

The workbook is read back with openpyxl and every sheet compared with the JSON of
`mindinsight analyse`/`advise --format json` (the CLI's own output) and, for the tables
the report does not hold, with the dashboard's API (memory allocations, operators by input
shape). Runs: a Kineto GPU run (memory events), an Ascend rank (communication, links,
operator_memory allocations, kernel details), a MindSpore legacy run (no memory, no
communication: empty sheets that say why) and a rank of a MindSpore cluster (hccl_raw
communication per step and per link).
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from mindinsight_profiler.cli.main import main
from mindinsight_profiler.export import columns as C
from mindinsight_profiler.export.bundle import gather
from mindinsight_profiler.export.columns import CATEGORY_NAMES
from mindinsight_profiler.export.markdown import render_markdown
from mindinsight_profiler.export.write import write_format
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import load_trace
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

RUNS = {
    "kineto": "kineto/resnet50_num_workers_0",
    "ascend": "ascend_pytorch/level1",
    "ms": "mindspore_legacy/run_2/normal_run/profiler",
    # four ranks of a MindSpore pipeline-parallel job: hccl_raw communication and links
    "ms_cluster": "mindspore_legacy/cluster_propose",
}
NUMERIC = {"int", "bytes", "us", "ms", "mb", "float", "ratio", "percent"}


def _cli_json(*args: str) -> Any:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return json.loads(out.getvalue())


class Case:
    """One run: its copied folder, the CLI's JSON, the workbooks (en, zh), the API."""

    def __init__(self, key: str, folder: Path, ws: Path, out: Path, client: Any, run_id: str):
        self.key, self.ws, self.client, self.run_id = key, ws, client, run_id
        run = discover(folder)[0]
        self.file = run.files[0]
        # the run's folder (an Ascend rank's advice reads its peers), this worker
        src = str(folder)
        common = ("--worker", self.file.worker, "--workspace", str(ws))
        self.report = _cli_json("analyse", src, "--format", "json", *common)
        self.advice = _cli_json("advise", src, "--format", "json", *common)
        self.bundle = bundle = gather(self.file, run, Workspace(ws))
        self.paths = {lang: out / f"{key}-{lang}.xlsx" for lang in ("en", "zh")}
        for lang, path in self.paths.items():
            write_format("xlsx", bundle, path, lang, self.file, Workspace(ws))
        self.book = openpyxl.load_workbook(self.paths["en"])
        trace = load_trace(self.file.path, Workspace(ws), None, self.file.format, self.file.worker)
        self.origin = int(trace.events["start_ns"].min())

    def sheet(self, spec: C.TableSpec) -> list[dict[str, Any]]:
        """The sheet's data rows keyed by column key (headers mapped through `spec`)."""
        ws = self.book[spec.en]
        rows = list(ws.iter_rows(values_only=True))
        by_header = {c.en: c.key for c in spec.columns}
        keys = [by_header[h] for h in rows[0]]
        data = [dict(zip(keys, r, strict=True)) for r in rows[1:]]
        if (
            len(data) == 1
            and isinstance(data[0][keys[0]], str)
            and all(v is None for v in list(data[0].values())[1:])
            and data[0][keys[0]].startswith(("no ", "the ", "not "))
        ):
            return []  # the one-line note of an empty table
        return data

    def api(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every row of a paged API table."""
        offset = 0
        while True:
            query = {**params, "offset": offset, "limit": 1000}
            r = self.client.get(f"/api/v1/runs/{self.run_id}/{path}", query_string=query)
            assert r.status_code == 200, r.json
            yield from r.json["rows"]
            offset += 1000
            if offset >= r.json["total"]:
                return


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    base = tmp_path_factory.mktemp("base").resolve()
    for key, rel in RUNS.items():
        shutil.copytree(shared(rel), base / key / ("profiler" if key.startswith("ms") else ""),
                        dirs_exist_ok=True)  # fmt: skip
    ws, out = tmp_path_factory.mktemp("ws"), tmp_path_factory.mktemp("out")
    client = create_app(Settings(base, workspace=ws), False).test_client()
    runs = client.get("/api/v1/runs").json["runs"]
    ids = {r["name"].split("/")[0]: r["id"] for r in runs}
    return {key: Case(key, base / key, ws, out, client, ids[key]) for key in RUNS}


def same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, float) or isinstance(got, float):
        assert want is not None and got is not None, (where, got, want)
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-6), (where, got, want)
    else:
        assert got == want, (where, got, want)


def compare(case: Case, spec: C.TableSpec, want: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every sheet cell equals the expected row's value (None: an empty cell)."""
    got = case.sheet(spec)
    assert len(got) == len(want), (case.key, spec.key, len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        for key, value in g.items():
            same(value, w.get(key), f"{case.key} {spec.en} row {i} {key}")
    return got


@pytest.mark.parametrize("key", list(RUNS))
def test_every_sheet_holds_the_reports_numbers(cases: dict[str, Case], key: str) -> None:
    case = cases[key]
    r, origin = case.report, case.origin
    s = r["steps"]
    steps = zip(s["names"], s["start_ns"], s["durations_us"], strict=True)
    compare(
        case,
        C.STEPS,
        [{"step": n, "start_us": (t - origin) / 1000, "duration_us": d} for n, t, d in steps],
    )
    per_step = zip(s["names"], r["breakdown_per_step_us"], strict=True)
    compare(case, C.BREAKDOWN, [{"step": n, **b, "total_us": sum(b.values())} for n, b in per_step])
    compare(case, C.STEP_TRACE, r["step_trace"]["steps"] if r["step_trace"] else [])
    compare(case, C.OPERATORS, r["operators"])
    compare(case, C.KERNELS, r["kernels"])
    compare(case, C.OP_TYPES, r["op_types"]["types"] if r["op_types"] else [])
    comm = r["communication"] or {"steps": [], "collectives": [], "links": []}
    compare(case, C.COMM_STEPS, comm["steps"])
    collectives = [
        {**c, "mean_us": c["total_us"] / c["calls"], "max_us": max(c["durations_us"])}
        for c in comm["collectives"]
    ]
    compare(case, C.COLLECTIVES, collectives)
    compare(case, C.LINKS, comm["links"])
    devices = []
    for d in (r["memory"] or {"devices": []})["devices"]:
        peak, pairs = d.get("peak_allocated"), d.get("pairs")
        devices.append({"device": d["device"], "source": d["source"], "samples": d.get("samples"),
                        "peak_allocated_bytes": peak and peak["bytes"],
                        "peak_allocated_us": peak and (peak["ts_ns"] - origin) / 1000,
                        "peak_operator": peak and peak.get("operator"),
                        "peak_reserved_bytes": (d.get("peak_reserved") or {}).get("bytes"),
                        "allocations": pairs and pairs["count"],
                        "live": pairs and pairs["live"]})  # fmt: skip
    compare(case, C.MEMORY_DEVICES, devices)
    findings = case.advice["findings"]
    got = compare(case, C.FINDINGS, [
        {"rank": i, "id": f["id"], "severity": f["severity"], "category": f["category"],
         "title": f["title"]["en"], "message": f["message"]["en"], "docs": f.get("docs"),
         "saving_ms": f["estimated_saving_us"] and f["estimated_saving_us"] / 1000,
         "saving_share": f["saving_share"],
         "actions": "\n".join(f"- {a['en']}" for a in f["actions"]) or None}
        for i, f in enumerate(findings, 1)
    ])  # fmt: skip
    assert len(got) == len(findings) > 0
    evidence = [
        {"finding": i, "id": f["id"], **e, "evidence_rank": e.get("rank"),
         "start_us": e.get("start_ns") and (e["start_ns"] - origin) / 1000,
         "end_us": e.get("end_ns") and (e["end_ns"] - origin) / 1000}
        for i, f in enumerate(findings, 1) for e in f["evidence"]
    ]  # fmt: skip
    compare(case, C.EVIDENCE, evidence)


def test_operators_by_shape_are_the_apis(cases: dict[str, Case]) -> None:
    for key in ("kineto", "ascend"):
        case = cases[key]
        want = list(case.api("operators", group_by="name_input", sort="device_self_us"))
        want = [{**w, "input_shape": json.dumps(w["input_shape"], separators=(",", ":"))}
                for w in want]  # fmt: skip
        got = case.sheet(C.OPERATORS_BY_SHAPE)
        key_of = lambda row: (row["name"], row["input_shape"])  # noqa: E731
        assert len(got) == len(want) > len(case.report["operators"])
        by_key = {key_of(w): w for w in want}
        assert len(by_key) == len(want)
        for g in got:
            w = by_key[key_of(g)]
            for k, v in g.items():
                same(v, w[k], f"{key} by shape {key_of(g)} {k}")


def test_memory_allocations_are_the_apis_events(cases: dict[str, Case]) -> None:
    seen = 0
    for key in ("kineto", "ascend"):
        case = cases[key]
        rows = case.sheet(C.MEMORY_EVENTS)
        curve = case.client.get(f"/api/v1/runs/{case.run_id}/memory/curve").json
        devices = [d["device"] for d in curve["devices"] if d["allocations"]]
        assert devices and {r["device"] for r in rows} == set(devices)
        for device in devices:
            got = [r for r in rows if r["device"] == device]
            want = list(case.api("memory/events", device=device, sort="alloc_ns", order="asc"))
            assert len(got) == len(want) > 0, (key, device)
            for g, w in zip(got, want, strict=True):
                us = {k: None if w[k] is None else w[k] / 1000
                      for k in ("alloc_ns", "release_ns", "duration_ns")}  # fmt: skip
                expected = {"device": device, "operator": w["operator"], "bytes": w["bytes"],
                            "alloc_us": us["alloc_ns"], "release_us": us["release_ns"],
                            "duration_us": us["duration_ns"], "state": w["state"],
                            "addr": w["addr"]}  # fmt: skip
                for k, v in g.items():
                    same(v, expected[k], f"{key} {device} allocation {k}")
            seen += len(got)
    assert seen > 1000  # the Kineto run alone has thousands


def test_empty_tables_keep_their_header_and_say_why(cases: dict[str, Case]) -> None:
    book = cases["ms"].book
    for title, why in ((C.MEMORY_EVENTS.en, "profile_memory=True"),
                       (C.COLLECTIVES.en, "no collective communication")):  # fmt: skip
        rows = list(book[title].iter_rows(values_only=True))
        assert len(rows) == 2 and why in rows[1][0], rows
    assert list(next(book[C.MEMORY_EVENTS.en].iter_rows(values_only=True))) == [
        c.en for c in C.MEMORY_EVENTS.columns
    ]


@pytest.mark.parametrize("key", list(RUNS))
def test_cells_are_typed_headers_frozen_and_filtered(cases: dict[str, Case], key: str) -> None:
    case = cases[key]
    book = case.book
    assert book.sheetnames == ["Summary", *(t.en for t in C.ALL)]
    numbers = 0
    for spec in C.ALL:
        ws = book[spec.en]
        assert ws.freeze_panes == "A2", spec.en
        assert ws.auto_filter.ref and ws.auto_filter.ref.startswith("A1:"), spec.en
        fmt = {c.en: c.fmt for c in spec.columns}
        header = [cell.value for cell in ws[1]]
        for row in ws.iter_rows(min_row=2):
            for h, cell in zip(header, row, strict=False):
                if fmt[h] in NUMERIC and cell.value is not None and cell.column > 1:
                    assert isinstance(cell.value, (int, float)), (spec.en, h, cell.value)
                    if fmt[h] == "ratio":
                        assert cell.number_format.endswith("%"), (spec.en, h)
                    numbers += 1
    assert numbers > 20
    units = {h for spec in C.ALL for h in (c.en for c in spec.columns)}
    assert {"Duration (us)", "Size (bytes)", "Share (%)", "Device self (us)"} <= units


def test_summary_figures_are_the_reports(cases: dict[str, Case]) -> None:
    case = cases["kineto"]
    rows = {r[0]: r[1:] for r in case.book["Summary"].iter_rows(min_row=2, values_only=True)}
    r = case.report
    same(rows["Average step (us)"][0], r["steps"]["average_us"], "average step")
    assert rows["Steps"][0] == r["steps"]["count"] == 6
    avg = r["steps"]["average_us"]
    same(rows["Kernel (us)"][1], r["breakdown_us"]["kernel"] / avg, "kernel share")
    same(rows["MFU"][0], r["perf_model"]["totals"]["mfu"], "mfu")
    assert rows["Memory peak (bytes)"][0] == max(
        d["peak_allocated"]["bytes"] for d in r["memory"]["devices"]
    )
    assert rows["Worker"][0] == "worker0" and rows["Source"][0] == str(case.file.path)


def test_zh_headers(cases: dict[str, Case]) -> None:
    book = openpyxl.load_workbook(cases["ascend"].paths["zh"], read_only=True)
    assert book.sheetnames == ["摘要", *(t.zh for t in C.ALL)]
    for spec in (C.STEPS, C.OPERATORS, C.COLLECTIVES, C.FINDINGS):
        header = list(next(book[spec.zh].iter_rows(values_only=True)))
        assert header == [c.zh for c in spec.columns], spec.key
    assert "耗时 (us)" in [c.zh for c in C.STEPS.columns]
    # the advisor's texts follow the language
    finding = next(book[C.FINDINGS.zh].iter_rows(min_row=2, max_row=2, values_only=True))
    assert any("\u4e00" <= ch <= "\u9fff" for ch in finding[4]), finding


def _md_figures(md: str) -> dict[str, tuple[str, str]]:
    """The summary's headline table: label -> (value, share)."""
    lines = md.split("| Figure | Value | Share of step |")[1].split("\n\n")[0].splitlines()[2:]
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]
    return {c[0]: (c[1], c[2]) for c in cells}


@pytest.mark.parametrize("key", list(RUNS))
def test_markdown_figures_are_the_reports(cases: dict[str, Case], key: str) -> None:
    case = cases[key]
    bundle = case.bundle
    md = render_markdown(bundle)
    got = _md_figures(md)
    r = case.report
    avg = r["steps"]["average_us"]
    want = {"Average step": (f"{avg / 1000:,.2f} ms", ""), "Steps": (str(r["steps"]["count"]), "")}
    for cat, (label, _) in CATEGORY_NAMES.items():
        value = r["breakdown_us"][cat]
        if value > 0:
            want[label] = (f"{value / 1000:,.2f} ms", f"{value / avg:.1%}")
    perf = r["perf_model"]
    if perf and perf["totals"] and perf["totals"]["mfu"] is not None:
        want[f"MFU ({perf['device']['name']})"] = (f"{perf['totals']['mfu']:.1%}", "")
    wait = (r["data_pipeline"] or {}).get("data_wait")
    if wait:
        share = f"{wait['share']:.1%}" if wait["share"] is not None else ""
        want["Data wait per step"] = (f"{wait['average_us'] / 1000:,.2f} ms", share)
    else:
        assert "Data wait per step" not in got
    if r["communication"] and r["communication"]["average"]["step_us"]:
        a = r["communication"]["average"]
        want["Communication per step"] = (
            f"{a['communication_us'] / 1000:,.2f} ms",
            f"{a['communication_us'] / a['step_us']:.1%}",
        )
    for label, value in want.items():
        assert got[label] == value, (key, label, got[label], value)
    assert got["Findings"][0] == str(len(bundle.advice.findings))
    if key == "kineto":  # the accelerator's peak, not the host's
        cuda = next(d for d in r["memory"]["devices"] if d["device"] == "CUDA:0")
        assert (
            got["Memory peak (CUDA:0, allocated)"][0]
            == f"{cuda['peak_allocated']['bytes'] / 2**30:,.2f} GiB"
        )
        assert "MFU (V100 SXM2 32GB)" in got
    if key == "ascend":
        assert "Communication per step" in got and "Exposed communication per step" in got
    # the first finding's title and saving are in the findings table
    f = bundle.advice.findings[0]
    row = next(line for line in md.splitlines() if line.startswith("| 1 | "))
    assert f.title.en.split("(")[0].strip() in row and f.severity in row
    if f.estimated_saving_us:
        assert f"| {f.estimated_saving_us / 1000:,.2f} |" in row


def test_markdown_in_chinese_names_severities_and_units_in_chinese(
    cases: dict[str, Case],
) -> None:
    """The zh summary's findings table and notes read as Chinese: no 'high'/'ms/step'."""
    bundle = cases["ascend"].bundle
    md = render_markdown(bundle, "zh")
    rows = [line for line in md.splitlines() if re.match(r"^\| \d+ \|", line)]
    severities = {"high": "高", "medium": "中", "low": "低"}
    want = [severities[f.severity] for f in bundle.advice.findings[: len(rows)]]
    assert rows and [r.split("|")[2].strip() for r in rows] == want
    assert "/step" not in md and "more" not in md and "folder of the run" not in md
    if len(bundle.advice.findings) > len(rows):
        assert f"另有 {len(bundle.advice.findings) - len(rows)} 条" in md
