"""A table's columns in one cache file: written and mapped back exactly, any dtype and
shape, empty columns and empty tables included; a layout that does not fit the file is an
error, not a view past its end."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.store.columns import is_mapped, map_table, write_table


def test_round_trip(tmp_path: Path) -> None:
    columns = {
        "i8": np.arange(5, dtype=np.int64) - 2,
        "u1": np.array([1, 255, 0], dtype=np.uint8),  # leaves the next column unaligned
        "f8": np.array([0.5, np.nan, -np.inf]),
        "b": np.array([True, False]),
        "empty": np.zeros(0, dtype=np.int32),
        "grid": np.arange(6, dtype=np.int16).reshape(2, 3),
        "strided": np.arange(10, dtype=np.int32)[::2],
    }
    path = tmp_path / "t.bin"
    record, layout = write_table(path, columns)
    assert record == {"size": path.stat().st_size, "crc32": zlib.crc32(path.read_bytes())}
    assert all(spec["offset"] % 64 == 0 for spec in layout.values())
    back = map_table(path, layout)
    assert list(back) == list(columns)
    for name, values in columns.items():
        assert back[name].dtype == values.dtype and back[name].shape == values.shape, name
        assert np.array_equal(back[name], values, equal_nan=True), name
    assert is_mapped(back["i8"]) and not is_mapped(columns["i8"])
    with pytest.raises(ValueError):
        back["i8"][0] = 1  # read-only: a cache entry is never written through


def test_empty_table(tmp_path: Path) -> None:
    path = tmp_path / "t.bin"
    record, layout = write_table(path, {"a": np.zeros(0, dtype=np.int64)})
    assert record["size"] == 0
    assert len(map_table(path, layout)["a"]) == 0


@pytest.mark.parametrize("field,value", [("offset", 10**6), ("offset", -8), ("shape", [10**6])])
def test_a_layout_past_the_file_is_refused(tmp_path: Path, field: str, value: object) -> None:
    path = tmp_path / "t.bin"
    _, layout = write_table(path, {"a": np.arange(4, dtype=np.int64)})
    layout["a"][field] = value
    with pytest.raises(ValueError, match="does not fit"):
        map_table(path, layout)


def test_object_columns_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="objects"):
        write_table(tmp_path / "t.bin", {"a": np.array(["x", None], dtype=object)})
