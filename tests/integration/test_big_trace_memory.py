"""Reading a trace takes memory for its events, not for its JSON text.

Two gzipped traces hold the same 100,000 events; in the second each event carries 2 KB of
args that no analysis reads, so its text is 16x larger (about 220 MB). The peak RSS of
analysing it (one process, the CLI) must grow far less than the text does: the document is
streamed chunk by chunk and only the decoded columns stay. A reader that held the text, or
the decoded events of the whole document, would grow by hundreds of MB.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.integration.cli import cli_peak

EVENTS = 100_000
PAD_BYTES = 2048


def _write(path: Path, pad: int) -> int:
    """A Kineto-shaped trace of EVENTS operators (ProfilerSteps around them); returns the
    size of its JSON text."""
    junk = f', "unused": "{"x" * pad}"' if pad else ""
    size = 0
    with gzip.open(path, "wb", compresslevel=1) as f:
        head = b'{"schemaVersion": 1, "traceEvents": [\n'
        f.write(head)
        size += len(head)
        batch = []
        for i in range(EVENTS):
            if i % 1000 == 0:  # a step every 1000 operators
                step = i // 1000
                batch.append(
                    f'{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", '
                    f'"pid": 1, "tid": 1, "ts": {i * 10}, "dur": 10000, "args": {{}}}},\n'
                )
            batch.append(
                f'{{"ph": "X", "cat": "cpu_op", "name": "aten::op{i % 300}", "pid": 1, '
                f'"tid": 1, "ts": {i * 10 + 1}, "dur": 8, '
                f'"args": {{"External id": {i + 1}{junk}}}}}' + (",\n" if i < EVENTS - 1 else "\n")
            )
            if len(batch) >= 2000 or i == EVENTS - 1:
                data = "".join(batch).encode()
                f.write(data)
                size += len(data)
                batch = []
        f.write(b"]}\n")
    return size + 3


def _peak_mb(trace: Path) -> float:
    r = cli_peak("analyse", trace, "--no-cache", env={"MINDINSIGHT_READ_PROCESSES": "1"})
    assert r.returncode == 0, r.stderr
    assert "aten::op1" in r.stdout, r.stdout[:200]
    return r.peak_mb


@pytest.mark.slow
def test_peak_memory_follows_the_events_not_the_text(tmp_path: Path) -> None:
    lean, padded = tmp_path / "lean.pt.trace.json.gz", tmp_path / "padded.pt.trace.json.gz"
    lean_text, padded_text = _write(lean, 0), _write(padded, PAD_BYTES)
    assert padded_text > 200e6 and padded_text > 10 * lean_text
    lean_peak, padded_peak = _peak_mb(lean), _peak_mb(padded)
    text_growth_mb = (padded_text - lean_text) / 2**20
    # The chunk in flight is the only text held: growth is a small constant, not the text.
    assert padded_peak - lean_peak < 0.15 * text_growth_mb, (
        f"peak {lean_peak:.0f} -> {padded_peak:.0f} MB for text +{text_growth_mb:.0f} MB"
    )
