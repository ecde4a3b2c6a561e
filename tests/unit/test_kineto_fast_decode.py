"""The Kineto reader's fast decode (ints and float texts for `ts`, joined raw texts) gives
exactly what the exact decoder (every `ts` a raw text) gives, whatever the `ts` values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mindinsight_profiler.formats.event_times import times_from_int_us, times_from_text
from mindinsight_profiler.formats.kineto import decode as kd
from mindinsight_profiler.formats.kineto.events import EXACT_DECODER


def _event(ts: object, **extra: object) -> dict[str, object]:
    args = {"External id": 7, "Input Dims": [[2, 3], [3, 4]]}
    return {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": ts,
            "dur": 5, "args": args, **extra}  # fmt: skip


def _same(data: bytes) -> kd.Batch:
    fast = kd.decode_batch(data)
    exact = kd.build_batch(EXACT_DECODER.decode(data))
    for table in ("events", "memory", "flows"):
        a, b = getattr(fast, table), getattr(exact, table)
        assert a.keys() == b.keys()
        for k in a:
            assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), (table, k)
    assert (fast.strings, fast.tracks, fast.metadata) == (
        exact.strings,
        exact.tracks,
        exact.metadata,
    )
    assert (fast.bad_times.counts, fast.bad_times.first) == (
        exact.bad_times.counts,
        exact.bad_times.first,
    )
    return fast


@pytest.mark.parametrize(
    "values",
    [
        [1623142624984275, 1623142624984276],  # 2021 traces: integers
        ["4463559239132.882", "4463559239132.5", "1.5e3"],  # 2.x: decimals
        [1623142624984275, "4463559239132.882"],  # both in one chunk
        [-5, 2**62 // 1000 + 1, 2**62 // 1000, 0],  # negative, out of range, the limit
        [2**70, -(2**70)],  # beyond int64: the text path says so
        ['"12"', "null", "true", 3],  # not numbers: the exact decoder decides
        ["[1]", '{"a": 1}', 4],
    ],
)
def test_fast_and_exact_decoders_agree(values: list[object]) -> None:
    texts = [v if isinstance(v, str) else json.dumps(v) for v in values]
    events = [json.dumps(_event(0)).replace('"ts": 0', f'"ts": {t}') for t in texts]
    _same(("[" + ", ".join(events) + "]").encode())


def test_a_missing_ts_is_missing_on_the_fast_path() -> None:
    batch = _same(
        json.dumps([_event(10), {k: v for k, v in _event(0).items() if k != "ts"}]).encode()
    )
    assert batch.bad_times.counts == {"no ts": 1}


def test_integer_times_match_their_text() -> None:
    values = [0, 1, -1, 2**62 // 1000, 2**62 // 1000 + 1, 123456789, -(2**40)]
    got = times_from_int_us(values)
    want = times_from_text([str(v).encode() for v in values])
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_begin_end_pairs_with_integer_times_last_their_difference() -> None:
    begin = {"ph": "B", "name": "step", "pid": 1, "tid": 1, "ts": 1000}
    end = {"ph": "E", "name": "step", "pid": 1, "tid": 1, "ts": 1250}
    batch = kd.decode_batch(json.dumps([begin, end]).encode())
    from mindinsight_profiler.formats import phases

    pairs, unmatched = phases.paired(batch.begin_end)
    assert unmatched == 0 and [ns for _, ns in pairs] == [250_000]
    joined = kd.complete_batch(pairs)
    assert joined.events["start_ns"].tolist() == [1_000_000]
    assert joined.events["end_ns"].tolist() == [1_250_000]


def test_raw_texts_are_kept_exactly() -> None:
    batch = _same(
        json.dumps(
            [_event(1), _event(2, args={"Input Dims": [[1, 2]], "Call stack": "a;b"})]
        ).encode()
    )
    texts = [batch.strings[i] for i in batch.events["input_dims"]]
    assert texts == ["[[2, 3], [3, 4]]", "[[1, 2]]"]
