"""The native Kineto scanner gives exactly the Python path's batch, or declines the chunk.

The Python path (msgspec structs, `decode.build_batch`) is the reference. For every input
here, the scanner must either return the same batch (columns, dtypes, string and track
tables, metadata, counts) or return None, and it must return None whenever the Python
path raises: a malformed chunk is then reported by the Python path's message.
"""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pytest

from mindinsight_profiler.formats.kineto import decode as kd
from mindinsight_profiler.formats.kineto import native
from mindinsight_profiler.formats.kineto.batch import Batch

needs_native = pytest.mark.skipif(
    not native.available(), reason="the native scanner is not built (no C compiler?)"
)


def test_built_where_a_compiler_is() -> None:
    """CI has a compiler: a silently missing extension would test only the Python path."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here: the Python path reads every chunk")
    assert native._scan is not None, "run `pip install -e .` (or setup.py build_ext --inplace)"


def python_batch(data: bytes, monkeypatch: pytest.MonkeyPatch) -> Batch | Exception:
    with monkeypatch.context() as m:
        m.setenv("MINDINSIGHT_NATIVE_SCAN", "0")
        try:
            return kd.decode_batch(data)
        except Exception as exc:  # the reference's error: the scanner must decline
            return exc


def assert_same(a: Batch, b: Batch) -> None:
    for table in ("events", "memory", "flows"):
        x, y = getattr(a, table), getattr(b, table)
        assert list(x) == list(y), table
        for k in x:
            assert x[k].dtype == y[k].dtype, (table, k)
            assert np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"), (table, k)
    for f in (
        "strings",
        "tracks",
        "metadata",
        "count",
        "unknown_phase",
        "out_of_range",
        "timed",
        "invalid_utf8",
        "begin_end",
    ):
        assert getattr(a, f) == getattr(b, f), f
    assert a.bad_times.total == b.bad_times.total == 0


def check(data: bytes, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Native and Python agree on `data`; True when the scanner read it."""
    reference = python_batch(data, monkeypatch)
    batch = native.scan_batch(data)
    if isinstance(reference, Exception):
        assert batch is None, f"read what the Python path refuses ({reference}): {data[:200]!r}"
        return False
    if batch is None:
        return False
    assert_same(batch, reference)
    return True


def events(*items: dict) -> bytes:
    return json.dumps(list(items), ensure_ascii=False).encode()


def op(**over: object) -> dict:
    e = {
        "ph": "X",
        "cat": "cpu_op",
        "name": "aten::mm",
        "pid": 1,
        "tid": 2,
        "ts": 1623143089861.5,
        "dur": 5.25,
        "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float"]},
    }
    e.update(over)
    return e


def kernel(**over: object) -> dict:
    e = {
        "ph": "X",
        "cat": "kernel",
        "name": "void gemm<128>(float*)",
        "pid": 0,
        "tid": 7,
        "ts": 1623143089862,
        "dur": 3,
        "args": {
            "device": 0,
            "stream": 7,
            "correlation": 11,
            "external id": 7,
            "registers per thread": 32,
            "shared memory": 0,
            "blocks per SM": 1.5,
            "est. achieved occupancy %": 12,
            "grid": [1, 2, 1],
            "block": [128, 1, 1],
        },
    }
    e.update(over)
    return e


#: Chunks the scanner must read (and match).
READ = {
    "ops and kernels": events(op(), kernel(), op(name="aten::add", ts=1623143089870.25)),
    "escapes": events(op(name='say "hi"\\ \n\t\u00e9\u4e2d/'), op(name="\u00e9")),
    "unicode escapes": b'[{"ph":"X","name":"\\u00e9\\u4e2d\\u0000\\/","ts":1,"dur":1}]',
    "escaped key": b'[{"ph":"X","n\\u0061me":"x","ts":1,"dur":1,"cat":"cpu_op"}]',
    "unicode raw": events(op(args={"Input Dims": ["\u00e9\u4e2d\U0001f600"]})),
    "duplicate keys": b'[{"ph":"X","name":"a","name":"b","ts":1,"dur":2,"dur":3,'
    b'"args":{"device":1},"args":{"External id":4}}]',
    "int64 edges": events(op(args={"External id": 2**63 - 1, "correlation": -(2**63)})),
    "ts forms": events(
        op(ts=0),
        op(ts=12),
        op(ts=1.0),
        op(ts=1.2345),
        op(ts=1.2344),
        op(ts=1.23456789),
        op(ts=1623143089861.999999),
        op(ts=-0),
    ),
    "dur forms": events(
        op(dur=0),
        op(dur=-0),
        op(dur=-0.0),
        op(dur=1e3),
        op(dur=2.5e-4),
        op(dur=1234567890123),
        op(dur=0.1234567890123456789),
    ),
    "ranges": events(
        kernel(
            args={
                "device": 40000,
                "stream": -5,
                "registers per thread": 2**40,
                "est. achieved occupancy %": 101,
                "blocks per SM": -1,
            }
        )
    ),
    "stream strings": events(
        kernel(args={"stream": "0x1f"}),
        kernel(args={"stream": "12"}),
        kernel(args={"stream": "-3"}),
    ),
    "memory": events(
        {
            "ph": "i",
            "name": "[memory]",
            "pid": 1,
            "tid": 1,
            "ts": 5,
            "args": {
                "Addr": 123,
                "Bytes": -512,
                "Total Allocated": 1024,
                "Total Reserved": 2048,
                "Device Type": 1,
                "Device Id": 0,
            },
        },
        {
            "ph": "i",
            "name": "[memory]",
            "pid": 1,
            "tid": 1,
            "ts": 6,
            "args": {"Bytes": 2**62 + 1, "Device Type": 300},
        },
    ),
    "instants": events(
        {"ph": "i", "name": "mark", "pid": 1, "tid": 1, "ts": 5, "dur": 9},
        {"ph": "I", "name": "mark", "pid": 1, "tid": 1, "ts": 5, "s": "t"},
    ),
    "flows": events(
        {"ph": "s", "id": 5, "pid": 1, "tid": 2, "ts": 1, "cat": "ac2g"},
        {"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 2, "cat": "ac2g", "bp": "e"},
        {"ph": "t", "pid": 0, "tid": 7, "ts": 3, "cat": "x", "id": None},
    ),
    "metadata": events(
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "pid": "Spans", "tid": 0, "args": {"labels": "CPU"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": "t1"},
    ),
    "tracks": events(op(pid="1", tid=2), op(pid=1, tid=2), op(pid="Traces", tid="x")),
    "unknown phases": events(op(ph="Z"), op(ph=""), op(ph="XX"), op(ph="C"), {"name": "x"}),
    "collectives": events(
        kernel(name="ncclKernel", args={"In msg nelems": 10, "dtype": "Float", "Group size": 2}),
        op(args={"In msg nelems": 4}),
        op(args={"Call stack": "a;b"}),
    ),
    "whitespace": b' [ \n{ "ph" : "X" ,\t"name":"a" , "ts" : 1 , "dur" : 2 } \r\n] ',
    "empty": b"[]",
    "skipped values": events(op(extra={"a": [1, 2.5e-3, True, False, None, "x", {}]})),
}

#: Chunks the scanner must decline (the Python path reads or refuses them).
DECLINED = {
    "begin/end": events(
        {"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 1},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 2},
    ),
    "ts string": events(op(ts="12")),
    "ts missing": events({"ph": "X", "name": "a", "dur": 1}),
    "ts negative": events(op(ts=-1.5)),
    "ts exponent": b'[{"ph":"X","ts":1.5e3,"dur":1}]',
    "ts too late": events(op(ts=2**62)),
    "dur missing": events({"ph": "X", "name": "a", "ts": 1}),
    "dur negative": events(op(dur=-1)),
    "dur huge": b'[{"ph":"X","ts":1,"dur":1e400}]',
    "int beyond int64": events(op(args={"External id": 2**63})),
    "flow string id": events({"ph": "s", "id": "0x1f", "pid": 1, "tid": 2, "ts": 1}),
    "stream odd": events(kernel(args={"stream": "07"})),
    "surrogates": b'[{"ph":"X","name":"\\ud83d\\ude00","ts":1,"dur":1}]',
    "float for int": events(op(pid=1.0)),
    "bool": events(op(args={"device": True})),
    "null dur": events(op(dur=None)),
    "args null": events(op(args=None)),
    "not utf-8": b'[{"ph":"X","name":"\xff","ts":1,"dur":1}]',
    "truncated": events(op())[:-5],
    "trailing comma": b'[{"ph":"X","ts":1,"dur":1},]',
    "leading zero": b'[{"ph":"X","ts":01,"dur":1}]',
    "bad literal": b'[{"ph":"X","ts":1,"dur":1,"x":tru}]',
    "control char": b'[{"ph":"X","name":"a\x01","ts":1,"dur":1}]',
    "not an array": b'{"ph":"X"}',
    "trailing text": b'[{"ph":"X","ts":1,"dur":1}] x',
}


@needs_native
@pytest.mark.parametrize("name", sorted(READ))
def test_reads_as_the_python_path(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check(READ[name], monkeypatch), f"{name}: declined a chunk it should read"


@needs_native
@pytest.mark.parametrize("name", sorted(DECLINED))
def test_declines_what_it_does_not_read_exactly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert native.scan_batch(DECLINED[name]) is None
    check(DECLINED[name], monkeypatch)


@needs_native
def test_off_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDINSIGHT_NATIVE_SCAN", "0")
    assert native.scan_batch(READ["ops and kernels"]) is None


_ALPHABET = b'{}[]:,"\\ 0123456789.-eEtrufalsn\x00\x1f\xc3\xa9\xff'


@needs_native
def test_mutated_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random byte edits of a chunk: the scanner reads one as the Python path does, or
    declines it; it never reads what the Python path refuses."""
    base = b"".join(READ[k][1:-1] + b"," for k in ("ops and kernels", "memory", "flows"))
    base = b"[" + base[:-1] + b"]"
    rng = random.Random(21)
    read = 0
    for _ in range(1500):
        data = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            edit = rng.random()
            if edit < 0.4:
                data[at] = rng.choice(_ALPHABET)
            elif edit < 0.7:
                del data[at]
            else:
                data.insert(at, rng.choice(_ALPHABET))
        read += check(bytes(data), monkeypatch)
    assert read > 100  # most single-digit edits still make a readable chunk


REAL = [
    "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "hta/nccl_parser_config/nccl_data.json.gz",
    "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
    "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "torch_cpu/small/transformer_nw2_active5.1795320569240002887.pt.trace.json",
]


@needs_native
@pytest.mark.parametrize("relative", REAL)
def test_real_traces_read_the_same(relative: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole real traces (GPU 2021, AMD, PyTorch 2.x CPU, NCCL, ns times) read natively give
    the trace the Python path gives, and the scanner read most of their chunks."""
    from mindinsight_profiler.formats.kineto.reader import read_kineto
    from tests.conftest import shared

    path = shared(relative)
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "1")
    calls: list[bool] = []
    scan = native.scan_batch

    def counted(data: bytes) -> Batch | None:
        batch = scan(data)
        calls.append(batch is not None)
        return batch

    monkeypatch.setattr(native, "scan_batch", counted)
    fast = read_kineto(path)
    monkeypatch.setenv("MINDINSIGHT_NATIVE_SCAN", "0")
    reference = read_kineto(path)
    assert any(calls), "the scanner read no chunk"
    for table in ("events", "memory", "flows"):
        x, y = getattr(fast, table), getattr(reference, table)
        assert list(x) == list(y)
        for k in x:
            assert np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"), (table, k)
    assert [fast.strings[i] for i in range(len(fast.strings))] == [
        reference.strings[i] for i in range(len(reference.strings))
    ]
    assert (fast.tracks, fast.meta) == (reference.tracks, reference.meta)
