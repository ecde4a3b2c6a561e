"""Ways to damage a workspace file, as issue 16 lists them, for the cache tests."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.store.integrity import seal


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) * 2 // 3] ^= 0x01  # same size: only a checksum can tell
    path.write_bytes(bytes(data))


def split_sealed(path: Path) -> tuple[bytes, Any]:
    header, payload = path.read_bytes().split(b"\n", 1)
    assert header.startswith(b"mindinsight-sealed/1 "), header
    return header, json.loads(payload)


def dumps(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()


def edit_sealed(path: Path, edit: Callable[[Any], Any]) -> None:
    """Valid JSON of the same shape under the old header: only the checksum can tell."""
    header, doc = split_sealed(path)
    path.write_bytes(header + b"\n" + dumps(edit(doc)))


def reseal(path: Path, kind: str, edit: Callable[[Any], Any]) -> None:
    """Changed content under a correct checksum: what another version's writer would leave."""
    _, doc = split_sealed(path)
    body = dumps(edit(doc))
    path.write_bytes(seal(kind, body) + body)


def drop_header(path: Path) -> None:
    """The checksum deleted: the bare JSON, which is also what the format before it wrote."""
    split_sealed(path)  # it had one
    path.write_bytes(path.read_bytes().split(b"\n", 1)[1])


def warned(caplog: pytest.LogCaptureFixture, name: str) -> str:
    """The warnings logged; fails unless one names `name`."""
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(name in line for line in lines), lines
    return "\n".join(lines)
