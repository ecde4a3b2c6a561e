"""StringTable's name filters: each string judged once per filter, new strings judged too."""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.model.strings import StringTable


def test_a_filter_is_judged_once_per_string_and_sees_strings_added_later() -> None:
    table = StringTable(["aten::mm", "ProfilerStep#1", "aten::add"])
    seen: list[str] = []

    def is_aten(s: str) -> bool:
        seen.append(s)
        return s.startswith("aten::")

    assert table.codes_where(is_aten).tolist() == [0, 2]
    assert table.codes_where(is_aten).tolist() == [0, 2]
    assert seen == ["aten::mm", "ProfilerStep#1", "aten::add"]  # not judged again
    table.intern("aten::relu")
    assert table.codes_where(is_aten).tolist() == [0, 2, 3]
    assert seen[-1] == "aten::relu" and len(seen) == 4


def test_mask_where_answers_no_for_absent_codes() -> None:
    table = StringTable(["a", "b", "ab"])
    codes = np.array([2, -1, 0, 1, 2], dtype=np.int32)
    got = table.mask_where(codes, lambda s: "a" in s)
    assert got.tolist() == [True, False, True, False, True]
