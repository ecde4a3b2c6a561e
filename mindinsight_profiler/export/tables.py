"""The rows of every exported table, from a bundle (and the cached trace where the report
does not hold the table): pure functions, no layout.

Each table is a `Table`: its declaration (`export.columns`), the columns its rows fill, the
rows as an iterator of dicts keyed by column (the large ones, memory allocations and
operators by input shape, are produced one row at a time, never as one list) and, when it
is empty, why. Times are microseconds; absolute times (memory, evidence) count from the
trace's first event, the zero of the dashboard's timeline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mindinsight_profiler.analysis.memory.ledger import Ledger, memory_ledgers
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.analysis.operators.tables import operator_table
from mindinsight_profiler.export import columns as C
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.export.findings import evidence_rows, finding_rows
from mindinsight_profiler.model.trace import Trace

Row = Mapping[str, Any]
#: (English, Chinese)
Note = tuple[str, str]

NO_TRACE: Note = ("not exported: the trace was not read for this report",
                  "未导出：本报告未读取 trace")  # fmt: skip
NO_STEPS: Note = ("no steps found (no ProfilerStep ranges or step trace in the input)",
                  "未找到迭代 (输入中没有 ProfilerStep 或迭代轨迹)")  # fmt: skip
NO_MEMORY: Note = ("no memory records: profile with profile_memory=True",
                   "没有内存记录：请以 profile_memory=True 采集")  # fmt: skip
CURVE_ONLY: Note = ("the memory records hold totals only, no allocation events",
                    "内存记录只有总量，没有分配事件")  # fmt: skip
NO_OPERATORS: Note = ("no framework operators in the trace (device operators are under Kernels "
                      "and Operator types)",
                      "trace 中没有框架算子 (设备算子见计算核和算子类型)")  # fmt: skip
NO_COMMUNICATION: Note = ("no collective communication in this worker",
                          "此 worker 没有集合通信")  # fmt: skip
NO_LINKS: Note = ("the input records no link bandwidth (Ascend communication_matrix and "
                  "MindSpore hccl_raw files do)",
                  "输入没有链路带宽记录 (Ascend communication_matrix 和 "
                  "MindSpore hccl_raw 文件有)")  # fmt: skip


@dataclass(frozen=True)
class Table:
    """One table to lay out: declaration, the columns present, rows, and why it is empty."""

    spec: C.TableSpec
    columns: tuple[C.Column, ...]
    rows: Iterable[Row]
    note: Note | None = None

    def note_text(self, lang: str) -> str | None:
        return None if self.note is None else self.note[1 if lang == "zh" else 0]


def _table(spec: C.TableSpec, rows: Iterable[Row], note: Note | None = None) -> Table:
    return Table(spec, spec.columns, rows, note)


def _present(spec: C.TableSpec, rows: list[dict[str, Any]], optional: frozenset[str]) -> Table:
    """A table of listed rows without the `optional` columns no row has."""
    cols = tuple(
        c for c in spec.columns
        if c.key not in optional or any(r.get(c.key) is not None for r in rows)
    )  # fmt: skip
    return Table(spec, cols, rows)


def origin_ns(bundle: ReportBundle, trace: Trace | None) -> int:
    """The zero of exported times: the trace's first event (the timeline's zero), else the
    first step's start."""
    if trace is not None and len(trace.events["start_ns"]):
        return int(trace.events["start_ns"].min())
    starts = bundle.report["steps"]["start_ns"]
    return int(starts[0]) if starts else 0


def steps(bundle: ReportBundle, zero: int) -> Table:
    s = bundle.report["steps"]
    columns = zip(s["names"], s["start_ns"], s["durations_us"], strict=True)
    rows = [{"step": n, "start_us": (t - zero) / 1000, "duration_us": d} for n, t, d in columns]
    return _table(C.STEPS, rows, None if rows else NO_STEPS)


def breakdown(bundle: ReportBundle) -> Table:
    r = bundle.report
    pairs = zip(r["steps"]["names"], r["breakdown_per_step_us"], strict=True)
    rows = [{"step": name, **b, "total_us": sum(b.values())} for name, b in pairs]
    return _table(C.BREAKDOWN, rows, None if rows else NO_STEPS)


def step_trace(bundle: ReportBundle) -> Table:
    st = bundle.report.get("step_trace")
    rows = st["steps"] if st else []
    return _table(C.STEP_TRACE, rows, None if rows else NO_STEPS)


def operators(bundle: ReportBundle) -> Table:
    rows = bundle.report["operators"]
    return _table(C.OPERATORS, rows, None if rows else NO_OPERATORS)


def _shape_rows(table: dict[str, list[Any]]) -> Iterator[Row]:
    keys = list(table)
    for values in zip(*(table[k] for k in keys), strict=True):
        row = dict(zip(keys, values, strict=True))
        row["input_shape"] = json.dumps(row.get("input_shape"), separators=(",", ":"))
        yield row


def operators_by_shape(trace: Trace | None) -> Table:
    """Operators by name and input shapes (`analysis.report.grouped_tables`' operator rows,
    one at a time)."""
    if trace is None:
        return _table(C.OPERATORS_BY_SHAPE, [], NO_TRACE)
    table = operator_table(trace, op_tree(trace), "name_input")
    if not table["name"]:
        return _table(C.OPERATORS_BY_SHAPE, [], NO_OPERATORS)
    return _table(C.OPERATORS_BY_SHAPE, _shape_rows(table))


def kernels(bundle: ReportBundle) -> Table:
    rows = bundle.report["kernels"]
    if not rows:
        return _table(C.KERNELS, [], ("no device kernels in the trace", "trace 中没有设备计算核"))
    return _present(C.KERNELS, rows, C.KERNEL_OPTIONAL)


def op_types(bundle: ReportBundle) -> Table:
    section = bundle.report.get("op_types")
    rows = section["types"] if section else []
    return _table(C.OP_TYPES, rows, None if rows else ("no operator types", "没有算子类型"))


def memory_devices(bundle: ReportBundle, zero: int) -> Table:
    section = bundle.report.get("memory")
    rows = []
    for d in section["devices"] if section else []:
        peak, reserved, pairs = d.get("peak_allocated"), d.get("peak_reserved"), d.get("pairs")
        rows.append({
            "device": d["device"], "source": d["source"], "samples": d.get("samples"),
            "peak_allocated_bytes": peak["bytes"] if peak else None,
            "peak_allocated_us": (peak["ts_ns"] - zero) / 1000 if peak else None,
            "peak_operator": peak.get("operator") if peak else None,
            "peak_reserved_bytes": reserved["bytes"] if reserved else None,
            "allocations": pairs["count"] if pairs else None,
            "live": pairs["live"] if pairs else None,
        })  # fmt: skip
    return _table(C.MEMORY_DEVICES, rows, None if rows else NO_MEMORY)


#: Allocation rows converted to Python per chunk (numbers to lists at C speed).
CHUNK = 65536


def _allocation_rows(ledger: Ledger, trace: Trace, zero: int) -> Iterator[Row]:
    """Every allocation of one device, in time order: what /memory/events answers."""
    strings, names = trace.strings, {}
    state_unreleased = "live" if ledger.pairing != "none" else "unknown"
    for lo in range(0, len(ledger.alloc_ns), CHUNK):
        cut = slice(lo, lo + CHUNK)
        alloc, release = ledger.alloc_ns[cut].tolist(), ledger.release_ns[cut].tolist()
        ops, sizes, addrs = (ledger.alloc_op[cut].tolist(), ledger.alloc_bytes[cut].tolist(),
                             ledger.addr[cut].tolist())  # fmt: skip
        for a, r, op, size, addr in zip(alloc, release, ops, sizes, addrs, strict=True):
            if op not in names:
                names[op] = strings[op] if op >= 0 else None
            yield {
                "device": ledger.device, "operator": names[op], "bytes": size,
                "alloc_us": (a - zero) / 1000,
                "release_us": (r - zero) / 1000 if r >= 0 else None,
                "duration_us": (r - a) / 1000 if r >= 0 else None,
                "state": "freed" if r >= 0 else state_unreleased,
                "addr": hex(addr) if addr >= 0 else None,
            }  # fmt: skip


def memory_events(trace: Trace | None, zero: int) -> Table:
    """All allocations of each memory device over its whole range."""
    if trace is None:
        return _table(C.MEMORY_EVENTS, [], NO_TRACE)
    ledgers = memory_ledgers(trace)
    with_events = [d for d in ledgers if d.has_events]
    if not with_events:
        return _table(C.MEMORY_EVENTS, [], CURVE_ONLY if ledgers else NO_MEMORY)

    def rows() -> Iterator[Row]:
        for ledger in with_events:
            yield from _allocation_rows(ledger, trace, zero)

    return _table(C.MEMORY_EVENTS, rows())


def _communication(bundle: ReportBundle) -> dict[str, Any] | None:
    found: dict[str, Any] | None = bundle.report.get("communication")
    return found


def comm_steps(bundle: ReportBundle) -> Table:
    comm = _communication(bundle)
    rows = comm["steps"] if comm else []
    return _table(C.COMM_STEPS, rows, None if rows else NO_COMMUNICATION)


def collectives(bundle: ReportBundle) -> Table:
    comm = _communication(bundle)
    rows = [{**c, "mean_us": c["total_us"] / c["calls"] if c["calls"] else None,
             "max_us": max(c["durations_us"], default=None)}
            for c in (comm["collectives"] if comm else [])]  # fmt: skip
    return _table(C.COLLECTIVES, rows, None if rows else NO_COMMUNICATION)


def links(bundle: ReportBundle) -> Table:
    comm = _communication(bundle)
    rows = comm["links"] if comm else []
    return _table(C.LINKS, rows, None if rows else NO_LINKS if comm else NO_COMMUNICATION)


def findings(bundle: ReportBundle, lang: str) -> Table:
    rows = finding_rows(bundle.advice, lang)
    note = ("no findings: every rule that could be evaluated was fine", "没有发现问题")
    return _table(C.FINDINGS, rows, None if rows else note)


def evidence(bundle: ReportBundle, zero: int, lang: str) -> Table:
    if not any(f.evidence for f in bundle.advice.findings):
        return _table(C.EVIDENCE, [], ("no finding gives evidence", "没有发现给出证据"))
    return _table(C.EVIDENCE, evidence_rows(bundle.advice, zero, lang))


def tables(bundle: ReportBundle, trace: Trace | None, lang: str = "en") -> Iterator[Table]:
    """Every table of `columns.ALL`, in that order; `trace` (None: not read) gives the
    tables the report does not hold. Lazy: a table's rows are made as it is laid out."""
    zero = origin_ns(bundle, trace)
    yield steps(bundle, zero)
    yield breakdown(bundle)
    yield step_trace(bundle)
    yield operators(bundle)
    yield operators_by_shape(trace)
    yield kernels(bundle)
    yield op_types(bundle)
    yield memory_devices(bundle, zero)
    yield memory_events(trace, zero)
    yield comm_steps(bundle)
    yield collectives(bundle)
    yield links(bundle)
    yield findings(bundle, lang)
    yield evidence(bundle, zero, lang)
