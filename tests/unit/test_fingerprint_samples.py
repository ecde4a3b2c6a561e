"""The bytes a fingerprint samples from a file are kept in the process by the file's
identity (`store.fingerprints.sample`): read once for every worker of a folder input, and
read again as soon as the file changes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mindinsight_profiler.store import fingerprints
from mindinsight_profiler.store.cache import fingerprint


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprints, "SETTLE_NS", 0)
    fingerprints._samples.clear()
    monkeypatch.setattr(fingerprints, "_samples_bytes", 0)


def test_sample_is_both_ends_and_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(b"a" * fingerprints.SAMPLE + b"b" * 10 + b"c" * fingerprints.SAMPLE)
    st = path.stat()
    data = fingerprints.sample(path, st)
    assert data == b"a" * fingerprints.SAMPLE + b"c" * fingerprints.SAMPLE
    opened: list[object] = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    assert fingerprints.sample(path, st) == data and not opened  # from memory


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "a.csv").write_text("1,2\n")
    (folder / "b.txt").write_text("x")
    first = fingerprint(folder, "rank0")
    assert fingerprint(folder, "rank1") != first  # the variant is part of it
    assert fingerprint(folder, "rank0") == first  # memory gives the same bytes
    time.sleep(0.01)
    (folder / "a.csv").write_text("9,9\n")  # same size, new content (and ctime)
    os.utime(folder / "a.csv", ns=(0, (folder / "b.txt").stat().st_mtime_ns))
    assert fingerprint(folder, "rank0") != first


def test_memory_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprints, "SAMPLES_KEPT_BYTES", 64 << 10)
    for i in range(20):
        path = tmp_path / f"f{i}"
        path.write_bytes(bytes([i]) * (6 << 10))
        fingerprints.sample(path, path.stat())
    assert fingerprints._samples_bytes <= 64 << 10
    assert len(fingerprints._samples) == (64 << 10) // (6 << 10)
