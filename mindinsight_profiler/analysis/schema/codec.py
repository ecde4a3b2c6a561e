"""Between the report as a plain dict (what the analyses build) and `Report`, and its bytes.

`to_report` checks a dict against the declaration: every key known, every required key
present, every value of its declared type (msgspec, strict). `report_builtins` turns the
struct back into the dict it came from, key order included, leaving out the keys that were
absent (UNSET). So `report_builtins(to_report(d))` prints exactly as `d` does.

Numbers: an `int | float` union keeps each number's type in msgspec 0.22, but the report
needs none: every numeric key is produced as an int always or a float always, and declared
so. A float field would silently take an int (5 becomes 5.0 on the way back); the contract
test over every real input guards against a producer starting to write one.

The cache: `encode_report` writes the struct as JSON, `decode_report` reads it back typed
(a file of another contract, e.g. an older version's, fails with `msgspec.DecodeError`, and
the caller rebuilds it).

NumPy scalars: a freshly built report can hold them (the `modules` rows sum NumPy floats);
msgspec takes only Python numbers, so they become Python numbers first, with the rule the
cache writes them by (`store.atomic.json_default`, so a cached and a fresh report agree).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from mindinsight_profiler.analysis.schema.report import AnalyseOutput, Report
from mindinsight_profiler.store.atomic import json_default

R = TypeVar("R", bound=Report)


def plain(report: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `report` with NumPy scalars and paths as JSON's Python types (order kept)."""
    out: dict[str, Any] = msgspec.to_builtins(report, enc_hook=json_default)
    return out


def convert(report: Mapping[str, Any], cls: type[R]) -> R:
    """`report` checked and typed as `cls`; `msgspec.ValidationError` names the bad key."""
    return msgspec.convert(plain(report), cls, strict=True)


def to_report(report: Mapping[str, Any]) -> Report:
    """The report of `build_report` (or a cached `report.json`) as a `Report`."""
    return convert(report, Report)


def to_analyse_output(output: Mapping[str, Any]) -> AnalyseOutput:
    """`mindinsight analyse --format json` output (report + worker + span) as a struct."""
    return convert(output, AnalyseOutput)


def report_builtins(report: Report) -> dict[str, Any]:
    """The struct as the plain dict it came from: declared key order, UNSET keys left out."""
    out: dict[str, Any] = msgspec.to_builtins(report)
    return out


def report_for(report: Report, worker: str, span: str) -> dict[str, Any]:
    """The report of one worker as a plain dict, followed by the worker and span it describes:
    what `mindinsight analyse --format json` prints, the API serves and the advisor reads."""
    return dict(report_builtins(report), worker=worker, span=span)


def encode_report(report: Report) -> bytes:
    """The report as the cache stores it (compact JSON, declared key order)."""
    return msgspec.json.encode(report)


def decode_report(raw: bytes) -> Report:
    """A stored report, checked against the contract (`msgspec.DecodeError` when it is not)."""
    return msgspec.json.decode(raw, type=Report, strict=True)
