"""Discovery on a listing of relative paths (what object storage gives) finds what discovery
on the same local folder finds: the folders of the existing discovery tests and every
folder of the real data."""

from __future__ import annotations

import gzip
from pathlib import Path, PurePosixPath

import pytest

from mindinsight_profiler.formats.discovery import Run, discover, discover_tree
from mindinsight_profiler.formats.tree import ListingTree
from tests.conftest import SHARED_DATA, shared


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


def _shape(runs: list[Run]) -> list[tuple[str, str, list[tuple[str, str, str, str]]]]:
    return [
        (r.name, str(r.path), [(f.worker, f.span, str(f.path), f.format) for f in r.files])
        for r in runs
    ]


def _through_listing(folder: Path) -> list[Run]:
    """Discovery of the folder's files given as a listing, placed back into the folder."""
    files = [PurePosixPath(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()]
    tree = ListingTree(
        files, folder.name, folder.parent.name, lambda rel: lambda: (folder / rel).open("rb")
    )
    return discover_tree(tree, lambda rel: folder / rel)


def _same(folder: Path) -> None:
    assert _shape(_through_listing(folder)) == _shape(discover(folder)), folder


def _logdir(root: Path) -> None:
    """The folder of test_discovery's `test_logdir_with_runs_of_every_format`."""
    for rel in (
        "kineto_run/worker0.11.pt.trace.json.gz", "kineto_run/worker0.12.pt.trace.json.gz",
        "kineto_run/worker1.11.pt.trace.json",
        "npu_run/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
        "npu_run/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
        "ms_run/profiler/host_1_2_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json",
        "legacy_run/profiler/step_trace_raw_0_detail_time.csv",
        "legacy_run/profiler/step_trace_raw_1_detail_time.csv",
        "legacy_run/profiler/ascend_timeline_display_0.json",
    ):  # fmt: skip
        _touch(root / rel)
    for rel, rank in (  # two ranks of one job: one run
        ("kineto_run/worker0.11.pt.trace.json.gz", 0),
        ("kineto_run/worker0.12.pt.trace.json.gz", 0),
        ("kineto_run/worker1.11.pt.trace.json", 1),
    ):
        head = f'{{"distributedInfo": {{"rank": {rank}, "world_size": 2}}, "traceEvents": []}}'
        data = head.encode()
        (root / rel).write_bytes(gzip.compress(data) if rel.endswith(".gz") else data)


def test_existing_discovery_folders_through_a_listing(tmp_path: Path) -> None:
    _logdir(tmp_path / "logdir")
    _same(tmp_path / "logdir")
    assert {r.name for r in _through_listing(tmp_path / "logdir")} == {
        "kineto_run", "npu_run", "ms_run/profiler", "legacy_run"
    }  # fmt: skip
    for folder in (tmp_path / "logdir").rglob("*"):
        if folder.is_dir():  # every sub-folder given as the root, worker folders included
            _same(folder)
    # the fallback to any JSON name, and its end when a profiler folder appears
    _touch(tmp_path / "fallback/hta/nccl_data.json.gz").write_bytes(
        gzip.compress(b'{"schemaVersion": 1, "traceEvents": []}')
    )
    _same(tmp_path / "fallback")
    assert [f.worker for r in _through_listing(tmp_path / "fallback") for f in r.files] == [
        "nccl_data"
    ]
    _touch(tmp_path / "fallback/hta/x_ascend_pt/profiler_info_0.json")
    _same(tmp_path / "fallback")
    # a worker folder given directly
    folder = _touch(tmp_path / "direct/a_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json")
    _same(folder.parents[1])
    _same(folder.parent)


def test_every_real_data_folder_through_a_listing() -> None:
    shared("kineto")
    folders = [SHARED_DATA, *sorted(p for p in SHARED_DATA.rglob("*") if p.is_dir())]
    assert len(folders) > 50
    for folder in folders:
        _same(folder)


def test_a_listing_without_an_opener_takes_no_plain_named_json(tmp_path: Path) -> None:
    _touch(tmp_path / "named/w.pt.trace.json")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain/trace.json").write_text('{"traceEvents": []}')
    files = [PurePosixPath(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()]
    blind = discover_tree(ListingTree(files, "root"), lambda rel: tmp_path / rel)
    assert [r.name for r in blind] == ["named"]
    assert [r.name for r in _through_listing(tmp_path)] == ["named", "plain"]


def test_listing_tree_folders_are_key_prefixes() -> None:
    tree = ListingTree([PurePosixPath("a/b/c.json"), PurePosixPath("a/d.csv")], "root", "up")
    assert tree.entries() == [PurePosixPath(p) for p in ("a", "a/b", "a/b/c.json", "a/d.csv")]
    assert tree.is_dir(PurePosixPath("a/b")) and not tree.is_file(PurePosixPath("a/b"))
    assert tree.names(PurePosixPath("a")) == ["b", "d.csv"]
    assert (tree.name(PurePosixPath(".")), tree.parent_name(PurePosixPath("."))) == ("root", "up")
    assert tree.parent_name(PurePosixPath("a/b")) == "a"


@pytest.mark.parametrize("key", ["a/../b.json", "a//b.json", "./a.json", "a/" + "x" * 300])
def test_keys_that_are_no_safe_local_path_are_not_staged(tmp_path: Path, key: str) -> None:
    from mindinsight_profiler.store.remote import _local

    assert _local(tmp_path, f"bucket/{key}") is None
    assert _local(tmp_path, "bucket/a/b.json") == tmp_path / "data/bucket/a/b.json"
