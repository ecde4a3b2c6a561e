"""Staging remote inputs: only the objects a reader needs, only when they changed, never half a
file. fsspec's local filesystem stands in for object storage here (`discover_remote` of a
`file://` URL goes through the same listing, staging and cache-key code as `s3://`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.sources import Member
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file
from mindinsight_profiler.store import staging
from mindinsight_profiler.store.cache import Workspace, fingerprint
from mindinsight_profiler.store.remote import discover_remote
from tests.conftest import shared
from tests.integration.tamper import drop_header, edit_sealed, flip_byte, truncate, warned

pytest.importorskip("fsspec")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs downloaded, in order."""
    seen: list[str] = []
    real = staging._download

    def counted(m, *args):  # type: ignore[no-untyped-def]
        seen.append(m.url)
        real(m, *args)

    monkeypatch.setattr(staging, "_download", counted)
    return seen


def _ascend_bucket(root: Path) -> Path:
    """An Ascend run with raw data and logs beside what the reader reads."""
    worker = root / "run/rank0_ascend_pt"
    shutil.copytree(shared("ascend_pytorch/level1/rank0_ascend_pt"), worker)
    _write(worker / "PROF_000001/device_0/data/raw.data", "raw" * 1000)
    _write(worker / "FRAMEWORK/torch.op_range", "raw")
    _write(worker / "logs/x.log", "log")
    return worker


def test_only_what_the_reader_needs_and_only_once(tmp_path: Path, downloads: list[str]) -> None:
    worker = _ascend_bucket(tmp_path / "bucket")
    (run,) = discover_remote(f"file://{tmp_path}/bucket/run", tmp_path / "ws")
    (file,) = run.files
    assert file.remote is not None and file.format == "ascend_pt"
    names = sorted(
        Path(m.url).relative_to(f"file://{worker}").as_posix() for m in file.remote.members
    )
    expected = sorted(
        p.relative_to(worker).as_posix() for p in worker.rglob("*")
        if p.is_file() and p.parts[len(worker.parts)] not in ("PROF_000001", "FRAMEWORK", "logs")
    )  # fmt: skip
    assert names == expected and "ASCEND_PROFILER_OUTPUT/trace_view.json" in names
    assert file.path == tmp_path / "ws/remote" / file.remote.stage_dir.name / "data" / str(
        worker
    ).lstrip("/")
    local = staging.stage(file.remote)
    assert local == file.path
    staged = sorted(p.relative_to(local).as_posix() for p in local.rglob("*") if p.is_file())
    assert staged == expected
    assert (local / "ASCEND_PROFILER_OUTPUT/kernel_details.csv").read_bytes() == (
        worker / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    ).read_bytes()
    assert len(downloads) == len(expected)
    downloads.clear()
    staging.stage(file.remote)
    assert downloads == []  # current: nothing fetched again


def test_a_change_is_fetched_again_and_a_deletion_removed(
    tmp_path: Path, downloads: list[str]
) -> None:
    worker = _ascend_bucket(tmp_path / "bucket")
    url = f"file://{tmp_path}/bucket/run"
    (before,) = discover_remote(url, tmp_path / "ws")[0].files
    assert before.remote is not None
    local = staging.stage(before.remote)
    key_before = fingerprint(before.remote)
    assert fingerprint(discover_remote(url, tmp_path / "ws")[0].files[0].source) == key_before

    changed = worker / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv"
    changed.write_text(changed.read_text() + "\n")
    os.utime(changed, (1e9, 1e9))
    (worker / "ASCEND_PROFILER_OUTPUT/l2_cache.csv").unlink()
    (after,) = discover_remote(url, tmp_path / "ws")[0].files
    assert after.remote is not None
    assert fingerprint(after.remote) != key_before  # the cache sees the change from the listing
    downloads.clear()
    staging.stage(after.remote)
    assert downloads == [f"file://{changed}"]
    assert (local / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv").read_text() == changed.read_text()
    assert not (local / "ASCEND_PROFILER_OUTPUT/l2_cache.csv").exists()


def test_a_failed_download_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "bucket/run/w.pt.trace.json", '{"traceEvents": []}' + " " * 100)
    (file,) = discover_remote(f"file://{tmp_path}/bucket/run", tmp_path / "ws")[0].files
    assert file.remote is not None

    class Broken:
        def __init__(self, real: object) -> None:
            self.real, self.calls = real, 0

        def __enter__(self) -> Broken:
            return self

        def __exit__(self, *exc: object) -> None:
            self.real.close()  # type: ignore[attr-defined]

        def read(self, n: int) -> bytes:
            self.calls += 1
            if self.calls > 1:
                raise ConnectionResetError("connection reset by peer")
            return self.real.read(10)  # type: ignore[attr-defined,no-any-return]

    real_open = staging._open
    monkeypatch.setattr(staging, "_open", lambda fs, p: Broken(real_open(fs, p)))
    with pytest.raises(InputError) as err:
        staging.stage(file.remote)
    assert str(err.value).startswith(f"file://{tmp_path}/bucket/run/w.pt.trace.json: download")
    assert "\n" not in str(err.value)
    assert [p.name for p in file.path.parent.iterdir()] == []  # no half file, no temp file
    monkeypatch.setattr(staging, "_open", real_open)
    assert staging.stage(file.remote).read_text().startswith('{"traceEvents"')


def test_a_trace_object_given_directly_brings_its_probe_file(tmp_path: Path) -> None:
    _write(tmp_path / "bucket/run/w0.7.pt.trace.json", "{}")
    _write(tmp_path / "bucket/run/w0.dataloader_probe.json", "{}")
    _write(tmp_path / "bucket/run/other.pt.trace.json", "{}")
    (run,) = discover_remote(f"file://{tmp_path}/bucket/run/w0.7.pt.trace.json", tmp_path / "ws")
    (file,) = run.files
    assert (run.name, file.worker, file.span) == ("run", "w0", "7")
    assert file.remote is not None
    assert [Path(m.url).name for m in file.remote.members] == [
        "w0.7.pt.trace.json", "w0.dataloader_probe.json"
    ]  # fmt: skip
    staging.stage(file.remote)
    assert sorted(p.name for p in file.path.parent.iterdir()) == [
        "w0.7.pt.trace.json", "w0.dataloader_probe.json"
    ]  # fmt: skip


def test_locations_and_staging_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindinsight_profiler.formats.sources import parse_location
    from mindinsight_profiler.store.remote import OPTIONS_ENV, stage_dir

    assert parse_location("s3://bucket/runs/") == "s3://bucket/runs"
    assert parse_location("file:///tmp/a%20b/") == Path("/tmp/a b")
    assert parse_location("runs/x") == Path("runs/x")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setenv(OPTIONS_ENV, '{"endpoint_url": "http://127.0.0.1:9000", "key": "a"}')
    first = stage_dir(tmp_path, "s3://bucket/runs")
    monkeypatch.setenv(OPTIONS_ENV, '{"endpoint_url": "http://127.0.0.1:9000", "key": "b"}')
    assert stage_dir(tmp_path, "s3://bucket/other") == first  # a rotated key re-uses it
    monkeypatch.setenv(OPTIONS_ENV, '{"endpoint_url": "http://127.0.0.1:9001"}')
    assert stage_dir(tmp_path, "s3://bucket/runs") != first  # another server: another folder
    assert stage_dir(tmp_path, "gs://bucket/runs") != stage_dir(tmp_path, "s3://bucket/runs")


def _old_record(path: Path, m: Member) -> None:
    """The record as written before staged copies were hashed: `size|version`."""
    path.write_text(f"{m.size}|{m.version}")


RECORD_TAMPERS = {
    "staged copy flipped": lambda record, m: flip_byte(m.local),
    "record edited": lambda record, m: edit_sealed(record, lambda d: {**d, "sha256": "0" * 64}),
    "record truncated": lambda record, m: truncate(record),
    "record without checksum": lambda record, m: drop_header(record),
    "record of the old format": _old_record,
}


@pytest.mark.parametrize("tamper", list(RECORD_TAMPERS))
def test_a_damaged_staged_copy_is_fetched_again(
    tmp_path: Path, downloads: list[str], tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A staged object changed on disk, or its record damaged, is downloaded again before
    the input is read, and the rebuilt report is the first one."""
    trace = shared("torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json")
    _write(tmp_path / "bucket/run/w0.1.pt.trace.json", trace.read_text())
    ws = Workspace(tmp_path / "ws")
    (run,) = discover_remote(f"file://{tmp_path}/bucket/run", ws.root)
    (file,) = run.files
    assert file.remote is not None
    (member,) = file.remote.members
    first, _ = analyse_file(file.source, ws, None, file.format, file.worker)
    assert downloads == [member.url]
    record = staging._record_path(file.remote.stage_dir, member)
    RECORD_TAMPERS[tamper](record, member)
    downloads.clear()
    ws.entry(file.source, cache_variant(file.format, file.worker)).invalidate()  # read it again
    again, cached = analyse_file(file.source, ws, None, file.format, file.worker)
    assert not cached and again == first
    assert downloads == [member.url]
    assert warned(caplog, member.url).count("downloading") == 1
    assert member.local.read_bytes() == trace.read_bytes()
    downloads.clear()
    staging.stage(file.remote)
    assert downloads == []  # recorded afresh: current again
