"""The cluster page reads each rank's stored summary, never its full report, and names its
cache entries without hashing the inputs again; without stored summaries (a workspace an
older version wrote) it answers the same and stores them for the next reader.

Bounded by counts: report decodes and input fingerprints per request.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.schema import encode_report
from mindinsight_profiler.formats.discovery import TraceFile, discover
from mindinsight_profiler.pipeline import reports
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace, stored_report
from mindinsight_profiler.pipeline.summaries import stored_summary
from mindinsight_profiler.server import access, entries
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.routes import sections
from mindinsight_profiler.server.services import services
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store import cache, fingerprints
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from tests.integration.scale_runs import kineto_run

RANKS = 6


class Counts:
    """Report decodes and input fingerprints (hashing the input's ends)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.decodes = 0
        self.fingerprints = 0
        decode, fingerprint = reports.decode_report, cache.fingerprint

        def counting_decode(raw: bytes) -> Any:
            self.decodes += 1
            return decode(raw)

        def counting_fingerprint(*args: Any) -> str:
            self.fingerprints += 1
            return fingerprint(*args)

        monkeypatch.setattr(reports, "decode_report", counting_decode)
        monkeypatch.setattr(cache, "fingerprint", counting_fingerprint)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[FlaskClient, str, Path]:
    """A 6-rank Kineto run (HTA's real pair, ranks rewritten), analysed into a workspace."""
    monkeypatch.setattr(fingerprints, "SETTLE_NS", 0)  # the copies were written just now
    base, ws = tmp_path / "base", tmp_path / "ws"
    run = kineto_run(base / "ranks", RANKS)
    for f in discover(run)[0].files:
        analyse_file(f.path, Workspace(ws), None, f.format, f.worker)
    client = create_app(Settings(base, workspace=ws), start_background_work=False).test_client()
    (listed,) = client.get("/api/v1/runs").json["runs"]
    return client, listed["id"], ws


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new server process has: no views, reports or cache entries in memory."""
    monkeypatch.setattr(access, "_run_views", OrderedDict())
    monkeypatch.setattr(access, "_reports", OrderedDict())
    monkeypatch.setattr(entries, "_entries", {})


def _cluster(client: FlaskClient, rid: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/runs/{rid}/cluster")
    assert response.status_code == 200, response.json
    body: dict[str, Any] = response.json
    return body


def _files(client: FlaskClient, rid: str) -> list[TraceFile]:
    with client.application.app_context():
        return list(services().registry.get(rid).run.files)


def _entry(ws: Path, f: TraceFile) -> CacheEntry:
    return Workspace(ws).entry(f.path, cache_variant(f.format, f.worker))


def _from_full_reports(client: FlaskClient, rid: str) -> dict[str, Any]:
    with client.application.app_context():
        entry = services().registry.get(rid)
        full = [access.report(access.resolve(rid, w)) for w in entry.run.workers]
        return dict(json.loads(json.dumps(sections._cluster_view(entry, full))))


def test_cluster_reads_summaries_only(
    served: tuple[FlaskClient, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, rid, _ = served
    _fresh_process(monkeypatch)
    counts = Counts(monkeypatch)
    first = _cluster(client, rid)
    assert counts.decodes == 0  # no full report decoded
    assert counts.fingerprints == 0  # the workspace remembered every input's entry
    assert len(first["ranks"]) == RANKS
    monkeypatch.setattr(access, "_run_views", OrderedDict())  # built again, same process
    assert _cluster(client, rid) == first
    assert (counts.decodes, counts.fingerprints) == (0, 0)
    assert first == _from_full_reports(client, rid)  # the answer full reports give
    assert counts.decodes == RANKS  # (the comparison did decode them)


def test_changed_input_is_fingerprinted_again(
    served: tuple[FlaskClient, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, rid, _ = served
    _cluster(client, rid)
    counts = Counts(monkeypatch)
    path = _files(client, rid)[0].path
    st = path.stat()
    path.write_bytes(path.read_bytes())  # rewritten, its mtime set back: only ctime tells
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    response = client.get(f"/api/v1/runs/{rid}/cluster")
    assert counts.fingerprints == 1  # only the rewritten input is hashed again
    assert response.status_code == 200  # same content, same fingerprint: still cached


def test_entries_without_summaries_answer_the_same_and_gain_them(
    served: tuple[FlaskClient, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, rid, ws = served
    expected = _cluster(client, rid)
    for f in _files(client, rid):  # as a version before stored summaries wrote them
        entry = _entry(ws, f)
        report = stored_report(entry)
        assert report is not None
        trace = load_trace(f.path, Workspace(ws), None, f.format, f.worker)
        entry.save(trace, {"report": encode_report(report)})
        assert stored_summary(entry) is None
    _fresh_process(monkeypatch)
    counts = Counts(monkeypatch)
    assert _cluster(client, rid) == expected
    assert counts.decodes == RANKS  # cut from each report once ...
    assert all(stored_summary(_entry(ws, f)) is not None for f in _files(client, rid))
    _fresh_process(monkeypatch)
    assert _cluster(client, rid) == expected
    assert counts.decodes == RANKS  # ... and stored: the next process decodes none


def test_a_request_never_waits_for_an_entry_being_written(
    served: tuple[FlaskClient, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry without a summary whose lock another process holds (it is rewriting the
    entry): answered from its report at once, the summary left to that writer."""
    client, rid, ws = served
    expected = _cluster(client, rid)
    f = _files(client, rid)[0]
    entry = _entry(ws, f)
    report = stored_report(entry)
    assert report is not None
    trace = load_trace(f.path, Workspace(ws), None, f.format, f.worker)
    entry.save(trace, {"report": encode_report(report)})
    _fresh_process(monkeypatch)
    answers: list[dict[str, Any]] = []
    with Workspace(ws).lock(entry):  # another open file: flock conflicts within a process too
        thread = threading.Thread(target=lambda: answers.append(_cluster(client, rid)))
        thread.start()
        thread.join(60)  # generous: only a hang (waiting for the lock) takes this long
        assert not thread.is_alive()
    assert answers == [expected]
    assert stored_summary(entry) is None  # not written while someone else held the lock
