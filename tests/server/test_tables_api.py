"""What the dashboard's table pages ask of /operators and /kernels beyond the report's rows:
every operator type, the sums of additive columns over all matching rows, sorting by name,
and instance pages sorted by the rows' own `*_us` names with each call's timeline offset.

Checked on the real runs of test_api_endpoints (same CLI-filled workspace) against the
analysis functions on the cached trace, not against numbers copied from an answer.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from mindinsight_profiler.analysis.operators.by_type import op_type_table
from mindinsight_profiler.analysis.operators.query import instance_table, op_type_summary
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import load_timeline
from mindinsight_profiler.store.cache import Workspace
from tests.server.test_api_endpoints import RUNS, Api, _all_rows


def _trace(api: Api, key: str) -> Any:
    file = discover(api.folder[key])[0].select()
    return load_timeline(file.path, Workspace(api.ws), None, file.format, file.worker)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


@pytest.mark.parametrize("key", list(RUNS))
def test_every_operator_type_is_served(api: Api, key: str) -> None:
    trace, _ = _trace(api, key)
    table = instance_table(trace, op_tree(trace))
    if key == "ms":  # legacy MindSpore: the per-instance AI Core table, as in the report
        t = op_type_table(trace)
        columns = zip(t["op_type"], t["calls"], t["total_us"], strict=True)
        expected = [{"type": n, "calls": c, "total_us": u} for n, c, u in columns]
        by = "total_ns"
    else:
        summary = op_type_summary(table, top=len(table.types))
        expected = [{k: r[k] for k in ("type", "calls", "total_us")} for r in summary["types"]]
        by = summary["by"]
        assert sum(r["calls"] for r in expected) == len(table)
    assert all(r["type"] != "others" for r in expected) and len(expected) > 10
    page = api.get(key, "operators", group_by="type", limit=1000)
    assert page["by"] == by and page["total"] == len(expected)
    got = [{k: r[k] for k in ("type", "calls", "total_us")} for r in page["rows"]]
    assert got == expected
    assert _close(page["sums"]["total_us"], sum(r["total_us"] for r in expected))
    assert page["sums"]["calls"] == sum(r["calls"] for r in expected)


@pytest.mark.parametrize("key", list(RUNS))
def test_sums_cover_every_matching_row(api: Api, key: str) -> None:
    times = ["host_self_us", "host_total_us", "device_self_us", "device_total_us"]
    for path, group, additive in (("operators", "name", times), ("operators", "name_input", times),
                                  ("kernels", "name", ["total_us"])):  # fmt: skip
        rows = _all_rows(api, key, path, group_by=group)
        if not rows:
            continue
        needle = rows[len(rows) // 2]["name"][:4].lower()
        page = api.get(key, path, group_by=group, search=needle, limit=3)
        hits = [r for r in rows if needle in r["name"].lower()]
        assert page["total"] == len(hits) and len(page["rows"]) == min(3, len(hits))
        columns = {"calls", *additive}
        assert set(page["sums"]) == columns
        for column in columns:
            assert _close(page["sums"][column], sum(float(r[column] or 0) for r in hits)), column
        assert "mean_us" not in page["sums"] and "occupancy" not in page["sums"]


def test_sort_by_name_as_text(api: Api) -> None:
    for path, key in (("operators", "name"), ("kernels", "name")):
        rows = _all_rows(api, "ascend", path, sort=key, order="asc")
        names = [r["name"] for r in rows]
        assert names == sorted(names, key=lambda n: (n.lower(), n)) and len(set(names)) > 20
        first = api.get("ascend", path, sort=key, order="desc", limit=1)["rows"][0]
        assert first["name"] == names[-1]
    types = api.get("kineto", "operators", group_by="type", sort="type", order="asc", limit=1000)
    assert [r["type"] for r in types["rows"]] == sorted(
        (r["type"] for r in types["rows"]), key=lambda n: (n.lower(), n)
    )
    url = f"/api/v1/runs/{api.id['kineto']}/operators"
    bad = api.client.get(url, query_string={"sort": "type"})
    assert bad.status_code == 400 and bad.json["error"]["parameter"] == "sort"


def test_instances_sort_by_us_names_and_carry_timeline_offsets(api: Api) -> None:
    _, index = _trace(api, "kineto")
    origin_us = int(index["timeline_meta"]["origin_ns"][0]) / 1000.0
    for column in ("device_self", "host_total", "start"):
        by_ns = api.get("kineto", "operators", group_by="instance", sort=f"{column}_ns", limit=20)
        by_us = api.get("kineto", "operators", group_by="instance", sort=f"{column}_us", limit=20)
        assert by_us["rows"] == by_ns["rows"] and by_us["sort"] == f"{column}_us"
        values = [r[f"{column}_us"] for r in by_us["rows"]]
        assert values == sorted(values, reverse=True)
    page = api.get("kineto", "operators", group_by="instance", type="copy_,add_", limit=50)
    assert {r["type"] for r in page["rows"]} == {"copy_", "add_"}
    for row in page["rows"]:
        assert _close(row["offset_us"], row["start_us"] - origin_us) and row["offset_us"] >= 0
    bad = api.client.get(f"/api/v1/runs/{api.id['kineto']}/operators",
                         query_string={"group_by": "instance", "sort": "calls"})  # fmt: skip
    assert bad.status_code == 400 and bad.json["error"]["parameter"] == "sort"
    assert "device_self_us" in bad.json["error"]["message"]


def test_instances_of_an_input_that_records_them_as_a_table(api: Api) -> None:
    trace, _ = _trace(api, "ms")
    side = trace.tables["operators"]
    assert not len(instance_table(trace, op_tree(trace)))  # no operator calls in the trace
    every = _all_rows(api, "ms", "operators", group_by="instance")
    assert len(every) == len(side["name"])
    assert sum(r["calls"] for r in every) == int(side["calls"].sum())
    assert _close(sum(r["device_self_us"] for r in every), float(side["total_ns"].sum()) / 1000)
    times = [r["device_self_us"] for r in every]
    assert times == sorted(times, reverse=True)
    assert all(r["start_us"] is None and r["host_self_us"] is None for r in every)
    types = api.get("ms", "operators", group_by="type", limit=1000)["rows"]
    for t in types[:3]:
        page = api.get("ms", "operators", group_by="instance", type=t["type"], limit=1000)
        assert {r["type"] for r in page["rows"]} == {t["type"]}
        assert sum(r["calls"] for r in page["rows"]) == t["calls"]
        assert _close(page["sums"]["device_self_us"], t["total_us"])
        assert "host_self_us" not in page["sums"]
    # a column the input lacks sorts (all equal) instead of failing
    assert api.get("ms", "operators", group_by="instance", sort="host_self_us")["total"] == len(
        every
    )


@pytest.mark.parametrize(
    ("path", "params", "key"),
    [
        ("operators", {}, "name"),
        ("operators", {"group_by": "type"}, "type"),
        ("kernels", {}, "name"),
    ],
)
def test_focus_answers_the_page_that_holds_the_row(
    api: Api, path: str, params: dict[str, Any], key: str
) -> None:
    """An evidence link's row (`focus`, its key exactly) lands on the page that holds it,
    sorted as asked; a key no row has leaves the page asked for, with `focus_index` null."""
    every = api.get("kineto", path, limit=1000, **params)["rows"]
    assert len(every) > 25
    for at in (0, 7, 23, len(every) - 1):
        name = every[at][key]
        first = next(i for i, r in enumerate(every) if r[key] == name)  # by name+... repeats
        page = api.get("kineto", path, limit=10, focus=name, **params)
        assert page["offset"] == first - first % 10 and page["focus_index"] == first % 10
        assert page["rows"][page["focus_index"]][key] == name
        assert page["rows"] == every[page["offset"] : page["offset"] + 10]
    missing = api.get("kineto", path, limit=10, offset=10, focus="no such row", **params)
    assert missing["focus_index"] is None and missing["offset"] == 10
    assert "focus_index" not in api.get("kineto", path, limit=10, **params)
    # a name is matched whole: its first characters are no row's key here
    part = api.get("kineto", path, limit=10, focus=every[0][key][:-1], **params)
    assert part["focus_index"] is None


def test_focus_is_refused_per_call(api: Api) -> None:
    response = api.client.get(
        f"/api/v1/runs/{api.id['kineto']}/operators",
        query_string={"group_by": "instance", "focus": "aten::mm"},
    )
    assert response.status_code == 400 and response.json["error"]["parameter"] == "focus"
