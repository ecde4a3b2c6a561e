"""The MCP server's tools, through the SDK's client (in-process here; as a subprocess over
stdio and HTTP in test_mcp_transports.py): every tool on a Kineto, an Ascend and a
MindSpore run gives the report's figures, stays under the stated size, names the
parameter of a bad argument, and reaches nothing outside the base folder."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import shared

pytest.importorskip("mcp", reason="the MCP SDK is a dev dependency")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mindinsight_profiler.agents.answers import MAX_ANSWER_BYTES
from mindinsight_profiler.agents.catalog import Catalog
from mindinsight_profiler.agents.server import build_server
from mindinsight_profiler.cli.main import main as cli_main
from mindinsight_profiler.store.cache import Workspace

#: base-folder name -> shared run
RUNS = {
    "kineto_gpu": "kineto/resnet50_num_workers_0",
    "ascend/rank0_ascend_pt": "ascend_pytorch/level1/rank0_ascend_pt",
    "mindspore": "mindspore_legacy/run_2/normal_run",
    "nccl": "hta/trace_filter",
}


#: a PyTorch 2.x CPU trace recorded with_stack (python_function ranges)
WITH_STACK = "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json"


def make_base(root: Path) -> Path:
    base = root / "base"
    for name, rel in RUNS.items():
        shutil.copytree(shared(rel), base / name)
    (base / "torch_cpu").mkdir()
    shutil.copy(shared(WITH_STACK), base / "torch_cpu")
    return base


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base(tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
def catalog(base: Path, tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return Catalog(base, Workspace(tmp_path_factory.mktemp("mcp-ws")))


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


ROOT = Path(__file__).resolve().parents[2]


def stdio_server(catalog: Catalog) -> StdioServerParameters:
    """`mindinsight mcp` over the catalog's folder and workspace, as a subprocess."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    ws = catalog.workspace.root if catalog.workspace is not None else Path(os.devnull)
    args = ["-m", "mindinsight_profiler", "mcp", "--summary-base-dir", str(catalog.base_dir),
            "--workspace", str(ws)]  # fmt: skip
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(catalog: Catalog, *extra: str) -> Iterator[str]:
    """`mindinsight mcp --transport http` on a free loopback port; yields its URL."""
    stdio = stdio_server(catalog)
    port = _free_port()
    command = [stdio.command, *stdio.args, "--transport", "http", "--port", str(port), *extra]
    proc = subprocess.Popen(command, env=stdio.env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the MCP server did not start"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def with_client(
    catalog: Catalog, body: Callable[[Call], Awaitable[None]], transport: str = "in-process"
) -> None:
    """Run `body` with a `call(tool, args)` through the SDK's client: in this process, or
    to `mindinsight mcp` as a subprocess over stdio or over HTTP."""
    with contextlib.ExitStack() as stack:
        server: Any
        if transport == "in-process":
            server = build_server(catalog)
        elif transport == "stdio":
            server = stdio_server(catalog)
        else:
            server = stack.enter_context(http_server(catalog))

        async def main() -> None:
            async with Client(server) as client:

                async def call(name: str, args: dict[str, Any]) -> Any:
                    result = await client.call_tool(name, args)
                    text = result.content[0].text if result.content else ""
                    if result.is_error:
                        return {"error": text}
                    assert len(text.encode()) <= MAX_ANSWER_BYTES, (name, len(text))
                    return json.loads(text)

                await body(call)

        asyncio.run(main())


def _report(catalog: Catalog, run: str, capsys: pytest.CaptureFixture[str]) -> Any:
    path = catalog.run(run).path
    assert cli_main(["analyse", str(path), "--format", "json", "--workspace",
                     str(catalog.workspace.root)]) == 0  # type: ignore[union-attr]  # fmt: skip
    return json.loads(capsys.readouterr().out)


def test_runs_are_listed_by_name(catalog: Catalog) -> None:
    async def body(call: Call) -> None:
        listed = await call("list_runs", {})
        names = {r["run"] for r in listed["runs"]}
        assert names == {r.name for r in catalog.runs()} and len(names) >= 4
        formats = {f for r in listed["runs"] for f in r["formats"]}
        assert len(formats) >= 3  # kineto, an Ascend and a MindSpore reader

    with_client(catalog, body)


@pytest.mark.parametrize("transport", ["in-process", "stdio", "http"])
@pytest.mark.parametrize("run", ["kineto_gpu", "ascend", "mindspore"])
def test_every_tool_on_each_format(
    run: str, transport: str, catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    name = next(r.name for r in catalog.runs() if r.name.startswith(run))
    report = _report(catalog, name, capsys)

    async def body(call: Call) -> None:
        overview = await call("run_overview", {"run": name})
        assert "error" not in overview, overview
        assert overview["steps"]["average_us"] == report["steps"]["average_us"]
        assert overview["average_step_breakdown_us"] == report["breakdown_us"]
        ops = await call("operators", {"run": name, "limit": 5})
        key = ops["sort"]
        want = sorted(report["operators"], key=lambda r: -(r.get(key) or 0.0))[:5]
        assert ops["rows"] == want and ops["total"] == len(report["operators"])
        kernels = await call("kernels", {"run": name, "limit": 5})
        assert kernels["total"] == len(report["kernels"])
        for section in ("step_trace", "data_pipeline", "memory", "communication", "perf_model"):
            got = await call(section, {"run": name})
            assert "error" not in got, (section, got)
            if report[section] is None:
                assert got[section] is None
        advice = await call("advise", {"run": name, "limit": 3})
        assert "error" not in advice and len(advice["findings"]) <= 3
        if advice["findings"]:
            first = advice["findings"][0]["id"]
            explained = await call("explain_finding", {"run": name, "finding_id": first})
            assert explained["id"] == first and all(
                e["evidence_id"].startswith(f"{first}#") for e in explained["evidence"]
            )
        start = report["steps"]["start_ns"][0] if report["steps"]["start_ns"] else 0
        window = await call("timeline_window", {"run": name, "start_ns": start,
                                                "end_ns": start + 10**9, "limit": 20})  # fmt: skip
        assert "error" not in window, window
        assert 0 < len(window["events"]) + len(window["blocks"]) <= 20
        edge = start - window["bucket_ns"]  # the index answers whole buckets
        assert all(edge <= e["start_ns"] + e["duration_us"] * 1000 for e in window["events"])
        if report["operators"]:
            op = report["operators"][0]["name"]
            found = await call("find_events", {"run": name, "name": f'"{op}"', "limit": 5})
            assert found["total"] >= 1 and all(e["name"] == op for e in found["events"])
        diff = await call("diff_runs", {"before": name, "after": name, "top": 3})
        assert diff["step"]["delta_us"] == 0
        if report["operators"]:
            lines = await call("source_lines", {"run": name, "name": f'"{op}"', "limit": 2})
            assert lines["events"] >= 1 and len(lines["stacks"]) <= 2

    with_client(catalog, body, transport)


@pytest.mark.parametrize("transport", ["in-process", "stdio", "http"])
def test_cluster_and_listing(transport: str, catalog: Catalog) -> None:
    async def body(call: Call) -> None:
        got = await call("cluster", {"run": "nccl"})
        assert "error" not in got and got["rank_count"] == 2
        assert {c["name"] for c in got["collectives"]}
        listed = await call("list_runs", {})
        assert {r["run"] for r in listed["runs"]} == {r.name for r in catalog.runs()}

    with_client(catalog, body, transport)


@pytest.mark.parametrize(
    ("tool", "args", "parameter"),
    [
        ("run_overview", {"run": "../../etc"}, "run"),
        ("run_overview", {"run": "/etc/passwd"}, "run"),
        ("run_overview", {"run": "kineto_gpu", "worker": "nobody"}, "worker"),
        ("operators", {"run": "kineto_gpu", "group_by": "everything"}, "group_by"),
        ("operators", {"run": "kineto_gpu", "sort": "name; drop"}, "sort"),
        ("operators", {"run": "kineto_gpu", "limit": 100000}, "limit"),
        ("operators", {"run": "kineto_gpu", "offset": -1}, "offset"),
        ("explain_finding", {"run": "kineto_gpu", "finding_id": "nope"}, "finding_id"),
        (
            "timeline_window",
            {"run": "kineto_gpu", "start_ns": 0, "end_ns": 1, "tracks": ["no/such"]},
            "tracks",
        ),
        ("timeline_window", {"run": "kineto_gpu", "start_ns": "soon", "end_ns": 1}, "start_ns"),
        ("timeline_window", {"run": "kineto_gpu", "start_ns": 5, "end_ns": 1}, "end_ns"),
        ("diff_runs", {"before": "kineto_gpu", "after": "../x"}, "run"),
    ],
)
def test_bad_arguments_name_the_parameter(
    tool: str, args: dict[str, Any], parameter: str, catalog: Catalog
) -> None:
    async def body(call: Call) -> None:
        got = await call(tool, args)
        assert "error" in got, got
        assert parameter in got["error"], got["error"]

    with_client(catalog, body)


def test_a_link_out_of_the_base_folder_is_not_a_run(tmp_path: Path) -> None:
    base = make_base(tmp_path)
    outside = tmp_path / "outside"
    shutil.copytree(shared(RUNS["nccl"]), outside)
    (base / "escape").symlink_to(outside, target_is_directory=True)
    catalog = Catalog(base, None)
    names = {r.name for r in catalog.runs()}
    assert not any(n.startswith("escape") for n in names), names

    async def body(call: Call) -> None:
        got = await call("run_overview", {"run": "escape"})
        assert "error" in got and got["error"].count("run:") == 1

    with_client(catalog, body)


def test_source_lines_from_both_kinds_of_stack(catalog: Catalog) -> None:
    async def body(call: Call) -> None:
        # the 2021 schema's `Call stack` args; a runtime call takes its operator's stack
        old = await call("source_lines", {"run": "kineto_gpu", "name": '"cudaMemcpyAsync"'})
        assert old["events"] == old["with_stack"] == 12
        assert old["stacks"][0]["user_frames"] == ["resnet50_profiler_api.py(44): <module>"]
        # PyTorch 2.x python_function ranges around the operator
        run = next(r.name for r in catalog.runs() if r.name.startswith("torch_cpu"))
        new = await call("source_lines", {"run": run, "name": '"aten::linear"', "limit": 2})
        assert new["with_stack"] == new["events"] > 0 and len(new["stacks"]) == 2
        assert new["stacks"][0]["user_frames"][0] == "train_profile.py(52): forward"
        assert new["stacks"][0]["frames"][0] == "<built-in function linear>"
        # no stack recorded: said so; no such event: an error naming the parameter
        none = await call("source_lines", {"run": "nccl", "name": "nccl"})
        assert none["stacks"] == [] and "with_stack=True" in none["note"]
        # events by the frame they run under: both kinds of stack
        copies = await call("find_events", {"run": "kineto_gpu",
                                             "frame": "resnet50_profiler_api.py(44)"})  # fmt: skip
        assert copies["total"] >= 12 and "cudaMemcpyAsync" in {e["name"] for e in copies["events"]}
        forward = await call("find_events", {"run": run, "name": '"aten::linear"',
                                             "frame": "train_profile.py(52): forward"})  # fmt: skip
        assert forward["total"] == new["events"]
        neither = await call("find_events", {"run": run})
        assert "name: give a name, a frame, or both" in neither["error"]
        bad = await call("source_lines", {"run": "kineto_gpu", "name": "no-such-op"})
        assert "name: no event named like 'no-such-op'" in bad["error"]

    with_client(catalog, body)


def test_report_and_advice_resources(
    catalog: Catalog, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = _report(catalog, "kineto_gpu", capsys)
    nested_base = tmp_path / "nested"
    shutil.copytree(shared(RUNS["nccl"]), nested_base / "group" / "nccl")
    shutil.copytree(shared(RUNS["mindspore"]), nested_base / "group" / "ms")
    names = {r.name for r in Catalog(nested_base, None).runs()}
    assert "group/nccl" in names, names

    async def main() -> None:
        async with Client(build_server(catalog)) as client:
            templates = (await client.list_resource_templates()).resource_templates
            assert {t.uri_template for t in templates} == {
                "mindinsight://runs/{run}/report",
                "mindinsight://runs/{run}/advice",
            }
            got = await client.read_resource("mindinsight://runs/kineto_gpu/report")
            assert json.loads(got.contents[0].text) == report
            advice = await client.read_resource("mindinsight://runs/kineto_gpu/advice")
            assert json.loads(advice.contents[0].text)["findings"]
            with pytest.raises(Exception, match="run: no run called 'nope'"):
                await client.read_resource("mindinsight://runs/nope/report")
        async with Client(build_server(Catalog(nested_base, None))) as client:
            nested = await client.read_resource("mindinsight://runs/group%2Fnccl/report")
            assert json.loads(nested.contents[0].text)["format"] == "kineto"

    asyncio.run(main())
