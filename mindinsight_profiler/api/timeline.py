"""Raw events of a time window as a DataFrame (`Run.timeline`)."""

from __future__ import annotations

import pandas as pd

from mindinsight_profiler.analysis.timeline.select import row_columns, window_rows
from mindinsight_profiler.model.trace import Trace


def events_in(
    trace: Trace,
    start_ns: int | None,
    end_ns: int | None,
    tracks: list[str] | None,
    min_duration_ns: int,
    limit: int,
) -> pd.DataFrame:
    """Events overlapping [start_ns, end_ns) on `tracks`, at least `min_duration_ns` long,
    sorted by start; more than `limit` raises ValueError (`analysis.timeline.select`)."""
    rows = window_rows(trace, start_ns, end_ns, tracks, min_duration_ns, limit=limit)
    return pd.DataFrame(row_columns(trace, rows))
