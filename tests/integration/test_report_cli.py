"""`mindinsight report` on a small generated Kineto trace whose operator and kernel names
are hostile (an HTML tag, a pipe, a backtick, a new line, 3,000 characters): where the
files go (-o file or folder, --format all), bad paths (exit 2, one line naming the path),
the input left untouched, and a Markdown summary whose tables those names cannot break.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import openpyxl
import pytest

from mindinsight_profiler.cli.main import main
from mindinsight_profiler.export import columns as C
from tests.advisor.gputrace import gpu_trace, mm

HOSTILE = "<script>alert(1)</script>|col`tick`\nnext line *bold* _x_ " + "y" * 3000
KERNEL = "kern<b>|x</b>\n`k`"
#: a pipe not escaped by a backslash: a cell border in a GitHub table
BORDER = re.compile(r"(?<!\\)\|")


@pytest.fixture
def trace_dir(tmp_path: Path) -> Path:
    hostile = (HOSTILE, [[64, 64], [64, 64]], ["float", "float"], KERNEL, 400.0)
    gpu_trace(tmp_path / "run", [hostile, mm(256, 256, 256, 100.0)], steps=3)
    return tmp_path / "run"


def _snapshot(folder: Path) -> dict[str, tuple[int, int, str]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns,
                                     hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(folder.rglob("*")) if p.is_file()
    }  # fmt: skip


def _report(trace_dir: Path, ws: Path, *args: str) -> int:
    return main(["report", str(trace_dir), "--workspace", str(ws), *args])


def test_format_all_writes_three_files_and_leaves_the_input_alone(
    trace_dir: Path, tmp_path: Path
) -> None:
    before = _snapshot(trace_dir)
    out = tmp_path / "out"
    assert _report(trace_dir, tmp_path / "ws", "--format", "all", "-o", str(out)) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == ["run-w.html", "run-w.md", "run-w.xlsx"], written
    assert _snapshot(trace_dir) == before
    assert not list(out.glob(".*")), "a temporary file was left behind"
    # files to share get the mode of any new file (umask), not a temporary file's 0600
    umask = os.umask(0)
    os.umask(umask)
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in out.iterdir()}
    assert set(modes.values()) == {oct(0o666 & ~umask)}, modes


def test_output_file_or_folder(trace_dir: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    target = tmp_path / "new" / "summary.md"
    assert _report(trace_dir, ws, "--format", "md", "-o", str(target)) == 0
    assert target.read_text().startswith("# Performance summary: run / w")
    folder = tmp_path / "folder"
    folder.mkdir()
    assert _report(trace_dir, ws, "--format", "xlsx", "-o", str(folder), "--lang", "zh") == 0
    assert [p.name for p in folder.iterdir()] == ["run-w.xlsx"]
    book = openpyxl.load_workbook(folder / "run-w.xlsx", read_only=True)
    assert book.sheetnames[1:] == [t.zh for t in C.ALL]


def test_bad_paths_exit_2_with_one_line(
    trace_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    missing = tmp_path / "no-such-run"
    assert _report(missing, ws, "--format", "md") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(missing) in err[0], err
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "sub" / "s.md"
    assert _report(trace_dir, ws, "--format", "md", "-o", str(target)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(target) in err[0] and "not a folder" in err[0], err
    assert blocker.read_text() == "x"


def test_hostile_names_do_not_break_the_markdown(trace_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.md"
    assert _report(trace_dir, tmp_path / "ws", "--format", "md", "-o", str(out)) == 0
    md = out.read_text()
    assert "<script>" not in md and "<b>" not in md and "`tick`" not in md
    assert "\\<script\\>alert(1)\\</script\\>\\|col\\`tick\\`" in md
    blocks, current = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    ops = next(b for b in blocks if b[0].startswith("| Operator |"))
    assert any("alert(1)" in line for line in ops)
    kernels = next(b for b in blocks if b[0].startswith("| Kernel |"))
    assert any("kern\\<b\\>\\|x" in line for line in kernels)
    for block in blocks:
        borders = {len(BORDER.findall(line)) for line in block}
        assert len(borders) == 1, block  # every row has the header's cells
        assert all(line.endswith("|") for line in block)
    assert max(len(line) for line in md.splitlines()) < 600  # the long name is cut


def test_hostile_names_are_kept_whole_in_the_workbook(trace_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.xlsx"
    assert _report(trace_dir, tmp_path / "ws", "--format", "xlsx", "-o", str(out)) == 0
    book = openpyxl.load_workbook(out, read_only=True)
    names = [r[0] for r in book[C.OPERATORS.en].iter_rows(min_row=2, values_only=True)]
    assert HOSTILE in names
    kernels = [r[0] for r in book[C.KERNELS.en].iter_rows(min_row=2, values_only=True)]
    assert KERNEL in kernels


def test_a_table_past_excels_row_limit_is_cut_with_a_note(
    trace_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mindinsight_profiler.export.xlsx.MAX_ROWS", 3)  # header + 1 row
    out = tmp_path / "r.xlsx"
    assert _report(trace_dir, tmp_path / "ws", "--format", "xlsx", "-o", str(out)) == 0
    rows = list(openpyxl.load_workbook(out)[C.OPERATORS.en].iter_rows(values_only=True))
    assert len(rows) == 3 and rows[1][1] == 3  # one operator (3 calls), then the note
    assert rows[2][0].startswith("cut at Excel's 3 rows")
