"""Sealed workspace files: the payload back when whole, one CacheError naming the file else."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.store.integrity import read_sealed, seal, write_sealed

PAYLOAD = b'{"severity":"high","zh":"\xe8\xae\xbe\xe5\xa4\x87"}'


def test_round_trip_and_absence(tmp_path: Path) -> None:
    path = tmp_path / "a" / "advice.json"
    assert read_sealed(path, "advice") is None  # nothing stored: a plain miss
    write_sealed(path, "advice", PAYLOAD)
    payload = read_sealed(path, "advice")
    assert payload is not None and bytes(payload) == PAYLOAD
    assert [p.name for p in path.parent.iterdir()] == ["advice.json"]  # no temporary left


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (PAYLOAD, "not a checksummed file"),  # the format before checksums
        (b"x" * 300 + b"\n" + PAYLOAD, "not a checksummed file"),
        (b"mindinsight-sealed/1 advice 3\n" + PAYLOAD, "malformed checksum header"),
        (seal("advice", PAYLOAD).replace(b"/1 ", b"/2 ") + PAYLOAD, "of format 2, not 1"),
        (seal("state", PAYLOAD) + PAYLOAD, "holds state, not advice"),
        (seal("advice", PAYLOAD) + PAYLOAD[:-3], "header says"),  # truncated
        (seal("advice", PAYLOAD) + PAYLOAD.replace(b"high", b"lowx"), "checksum mismatch"),
        (seal("advice", PAYLOAD)[:-2] + b"\n" + PAYLOAD, "checksum mismatch"),  # hash cut
    ],
)
def test_every_damage_is_one_cache_error_naming_the_file(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    path = tmp_path / "advice.json"
    path.write_bytes(data)
    with pytest.raises(CacheError) as err:
        read_sealed(path, "advice")
    assert str(err.value).startswith(f"{path}: ") and problem in str(err.value)
    assert "\n" not in str(err.value)
