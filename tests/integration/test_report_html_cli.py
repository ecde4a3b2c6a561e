"""`mindinsight report --format html` as a user runs it: one file, written whole, in the
language asked for, holding every section (the renderer's own tests are unit tests)."""

from __future__ import annotations

import re
from pathlib import Path

from mindinsight_profiler.export.html import SECTIONS
from tests.htmlreport import hostile_trace
from tests.integration.cli import run_cli


def test_report_html_writes_one_self_contained_file_per_language(tmp_path: Path) -> None:
    folder = hostile_trace(tmp_path)
    for lang, marker in (("en", '<html lang="en">'), ("zh", '<html lang="zh-CN">')):
        out = tmp_path / f"report-{lang}.html"
        done = run_cli("report", folder, "-o", out, "--lang", lang, "--workspace", tmp_path / "ws")
        assert done.returncode == 0, done.stderr
        assert f"wrote {out}" in done.stderr
        html = out.read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
        assert marker in html
        assert re.findall(r'<section id="(\w+)"', html) == list(SECTIONS)
    assert not list(tmp_path.glob("*.tmp*"))  # the atomic write left nothing behind
