"""Bad inputs: exit status 2, one line naming the file and the problem, bounded memory."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.conftest import shared
from tests.integration.cli import cli_peak, run_cli


def _event(**over: object) -> dict:
    e = {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}
    e.update(over)
    return e


def _doc(*events: dict) -> str:
    return json.dumps({"traceEvents": list(events)})


CASES: dict[str, tuple[bytes, str]] = {
    "empty.json": (b"", "empty"),
    "blank.json": (b"   \n\n  ", "empty"),
    "not_json.json": (b"hello world", "not JSON"),
    "not_a_trace.json": (b'{"hello": [1, 2]}', "no traceEvents"),
    "events_not_list.json": (b'{"traceEvents": 5}', "no traceEvents"),
    "array_of_numbers.json": (b"[1, 2, 3]", "Expected `object`"),
    "truncated.json": (_doc(*[_event() for _ in range(50)]).encode()[:-40], "truncated"),
    "ts_string.json": (_doc(_event(ts="abc")).encode(), "ts is not a number"),
    "dur_string.json": (_doc(_event(dur="x")).encode(), "$.traceEvents[0].dur"),
    "arg_wrong_type.json": (
        _doc(_event(cat="kernel", args={"correlation": "x"})).encode(),
        "correlation",
    ),
    "nan.json": (_doc(_event()).replace('"ts": 1', '"ts": NaN').encode(), "invalid JSON"),
    "infinity.json": (
        _doc(_event()).replace('"dur": 2', '"dur": Infinity').encode(),
        "invalid JSON",
    ),
    "huge_number.json": (
        _doc(_event()).replace('"dur": 2', '"dur": 1e999').encode(),
        "out of range",
    ),
    "no_events.json": (b'{"traceEvents": []}', "no events"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file(tmp_path: Path, name: str) -> None:
    data, expected = CASES[name]
    path = tmp_path / name
    path.write_bytes(data)
    before = path.read_bytes()
    r = run_cli("analyse", path, "--no-cache")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert path.read_bytes() == before  # the user's file is never modified


def test_truncated_and_corrupt_gzip(tmp_path: Path) -> None:
    good = gzip.compress(_doc(*[_event(ts=i) for i in range(5000)]).encode())
    cases = {
        "truncated.json.gz": good[: len(good) // 2],
        "corrupt.json.gz": good[:20] + bytes(200) + good[220:],
        "bad_header.json.gz": b"\x1f\x8b\x08\x00garbage",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        r = run_cli("analyse", path, "--no-cache")
        assert (
            r.returncode == 2 and str(path) in r.stderr and len(r.stderr.strip().splitlines()) == 1
        ), (name, r.stderr)


def _peak_rss_mb(args: list[str]) -> tuple[int, float, str]:
    """Run the CLI with args; return (exit code, its peak RSS in MB, its other stderr)."""
    r = cli_peak(*args)
    return r.returncode, r.peak_mb, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["inside_array", "whole_file"])
def test_gzip_bomb_is_read_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    # 2 GiB of whitespace in a ~2 MB gzip: must be streamed, never loaded whole.
    path = tmp_path / f"bomb_{shape}.json.gz"
    block = b" " * (64 << 20)
    with gzip.open(path, "wb", compresslevel=9) as f:
        if shape == "inside_array":
            f.write(b'{"traceEvents": [')
        for _ in range(32):
            f.write(block)
        if shape == "inside_array":
            f.write(b"]}")
    assert path.stat().st_size < 4 << 20
    code, rss_mb, err = _peak_rss_mb(["analyse", str(path), "--no-cache"])
    assert code == 2 and str(path) in err, err
    assert rss_mb < 400, f"peak RSS {rss_mb:.0f} MB"


def test_missing_path_and_bad_selection(tmp_path: Path) -> None:
    r = run_cli("analyse", tmp_path / "nope.json")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = run_cli(
        "analyse", shared("kineto/resnet50_num_workers_0"), "--worker", "nobody", "--no-cache"
    )
    assert r.returncode == 2 and "worker=nobody" in r.stderr and "worker0" in r.stderr
