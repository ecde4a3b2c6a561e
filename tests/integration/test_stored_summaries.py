"""Each rank's summary stored in its cache entry: written with the report, read alone, equal
to the one cut from the report, and rebuilt (never served) when missing or damaged.

Work is bounded by counts: reading a stored summary decodes no report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.analysis.cluster.view import cluster_view
from mindinsight_profiler.analysis.schema import encode_report, report_for
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.discovery import TraceFile, discover
from mindinsight_profiler.pipeline import reports, summaries
from mindinsight_profiler.pipeline.keys import SUMMARY_NAME, cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.pipeline.summaries import stored_summary, summary_of
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from tests.conftest import shared

RUNS = ("hta/trace_filter", "ascend_pytorch/level1", "mindspore_legacy/cluster_propose")


def _files(rel: str) -> list[TraceFile]:
    run = discover(shared(rel))[0]
    return [run.select(w) for w in run.workers]


def _entry(ws: Workspace, f: TraceFile) -> CacheEntry:
    return ws.entry(f.source, cache_variant(f.format, f.worker))


def _from_report(ws: Workspace, f: TraceFile) -> dict[str, Any]:
    report, _ = analyse_file(f.source, ws, None, f.format, f.worker)
    return rank_summary(report_for(report, f.worker, f.span))


def _json(value: Any) -> Any:
    """As the API serves it."""
    return json.loads(json.dumps(value))


class Decodes:
    """Counts full-report reads from the cache."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = reports.decode_report

        def counting(raw: bytes) -> Any:
            self.count += 1
            return real(raw)

        monkeypatch.setattr(reports, "decode_report", counting)


@pytest.mark.parametrize("rel", RUNS)
def test_stored_summaries_give_the_same_view(
    rel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(tmp_path)
    files = _files(rel)
    full = [_from_report(ws, f) for f in files]  # analyses: writes report and summary
    for f in files:
        manifest = _entry(ws, f).dir / "manifest.json"
        assert f"{SUMMARY_NAME}.json" in manifest.read_text()
    decodes = Decodes(monkeypatch)
    stored = [summary_of(f.source, ws, f.format, f.worker, f.span) for f in files]
    assert decodes.count == 0  # no report decoded
    assert stored == _json(full)
    workers = [f.worker for f in files]
    view = _json(cluster_view("run", workers, stored))
    assert view == _json(cluster_view("run", workers, full))
    assert view["ranks"] and view["stages"] is not None


def _resave_without_summary(ws: Workspace, f: TraceFile) -> CacheEntry:
    """The entry as a version before stored summaries wrote it."""
    entry = _entry(ws, f)
    report = reports.stored_report(entry)
    assert report is not None
    trace = load_trace(f.source, ws, None, f.format, f.worker)
    entry.save(trace, {"report": encode_report(report)})
    assert stored_summary(entry) is None
    return entry


def test_missing_summary_is_cut_from_the_report_and_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(tmp_path)
    f = _files("hta/trace_filter")[1]
    expected = _json(_from_report(ws, f))
    entry = _resave_without_summary(ws, f)
    decodes = Decodes(monkeypatch)
    assert _json(summary_of(f.source, ws, f.format, f.worker, f.span)) == expected
    assert decodes.count == 1  # cut from the report once ...
    assert _json(summary_of(f.source, ws, f.format, f.worker, f.span)) == expected
    assert decodes.count == 1  # ... then read alone
    assert stored_summary(entry) is not None
    assert entry.load_trace() is not None  # the rewritten manifest still verifies the rest


def _damage(path: Path) -> None:
    """Same size, one figure changed: still valid JSON, a wrong step count."""
    data = path.read_bytes()
    at = data.index(b'"count":') + len(b'"count":')
    digit = data[at : at + 1]
    assert digit.isdigit()
    path.write_bytes(data[:at] + (b"8" if digit != b"8" else b"7") + data[at + 1 :])


def test_damaged_summary_is_never_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Workspace(tmp_path)
    f = _files("hta/trace_filter")[0]
    expected = _json(_from_report(ws, f))
    entry = _entry(ws, f)
    path = entry.dir / f"{SUMMARY_NAME}.json"
    _damage(path)
    damaged = json.loads(path.read_bytes())
    assert damaged["steps"]["count"] != expected["steps"]["count"]  # serving it would show
    with pytest.raises(CacheError, match="checksum"):
        stored_summary(entry)
    decodes = Decodes(monkeypatch)
    assert _json(summary_of(f.source, ws, f.format, f.worker, f.span)) == expected
    assert decodes.count == 1
    assert named_stored(entry, f) == expected  # repaired in place


def named_stored(entry: CacheEntry, f: TraceFile) -> dict[str, Any] | None:
    found = stored_summary(entry)
    return None if found is None else summaries.named(found, f.worker, f.span)


def test_summary_of_another_shape_is_rebuilt(tmp_path: Path) -> None:
    """A sound file (checksum right) that is not a summary of this version is a miss."""
    ws = Workspace(tmp_path)
    f = _files("hta/trace_filter")[0]
    expected = _json(_from_report(ws, f))
    entry = _entry(ws, f)
    with ws.lock(entry):
        entry.add_json(SUMMARY_NAME, b'{"worker":null,"steps":{}}')
    with pytest.raises(CacheError, match="not a rank summary"):
        stored_summary(entry)
    assert _json(summary_of(f.source, ws, f.format, f.worker, f.span)) == expected
    assert named_stored(entry, f) == expected


def test_damaged_manifest_rebuilds_the_entry(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    f = _files("hta/trace_filter")[0]
    expected = _json(_from_report(ws, f))
    entry = _entry(ws, f)
    manifest = entry.dir / "manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"sha256"', b'"sha257"', 1))
    with pytest.raises(CacheError):
        stored_summary(entry)
    assert _json(summary_of(f.source, ws, f.format, f.worker, f.span)) == expected
    assert named_stored(entry, f) == expected
