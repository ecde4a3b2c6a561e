"""The plain-text summary (to be written: issue 20)."""

from __future__ import annotations

from mindinsight_profiler.export.bundle import ReportBundle


def render_markdown(bundle: ReportBundle, lang: str = "en") -> str:
    """Headline figures, top findings and where to look, as Markdown."""
    raise NotImplementedError("Markdown summary")
