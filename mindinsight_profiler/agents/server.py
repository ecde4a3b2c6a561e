"""`mindinsight mcp`: the analysed runs under a base folder, as MCP tools, resources and
prompts for coding agents (the MCP Python SDK's `MCPServer`).

Tools take run and worker names (from `list_runs`), never paths (`agents.catalog`); their
answers are `agents.answers`'. A wrong argument is a tool error whose message starts with
the parameter's name; a failure of the analysis itself is reported with the run's name,
and the server goes on serving.

(No `from __future__ import annotations` here: the SDK reads the tools' parameter types
from their annotations, which must be real types, not strings, in these closures.)
"""

import json
import logging
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError as UnreadableResource
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mindinsight_profiler._version import __version__
from mindinsight_profiler.agents import answers, traced
from mindinsight_profiler.agents.catalog import Catalog
from mindinsight_profiler.errors import BadArgument, InputError, ResourceError

log = logging.getLogger(__name__)

T = TypeVar("T")

RunName = Annotated[str, Field(description="a run's name, as list_runs gives it")]
Worker = Annotated[
    str | None, Field(description="a worker of the run (list_runs); default: its first")
]
Limit = Annotated[int, Field(ge=1, le=answers.MAX_LIMIT, description="rows per page")]
Offset = Annotated[int, Field(ge=0, description="first row of the page (next_offset)")]

INSTRUCTIONS = (
    "Training-performance analysis of the profiles under one folder (PyTorch/Kineto, Ascend, "
    "MindSpore). Start with list_runs, then run_overview and advise. Every conclusion you "
    "draw must cite evidence: a finding id from advise, or an evidence_id from "
    "explain_finding, or the rows of a table or window you read. Times named *_us are "
    "microseconds, *_ns nanoseconds of the trace's clock."
)


def _answer(fn: Callable[[], T], run: str | None = None) -> T:
    """`fn()`, its anticipated failures as tool errors the agent can read."""
    try:
        return fn()
    except BadArgument as exc:
        raise ToolError(str(exc)) from None
    except (InputError, ResourceError) as exc:
        where = f"run {run!r}: " if run else ""
        raise ToolError(f"{where}{exc}") from None


def _resource(fn: Callable[[], T], run: str) -> T:
    """`fn()` for a resource: a run that is not one is an anticipated resource error."""
    try:
        return _answer(fn, run)
    except ToolError as exc:
        raise UnreadableResource(str(exc)) from None


def _section_tool(catalog: Catalog, name: str) -> Callable[..., dict[str, Any]]:
    def tool(run: RunName, worker: Worker = None) -> dict[str, Any]:
        return _answer(lambda: answers.section(catalog, run, name, worker), run)

    return tool


def build_server(catalog: Catalog) -> MCPServer:
    """The MCP server over `catalog`: its tools, resources and prompts."""
    mcp: MCPServer = MCPServer(
        "mindinsight-profiler", version=__version__, instructions=INSTRUCTIONS
    )

    @mcp.tool()
    def list_runs() -> dict[str, Any]:
        """The runs under the base folder: their names, workers and input formats."""
        return _answer(lambda: answers.list_runs(catalog))

    @mcp.tool()
    def run_overview(run: RunName, worker: Worker = None) -> dict[str, Any]:
        """Steps, the average step split by category (us), MFU, the top operators and
        kernels, and what the input lacked (warnings)."""
        return _answer(lambda: answers.run_overview(catalog, run, worker), run)

    @mcp.tool()
    def advise(
        run: RunName,
        worker: Worker = None,
        limit: Annotated[int, Field(ge=1, le=answers.MAX_LIMIT)] = 10,
    ) -> dict[str, Any]:
        """Ranked findings (most costly first): id, severity, saving per step, actions, and
        the combined saving (each part of the step counted once)."""
        return _answer(lambda: answers.advise(catalog, run, worker, limit), run)

    @mcp.tool()
    def explain_finding(
        run: RunName,
        finding_id: Annotated[str, Field(description="a finding's id from advise")],
        worker: Worker = None,
    ) -> dict[str, Any]:
        """One finding in full: its facts and each piece of evidence (evidence_id, steps,
        operators, kernels, time ranges to open with timeline_window)."""
        return _answer(lambda: answers.explain_finding(catalog, run, finding_id, worker), run)

    def _table(what: str) -> Callable[..., dict[str, Any]]:
        groups = "name, name_input, name_stack" if what == "operators" else "name, name_op_launch"

        def tool(
            run: RunName,
            worker: Worker = None,
            group_by: Annotated[str, Field(description=f"one of {groups}")] = "name",
            sort: Annotated[str | None, Field(description="a numeric column, descending")] = None,
            search: Annotated[
                str | None, Field(description='part of a name, or a "quoted" exact name')
            ] = None,
            offset: Offset = 0,
            limit: Limit = 20,
        ) -> dict[str, Any]:
            return _answer(
                lambda: answers.table(catalog, run, what, worker, group_by, sort, search,
                                      offset, limit),
                run,
            )  # fmt: skip

        return tool

    mcp.tool(
        name="operators",
        description="Operator statistics (calls, host and device self/total us, tensor-core "
        "use), grouped, filtered by name, sorted and paged.",
    )(_table("operators"))
    mcp.tool(
        name="kernels",
        description="Kernel statistics (calls, total/mean/min/max us, occupancy), grouped "
        "by name or by launching operator, filtered, sorted and paged.",
    )(_table("kernels"))

    for name, about in (
        ("step_trace", "Each step split at its forward and backward points: iteration "
         "interval, forward+backward, tail, collectives (us)."),
        ("data_pipeline", "Waiting for input data per step, DataLoader workers or MindData "
         "queues, and the verdict on the input pipeline."),
        ("memory", "Per device: peak allocated and reserved bytes and the operators that "
         "allocate most."),
        ("communication", "Per collective: calls, time, bytes; per step: overlapped and "
         "exposed communication."),
        ("perf_model", "FLOPs, bytes, achieved rate, roofline and MFU per operator, shape, "
         "kernel, category and step."),
    ):  # fmt: skip
        mcp.tool(name=name, description=about)(_section_tool(catalog, name))

    @mcp.tool()
    def cluster(run: RunName) -> dict[str, Any]:
        """Every rank of a run compared: step time, exposed communication, the slowest
        rank and by how much, each collective's transfer time and longest wait."""
        return _answer(lambda: answers.cluster(catalog, run), run)

    @mcp.tool()
    def timeline_window(
        run: RunName,
        start_ns: Annotated[int, Field(description="window start, trace clock (ns)")],
        end_ns: Annotated[int, Field(description="window end, trace clock (ns)")],
        worker: Worker = None,
        tracks: Annotated[
            list[str] | None, Field(description='"pid/tid", thread or process names')
        ] = None,
        limit: Annotated[int, Field(ge=1, le=answers.MAX_LIMIT)] = 100,
    ) -> dict[str, Any]:
        """What the dashboard's timeline shows for [start_ns, end_ns) (its level-of-detail
        index), at most `limit` items: long events as themselves, shorter ones merged into
        blocks per track and depth with their count and busy time."""
        return _answer(
            lambda: traced.timeline_window(catalog, run, start_ns, end_ns, worker, tracks,
                                            limit),
            run,
        )  # fmt: skip

    @mcp.tool()
    def find_events(
        run: RunName,
        name: Annotated[str | None, Field(description='part of an event name, or "exact"')] = None,
        frame: Annotated[
            str | None,
            Field(
                description="part of a Python frame (file(line): function) the events run "
                "under (with_stack traces)"
            ),
        ] = None,
        worker: Worker = None,
        min_duration_ns: Annotated[int, Field(ge=0)] = 0,
        limit: Annotated[int, Field(ge=1, le=answers.MAX_LIMIT)] = 50,
    ) -> dict[str, Any]:
        """Events by name, by the Python frame they run under, or both, by start: the
        `limit` longest when more match (the total is given)."""
        if not name and not frame:
            raise ToolError("name: give a name, a frame, or both")
        return _answer(
            lambda: traced.find_events(catalog, run, worker, name, frame, min_duration_ns,
                                       limit),
            run,
        )  # fmt: skip

    @mcp.tool()
    def source_lines(
        run: RunName,
        name: Annotated[
            str,
            Field(min_length=1, description='an operator or event name: part of it, or "exact"'),
        ],
        worker: Worker = None,
        limit: Annotated[int, Field(ge=1, le=20)] = 5,
    ) -> dict[str, Any]:
        """The Python call stacks behind an operator, a sync or any event (traces recorded
        with with_stack=True), costliest first, with the user's own frames apart: the lines
        to change."""
        return _answer(lambda: traced.source_lines(catalog, run, name, worker, limit), run)

    @mcp.tool()
    def diff_runs(
        before: RunName, after: RunName, top: Annotated[int, Field(ge=1, le=50)] = 10
    ) -> dict[str, Any]:
        """Before/after of two runs: the average step, each category, the operators and
        kernels that changed most."""
        return _answer(lambda: answers.diff_runs(catalog, before, after, top), before)

    @mcp.resource("mindinsight://runs/{run}/report", mime_type="application/json")
    def report_resource(run: str) -> str:
        """The whole analysis report of a run's first worker (`analyse --format json`); a
        run named `a/b` is `a%2Fb` here."""
        return json.dumps(_resource(lambda: catalog.report(run), run))

    @mcp.resource("mindinsight://runs/{run}/advice", mime_type="application/json")
    def advice_resource(run: str) -> str:
        """The whole advice of a run's first worker (`advise --format json`)."""
        import msgspec

        return msgspec.json.encode(_resource(lambda: catalog.advice(run), run)).decode()

    @mcp.prompt()
    def diagnose_run(run: str) -> str:
        """Find why a run's training step is slow and what to change."""
        return (
            f"Diagnose the training run {run!r}. Call run_overview, then advise. For the top "
            "findings call explain_finding and, where it gives time ranges, timeline_window. "
            "Say what to change in the user's code or settings, and cite for every claim the "
            "finding id or evidence_id it rests on. Do not claim what no evidence shows."
        )

    @mcp.prompt()
    def compare_runs(before: str, after: str) -> str:
        """Say what changed between two runs and why."""
        return (
            f"Compare the runs {before!r} (before) and {after!r} (after) with diff_runs, "
            "then advise on each. Explain the change of the average step by category and "
            "by operator, citing the rows and finding ids you rely on."
        )

    return mcp
