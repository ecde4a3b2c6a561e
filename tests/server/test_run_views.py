"""Views over every rank (the cluster answer) are built once per version of the run's
cache entries and kept per process; a rewritten entry gives a new answer."""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import Any

import pytest

from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.server import access
from mindinsight_profiler.server.routes import sections
from mindinsight_profiler.server.services import services
from mindinsight_profiler.store.cache import Workspace
from tests.server.test_api_endpoints import Api


def test_cluster_is_built_once_per_entry_version(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = sections._cluster_view

    def counting(entry: Any, reports: list[dict[str, Any]]) -> dict[str, Any]:
        built.append(len(reports))
        return real(entry, reports)

    monkeypatch.setattr(sections, "_cluster_view", counting)
    monkeypatch.setattr(access, "_run_views", OrderedDict())  # earlier tests asked already
    first = api.get("ascend", "cluster")
    assert api.get("ascend", "cluster") == first
    assert built == [2]
    # a rank's entry rewritten (re-analysed): the next answer is built again
    file = discover(api.folder["ascend"])[0].select("rank1")
    manifest = Workspace(api.ws).entry(file.path, "").dir / "manifest.json"
    st = manifest.stat()
    os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert api.get("ascend", "cluster") == first
    assert built == [2, 2]


def test_cluster_from_summaries_equals_full_reports(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The route reads each rank's summary; the answer is what the full reports give."""
    monkeypatch.setattr(access, "_run_views", OrderedDict())
    served = api.get("ascend", "cluster")
    run = api.id["ascend"]
    with api.client.application.app_context():
        entry = services().registry.get(run)
        reports = [access.report(access.resolve(run, w)) for w in entry.run.workers]
        full = json.loads(json.dumps(sections._cluster_view(entry, reports)))
    assert "operators" in reports[0] and "operators" not in rank_summary(reports[0])
    assert served == full
    assert served["comm_matrix"]["transports"]  # the Ascend run has measured links
