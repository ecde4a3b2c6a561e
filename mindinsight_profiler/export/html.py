"""The self-contained HTML report (to be written: issue 20)."""

from __future__ import annotations

from mindinsight_profiler.export.bundle import ReportBundle


def render_html(bundle: ReportBundle, lang: str = "en") -> str:
    """One HTML document with every section, its charts inline (no external asset)."""
    raise NotImplementedError("HTML report")
