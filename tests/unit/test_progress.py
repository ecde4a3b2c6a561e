"""The progress bar stays silent for quick work and draws a bar for slow work."""

from __future__ import annotations

import io

import pytest

from mindinsight_profiler.cli import progress


def test_draws_after_half_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    bar = progress.ProgressBar("reading x", stream=out, width=10)
    bar(10, 100)
    assert out.getvalue() == ""  # quick work: nothing
    now[0] += 1.0
    bar(50, 100)
    assert "reading x [#####-----]  50%" in out.getvalue()
    bar.close()
    assert out.getvalue().endswith("\r")
