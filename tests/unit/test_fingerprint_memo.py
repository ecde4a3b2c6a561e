"""Input fingerprints remembered in the workspace: used while the file's identity is
unchanged, recomputed when it changed, when the memo is damaged or when the file is fresh.

Bounded by counts of `cache.fingerprint` calls (each hashes the input's ends).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.store import cache, fingerprints
from mindinsight_profiler.store.cache import Workspace, fingerprint
from mindinsight_profiler.store.fingerprints import memo_path


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = cache.fingerprint

    def counting(path: Any, variant: str = "") -> str:
        seen.append(path)
        return real(path, variant)

    monkeypatch.setattr(cache, "fingerprint", counting)
    monkeypatch.setattr(fingerprints, "SETTLE_NS", 0)
    return seen


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "worker0.1.pt.trace.json"
    path.parent.mkdir()
    path.write_text('{"traceEvents": []}')
    return path


def test_remembered_across_workspace_objects(tmp_path: Path, hashed: list[Path]) -> None:
    path = _input(tmp_path)
    first = Workspace(tmp_path / "ws").entry(path, "v").key
    assert first == fingerprint(path, "v") and len(hashed) == 1
    assert Workspace(tmp_path / "ws").entry(path, "v").key == first  # a fresh process
    assert len(hashed) == 1
    assert Workspace(tmp_path / "ws").entry(path, "w").key != first  # another variant
    assert len(hashed) == 2


def test_changed_file_is_hashed_again(tmp_path: Path, hashed: list[Path]) -> None:
    path = _input(tmp_path)
    ws = Workspace(tmp_path / "ws")
    before = ws.entry(path).key
    st = path.stat()
    path.write_text('{"traceEvents":[1]}')  # same size as before
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime: ctime tells
    after = ws.entry(path).key
    assert len(hashed) == 2
    assert after == fingerprint(path)  # the content changed: a new entry
    assert after != before


def test_damaged_memo_is_recomputed(tmp_path: Path, hashed: list[Path]) -> None:
    path = _input(tmp_path)
    ws = Workspace(tmp_path / "ws")
    key = ws.entry(path).key
    memo = memo_path(ws.cache_root, path, "")
    memo.write_bytes(memo.read_bytes().replace(key[:4].encode(), b"beef", 1))
    assert ws.entry(path).key == key
    assert len(hashed) == 2
    assert ws.entry(path).key == key  # rewritten sound
    assert len(hashed) == 2


def test_fresh_file_is_not_remembered(tmp_path: Path, hashed: list[Path], monkeypatch: Any) -> None:
    monkeypatch.setattr(fingerprints, "SETTLE_NS", 60_000_000_000)
    path = _input(tmp_path)
    ws = Workspace(tmp_path / "ws")
    assert ws.entry(path).key == ws.entry(path).key
    assert len(hashed) == 2  # changed within the last minute: hashed each time
    assert not memo_path(ws.cache_root, path, "").exists()
