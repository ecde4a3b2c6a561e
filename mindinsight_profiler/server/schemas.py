"""marshmallow schemas: every request's query parameters in, every response's shape out.

One parameter style for the whole API: the run is in the path, the worker and span (and
where it matters the device) are query parameters, and each endpoint adds its own options.
A query schema rejects unknown parameters, wrong types and values over the caps; `parse`
turns that into one 400 `bad_parameter` error naming the parameter, so a client never
gets a 500 for a bad request. Response schemas fix the top-level structure of each answer
(the sections below it are the report's own, documented with the report).
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema
from werkzeug.datastructures import MultiDict

from mindinsight_profiler.analysis.operators.tables import KERNEL_GROUPS, OPERATOR_GROUPS
from mindinsight_profiler.server.errors import ApiError

#: Longest worker/span/device name, search text and row cap (independent of settings).
MAX_NAME = 256
MAX_SEARCH = 200
MAX_TIMELINE_ITEMS = 20000
MAX_WIDTH_PX = 16384
SEVERITIES = ("high", "medium", "low")


def _name(**kw: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=MAX_NAME), **kw)


class Query(Schema):
    """Parameters of every per-worker endpoint: which worker and span of the run."""

    class Meta:
        unknown = RAISE

    worker = _name(metadata={"description": "worker of the run (default: the first)"})
    span = _name(metadata={"description": "span of the worker (default: the first)"})


class DeviceQuery(Query):
    device = _name(metadata={"description": "only this device (e.g. CUDA:0)"})


class PageQuery(Query):
    """Server-side sort, filter and page of a table; `limit` is capped by the settings."""

    sort = fields.String(validate=validate.Length(max=64))
    order = fields.String(load_default="desc", validate=validate.OneOf(("asc", "desc")))
    search = fields.String(
        validate=validate.Length(min=1, max=MAX_SEARCH),
        metadata={
            "description": 'names containing this text (any case); "in quotes": that name only'
        },
    )
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1))


#: Longest row key `focus` takes (a MindSpore scope name runs to a few hundred characters).
MAX_FOCUS = 1000


def _focus() -> fields.String:
    return fields.String(
        validate=validate.Length(min=1, max=MAX_FOCUS),
        metadata={
            "description": "a row's key (its name; its type by type), exactly: the page that "
            "holds it is answered (`offset` moved) and `focus_index` is its index there"
        },
    )


class OperatorQuery(PageQuery):
    focus = _focus()
    group_by = fields.String(
        load_default="name",
        validate=validate.OneOf((*OPERATOR_GROUPS, "type", "instance")),
        metadata={"description": "rows by name, input shapes, call stack, type, or per call"},
    )
    type = fields.String(
        validate=validate.Length(min=1, max=MAX_SEARCH),
        metadata={"description": "instances only: comma-separated operator types to keep"},
    )


class KernelQuery(PageQuery):
    focus = _focus()
    group_by = fields.String(load_default="name", validate=validate.OneOf(KERNEL_GROUPS))


class DiffQuery(Query):
    other = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{16}$"))
    other_worker = _name()
    other_span = _name()
    top = fields.Integer(load_default=10, validate=validate.Range(min=1))


class Window(Schema):
    """A window in ns from an origin (default: all of it); `end_ns` after `start_ns`."""

    start_ns = fields.Integer(validate=validate.Range(min=0))
    end_ns = fields.Integer(validate=validate.Range(min=1))

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("end_ns", 1 << 62) <= data.get("start_ns", 0):
            raise ValidationError("must be after start_ns", field_name="end_ns")


class WindowQuery(Query, Window):
    """A window in ns relative to the trace's origin (default: all of it)."""


class TimelineQuery(WindowQuery):
    """The window's drawable items at `width_px` pixels."""

    width_px = fields.Integer(load_default=1000, validate=validate.Range(min=1, max=MAX_WIDTH_PX))
    tracks = fields.String(
        validate=validate.Regexp(r"^\d{1,6}(,\d{1,6}){0,1023}$"),
        metadata={"description": "comma-separated track numbers (default: all)"},
    )
    max_items = fields.Integer(
        load_default=5000, validate=validate.Range(min=1, max=MAX_TIMELINE_ITEMS)
    )


class SearchQuery(Query):
    q = fields.String(required=True, validate=validate.Length(min=1, max=MAX_SEARCH))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1))


class ExportQuery(WindowQuery):
    gzip = fields.Boolean(load_default=True)


class ExportRanksQuery(Window):
    """Several ranks of the run on one timeline: which ranks, the file format, a window in
    ns relative to the merged timeline's start (the earliest aligned start of the ranks)."""

    class Meta:
        unknown = RAISE

    span = _name(metadata={"description": "span of every worker (default: each one's first)"})
    ranks = fields.String(
        load_default="all",
        validate=validate.Regexp(r"^(all|\d{1,9}(,\d{1,9}){0,4095})$"),
        metadata={"description": "all, or comma-separated rank numbers (e.g. 0,3)"},
    )
    format = fields.String(load_default="perfetto", validate=validate.OneOf(("perfetto", "json")))


class AdviceQuery(Query):
    min_severity = fields.String(load_default="low", validate=validate.OneOf(SEVERITIES))


class ClusterQuery(Schema):
    class Meta:
        unknown = RAISE

    span = _name()


def parse(schema: Schema, args: MultiDict[str, str]) -> dict[str, Any]:
    """The validated parameters, or a 400 naming the first bad one (all in the message)."""
    repeated = sorted(k for k in args if len(args.getlist(k)) > 1)
    if repeated:
        raise ApiError(400, "bad_parameter", f"{repeated[0]}: given more than once",
                       parameter=repeated[0])  # fmt: skip
    try:
        loaded: dict[str, Any] = schema.load(args.to_dict())
    except ValidationError as exc:
        messages = exc.normalized_messages()
        names = sorted(messages)
        text = "; ".join(f"{n}: {' '.join(map(str, _flat(messages[n])))}" for n in names)
        raise ApiError(400, "bad_parameter", text, parameter=names[0]) from None
    return loaded


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [m for v in value.values() for m in _flat(v)]
    return [value]


def cap(name: str, value: int, limit: int) -> int:
    """A count over a cap from the settings is a 400, not a silently shorter answer."""
    if value > limit:
        raise ApiError(400, "bad_parameter", f"{name}: at most {limit}", parameter=name)
    return value


# Responses: the envelope every per-worker answer shares, then one schema per endpoint.


class Where(Schema):
    run = fields.String(required=True)
    worker = fields.String(required=True)
    span = fields.String(required=True)


class Overview(Where):
    format = fields.String()
    framework = fields.String()
    device_type = fields.String()
    steps = fields.Dict()
    breakdown_us = fields.Dict()
    breakdown_per_step_us = fields.List(fields.Dict())
    gpu = fields.Dict(allow_none=True)
    npu = fields.Dict(allow_none=True)
    op_types = fields.Dict(allow_none=True)
    step_stages = fields.Dict(allow_none=True)
    data_pipeline = fields.Dict(allow_none=True)
    memory = fields.Dict(allow_none=True)
    distributed = fields.Dict(allow_none=True)
    parallel = fields.Dict(allow_none=True)
    perf = fields.Dict(allow_none=True)
    window = fields.Dict(allow_none=True)
    warnings = fields.List(fields.Dict())
    pages = fields.Dict()


class Section(Where):
    """One report section as the report holds it (None when the input has none)."""

    data = fields.Raw(allow_none=True)


class PageFields(Where):
    """A page of any table (the memory tables have no grouping)."""

    sort = fields.String()
    order = fields.String()
    total = fields.Integer()
    offset = fields.Integer()
    limit = fields.Integer()
    rows = fields.List(fields.Dict())


class Page(PageFields):
    group_by = fields.String()


class Cluster(Schema):
    run = fields.String(required=True)
    workers = fields.List(fields.String())
    ranks = fields.List(fields.Dict())
    slowest = fields.Dict(allow_none=True)
    collectives = fields.List(fields.Dict())


class Diff(Where):
    other = fields.Dict()
    step = fields.Dict()
    breakdown = fields.List(fields.Dict())
    operators = fields.Dict()
    kernels = fields.Dict()
    before_covered = fields.Dict()
    after_covered = fields.Dict()


class Timeline(Where):
    window = fields.Dict()


class Advice(Where):
    advice = fields.Dict()


class Error(Schema):
    error = fields.Dict(required=True)


# Step trace, data pipeline and cluster views (the dashboard's stage pages).

#: Longest FP/BP operator name accepted (MindSpore scope names run to a few hundred chars).
MAX_POINT = 512


class StepTraceQuery(Query):
    """FP start / BP end operators to split the steps at (operator traces only)."""

    fp_point = fields.String(
        validate=validate.Length(min=1, max=MAX_POINT),
        metadata={"description": "operator whose start is the forward start (default: found)"},
    )
    bp_point = fields.String(
        validate=validate.Length(min=1, max=MAX_POINT),
        metadata={"description": "operator whose end is the backward end (default: found)"},
    )


class DataPipeline(Section):
    """The report's section, and the MindData queue sizes and transfer times per step."""

    queue_steps = fields.Dict(allow_none=True)


class ClusterView(Cluster):
    """The cluster summary, every worker's average step stages (joined on `rank`), the
    outlier ranks and the communication matrix."""

    stages = fields.List(fields.Dict())
    outliers = fields.List(fields.Dict())
    comm_matrix = fields.Dict()


# Memory in a time window (routes/memory.py). Times are relative to the trace's origin, as in
# the timeline, but may be negative: allocator records can start before the first event.

MAX_MEMORY_POINTS = 20000
_JS_SAFE = 2**53  # beyond this, browsers' doubles lose nanoseconds


class MemoryQuery(Query):
    """A device and a window [start_ns, end_ns) (default: all of the device's samples)."""

    device = _name(metadata={"description": "device label as the memory section names it"})
    start_ns = fields.Integer(validate=validate.Range(min=-_JS_SAFE, max=_JS_SAFE))
    end_ns = fields.Integer(validate=validate.Range(min=-_JS_SAFE, max=_JS_SAFE))

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_: Any) -> None:
        if "start_ns" in data and "end_ns" in data and data["end_ns"] <= data["start_ns"]:
            raise ValidationError("must be after start_ns", field_name="end_ns")


class MemoryCurveQuery(MemoryQuery):
    max_points = fields.Integer(
        load_default=1500, validate=validate.Range(min=10, max=MAX_MEMORY_POINTS),
        metadata={"description": "samples drawn at most (extremes of each bucket kept)"},
    )  # fmt: skip


class MemoryEventsQuery(MemoryQuery, PageQuery):
    mode = fields.String(
        load_default="allocated", validate=validate.OneOf(("allocated", "live")),
        metadata={"description": "allocations made in the window, or alive in it"},
    )  # fmt: skip


class MemoryOperatorsQuery(MemoryQuery, PageQuery):
    pass


class MemoryDevice(Schema):
    device = fields.String()
    source = fields.String()
    pairing = fields.String()
    samples = fields.Integer()
    allocations = fields.Integer()


class MemoryCurve(Where):
    devices = fields.List(fields.Nested(MemoryDevice))
    device = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    range_ns = fields.List(fields.Integer(), allow_none=True)
    window_ns = fields.List(fields.Integer(), allow_none=True)
    max_points = fields.Integer()
    curve = fields.Dict(allow_none=True)
    summary = fields.Dict(allow_none=True)
    npu_modules = fields.List(fields.Dict())


class MemoryPage(PageFields):
    device = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    pairing = fields.String(allow_none=True)
    mode = fields.String()
    window_ns = fields.List(fields.Integer(), allow_none=True)
    total_bytes = fields.Integer(allow_none=True)


# The table views (operators, kernels) of the dashboard's table pages.


class KernelPage(Page):
    """A page of kernels, with the sums of the additive columns (times, calls) over every
    matching row."""

    sums = fields.Dict(keys=fields.String(), values=fields.Float())
    focus_index = fields.Integer(allow_none=True)


class TablePage(KernelPage):
    """A page of operators: the sums, and for operator types the time they are ranked by."""

    by = fields.String()


# Timeline: one event in full (the details panel).


class EventQuery(Query):
    index = fields.Integer(
        required=True, validate=validate.Range(min=0, max=2**31 - 1),
        metadata={"description": "the event's index (`index` in a window or search answer)"},
    )  # fmt: skip


class TimelineEvent(Where):
    event = fields.Dict()


# Downloads of a shared report (routes/reports.py) and the ranks' shared clock (routes/clock.py).

REPORT_FORMATS = ("html", "xlsx", "md")
REPORT_LANGUAGES = ("en", "zh")


class ReportQuery(Query):
    """Which report of the worker: its format and its language."""

    format = fields.String(
        required=True, validate=validate.OneOf(REPORT_FORMATS),
        metadata={"description": "html (one self-contained page), xlsx (a workbook) or md"},
    )  # fmt: skip
    lang = fields.String(load_default="en", validate=validate.OneOf(REPORT_LANGUAGES))


class Clock(Schema):
    run = fields.String(required=True)
    workers = fields.List(fields.String())
    offsets_ns = fields.List(fields.Integer())
    shift_ns = fields.List(fields.Integer())
    method = fields.String()
    matched = fields.Integer()
