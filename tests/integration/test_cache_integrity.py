"""Every cached artefact is verified on read: damaged, edited or older files are rebuilt.

Each artefact is written through the real pipeline on a real trace, then tampered with in
the ways issue 16 lists: a field edited into other valid JSON, a truncation, a flipped
byte, the checksum deleted, an entry in the format written before checksums, a sealed file
of another format or version. The next read must say so in a log line naming the file,
rebuild from the input, return what the first read returned, and cache it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from mindinsight_profiler.analysis.schema import decode_report
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import advise_file, stored_advice
from mindinsight_profiler.pipeline.keys import advice_name
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline, load_trace
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from mindinsight_profiler.store.integrity import seal
from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.integration.tamper import (
    drop_header,
    edit_sealed,
    flip_byte,
    reseal,
    split_sealed,
    truncate,
    warned,
)

TRACE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"


def _src() -> Path:
    return shared(TRACE)


# -- the report and its entry ----------------------------------------------------------------
def _edit_report(path: Path) -> None:
    doc = json.loads(path.read_bytes())
    doc["steps"]["average_us"] *= 2
    edited = json.dumps(doc).encode()
    decode_report(edited)  # still of the contract: only the checksum stops it
    path.write_bytes(edited)


def _without_report_checksum(entry: CacheEntry) -> None:
    def edit(manifest: dict[str, Any]) -> dict[str, Any]:
        del manifest["files"]["report.json"]["sha256"]
        return manifest

    reseal(entry.dir / "manifest.json", "manifest", edit)


REPORT_TAMPERS: dict[str, Callable[[CacheEntry], None]] = {
    "edited field": lambda e: _edit_report(e.dir / "report.json"),
    "truncated": lambda e: truncate(e.dir / "report.json"),
    "flipped byte": lambda e: flip_byte(e.dir / "report.json"),
    "checksum deleted": _without_report_checksum,
}


@pytest.mark.parametrize("tamper", list(REPORT_TAMPERS))
def test_a_tampered_report_is_rebuilt(
    tmp_path: Path, tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    ws = Workspace(tmp_path / "ws")
    first, cached = analyse_file(_src(), ws)
    assert not cached
    REPORT_TAMPERS[tamper](ws.entry(_src()))
    rebuilt, cached = analyse_file(_src(), ws)
    assert not cached and rebuilt == first
    warned(caplog, "report.json")
    assert analyse_file(_src(), ws) == (first, True)  # cached again, sound


def _old_manifest(doc: dict[str, Any]) -> dict[str, Any]:
    """The manifest as the format before checksums wrote it (CRC32 of every file)."""
    doc["cache_format"] = 1
    for info in doc["files"].values():
        info.pop("sha256", None)
        info.setdefault("crc32", 0)
    return doc


MANIFEST_TAMPERS: dict[str, Callable[[Path], None]] = {
    "edited field": lambda p: edit_sealed(p, lambda d: {**d, "meta": {**d["meta"], "x": 1}}),
    "truncated": truncate,
    "flipped byte": flip_byte,
    "checksum deleted": drop_header,
    "old format": lambda p: p.write_text(json.dumps(_old_manifest(split_sealed(p)[1]))),
    "old version, sealed": lambda p: reseal(p, "manifest", _old_manifest),
    "undecodable, sealed": lambda p: reseal(p, "manifest", lambda d: ["not", "a", "manifest"]),
    "another kind": lambda p: p.write_bytes(seal("advice", b"{}") + b"{}"),
}


@pytest.mark.parametrize("tamper", list(MANIFEST_TAMPERS))
def test_a_tampered_manifest_is_rebuilt(
    tmp_path: Path, tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    ws = Workspace(tmp_path / "ws")
    first, _ = analyse_file(_src(), ws)
    parsed = load_trace(_src(), ws)
    MANIFEST_TAMPERS[tamper](ws.entry(_src()).dir / "manifest.json")
    rebuilt, cached = analyse_file(_src(), ws)
    assert not cached and rebuilt == first
    warned(caplog, "manifest.json")
    _same_trace(load_trace(_src(), ws), parsed)


def _same_trace(got: Trace, want: Trace) -> None:
    assert got.strings.to_list() == want.strings.to_list()
    for table in ("events", "memory", "flows"):
        for col, values in getattr(want, table).items():
            assert np.array_equal(getattr(got, table)[col], values, equal_nan=True), col
    assert set(got.tables) == set(want.tables)
    for name, columns in want.tables.items():
        for col, values in columns.items():
            assert np.array_equal(got.tables[name][col], values), (name, col)


def _rewrite_column(path: Path) -> None:
    """The same size, other plausible values: each int64 word shifted by one."""
    values = np.frombuffer(path.read_bytes(), np.int64, len(path.read_bytes()) // 8)
    path.write_bytes((values + 1).tobytes() + path.read_bytes()[values.nbytes :])


def _rename_string(path: Path) -> None:
    names = json.loads(path.read_bytes())
    names[1] = names[1] + "!"
    path.write_bytes(json.dumps(names, separators=(",", ":")).encode())


FILE_TAMPERS: dict[str, Callable[[Path], None]] = {
    "edited": lambda p: _rename_string(p) if p.suffix == ".json" else _rewrite_column(p),
    "truncated": truncate,
    "flipped byte": flip_byte,
}


@pytest.mark.parametrize("tamper", list(FILE_TAMPERS))
@pytest.mark.parametrize(
    "name",
    ["events.bin", "strings.json", "side.timeline_events.bin", "side.timeline_meta.bin"],
)  # fmt: skip
def test_a_tampered_trace_or_timeline_index_is_rebuilt(
    tmp_path: Path, name: str, tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    ws = Workspace(tmp_path / "ws")
    want, _ = load_timeline(_src(), ws)  # parsed now: in memory, not mapped from the entry
    assert "timeline_events" in want.tables  # the index is in the entry
    entry = ws.entry(_src())
    path = entry.dir / name
    before = path.read_bytes()
    FILE_TAMPERS[tamper](path)
    assert path.read_bytes() != before
    got, _ = load_timeline(_src(), ws)
    warned(caplog, name)
    _same_trace(got, want)
    caplog.clear()
    reopened = entry.load_trace()  # sound again, the index included
    assert reopened is not None and not caplog.records
    _same_trace(reopened, want)


# -- stored advice -------------------------------------------------------------------------
def _severities(doc: dict[str, Any]) -> dict[str, Any]:
    """Every high finding made low (the issue's edit: `--fail-on high` would pass)."""
    for f in doc["findings"]:
        if f["severity"] == "high":
            f["severity"] = "low"
    return doc


def _reordered(doc: dict[str, Any]) -> dict[str, Any]:
    assert len(doc["findings"]) > 1
    doc["findings"].reverse()
    return doc


ADVICE_TAMPERS: dict[str, Callable[[Path], None]] = {
    "severity edited": lambda p: edit_sealed(p, _severities),
    "findings reordered (same size)": lambda p: edit_sealed(p, _reordered),
    "truncated": truncate,
    "flipped byte": flip_byte,
    "checksum deleted (the old format)": drop_header,
    "old version, sealed": lambda p: reseal(p, "advice", lambda d: {**d, "advice_version": 2}),
    "undecodable, sealed": lambda p: reseal(p, "advice", lambda d: {**d, "findings": 7}),
    "header of another format": lambda p: p.write_bytes(
        p.read_bytes().replace(b"mindinsight-sealed/1 ", b"mindinsight-sealed/0 ", 1)
    ),
}


@pytest.mark.parametrize("tamper", list(ADVICE_TAMPERS))
def test_tampered_advice_is_recomputed(
    tmp_path: Path, tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    (run,) = discover(_src())
    file = run.select()
    ws = Workspace(tmp_path / "ws")
    first = advise_file(file, run, ws)
    assert any(f.severity == "high" for f in first.findings)
    stored = ws.entry(_src()).dir / advice_name((), run)
    assert stored_advice(stored) == first
    ADVICE_TAMPERS[tamper](stored)
    assert advise_file(file, run, ws) == first
    warned(caplog, stored.name)
    assert stored_advice(stored) == first  # rewritten, sound


def test_fail_on_high_survives_an_edited_severity(tmp_path: Path) -> None:
    """The issue's case: `advise --fail-on high` exits 3; after the stored advice's
    severities are edited it still exits 3 (recomputed, with a line saying why)."""
    ws = tmp_path / "ws"
    args = ("advise", _src(), "--fail-on", "high", "--workspace", ws)
    first = run_cli(*args)
    assert first.returncode == 3, first.stderr
    (stored,) = ws.rglob("advice-*.json")
    edit_sealed(stored, _severities)
    again = run_cli(*args)
    assert again.returncode == 3, again.stderr
    assert "recomputing advice" in again.stderr and stored.name in again.stderr
    assert again.stdout == first.stdout
    # The check is what decides: the same edit under a correct checksum would be served.
    reseal(stored, "advice", _severities)
    assert run_cli(*args).returncode == 0


def test_analyse_cli_rebuilds_an_edited_report(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    args = ("analyse", _src(), "--format", "json", "--workspace", ws)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    (report,) = ws.rglob("report.json")
    _edit_report(report)
    again = run_cli(*args)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "rebuilding cache" in again.stderr and "report.json" in again.stderr
    assert msgspec.json.decode(report.read_bytes())["steps"] == json.loads(first.stdout)["steps"]
