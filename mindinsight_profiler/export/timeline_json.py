"""Several ranks on one timeline as Chrome-trace JSON (Perfetto, chrome://tracing, and our
own Kineto reader open it), when asked instead of the native protobuf (`perfetto.py`).

Each rank is a process: pid = its rank number, named "rank N (worker)" (`process_name`
metadata, sorted by rank), its tracks are threads (tid = the track's index in the rank,
named like "GPU 0 / stream 7"), times shifted onto the reference rank's clock. The
advisor's evidence ranges are `advisor` events on a thread of their own (tid `ADVISOR_TID`).
The events' JSON is built by `analysis.timeline.export.event_chunks`, a chunk at a time.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import IO

from mindinsight_profiler._version import __version__
from mindinsight_profiler.analysis.timeline.export import event_chunks
from mindinsight_profiler.export.perfetto import RankCounts, track_label
from mindinsight_profiler.export.ranks import TIMELINE_EXPORT_VERSION, MergedTimeline
from mindinsight_profiler.store.atomic import write_atomic

#: The advisor's thread in each rank's process (above any real track index).
ADVISOR_TID = 999_999


def _us(ns: int) -> str:
    """Exact decimal microseconds (a double would round epoch ns)."""
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def _meta(pid: int, tid: int | None, name: str, value: object) -> str:
    doc: dict[str, object] = {"ph": "M", "name": name, "pid": pid, "args": {"name": value}}
    if name.endswith("sort_index"):
        doc["args"] = {"sort_index": value}
    if tid is not None:
        doc["tid"] = tid
    return json.dumps(doc)


def _rank_lines(merged: MergedTimeline, i: int, counts: RankCounts) -> list[str]:
    """The rank's metadata and advisor events (its trace events are written in chunks)."""
    r = merged.ranks[i]
    pid = r.rank
    out = [_meta(pid, None, "process_name", r.label), _meta(pid, None, "process_sort_index", pid)]
    ev = r.trace.events
    rows = merged.rows(i)
    counts.slices = len(rows)
    for t, track in enumerate(r.trace.tracks):
        n = int((ev["track"][rows] == t).sum())
        if n:
            label = track_label(track)
            counts.tracks[label] = counts.tracks.get(label, 0) + n
            out.append(_meta(pid, t, "thread_name", label))
    notes = merged.annotations(i)
    counts.annotations = len(notes)
    if notes:
        out.append(_meta(pid, ADVISOR_TID, "thread_name", "advisor"))
    for a in notes:
        where = f'"pid":{pid},"tid":{ADVISOR_TID},"ts":{_us(a.start_ns)}'
        out.append(f'{{"ph":"X","cat":"advisor","name":{json.dumps(a.name)},{where},'
                   f'"dur":{_us(a.end_ns - a.start_ns)}}}')  # fmt: skip
    return out


def write_timeline_json(merged: MergedTimeline, path: str | Path) -> list[RankCounts]:
    """Write the merged timeline as Chrome-trace JSON to `path` (renamed into place)."""
    counts = [RankCounts(r.rank) for r in merged.ranks]
    write_atomic(Path(path), lambda f: _write(f, merged, counts), "w", shared=True)
    return counts


def _write(f: IO[str], merged: MergedTimeline, counts: list[RankCounts]) -> None:
    head = {
        "schemaVersion": 1,
        "exportVersion": TIMELINE_EXPORT_VERSION,
        "exporter": f"mindinsight_profiler {__version__}",
        "clockAlignment": {
            "method": merged.alignment.method,
            "matched": merged.alignment.matched,
            "offsets_ns": {
                str(r.rank): off
                for r, off in zip(merged.ranks, merged.alignment.offsets_ns, strict=True)
            },
        },
    }
    f.write(json.dumps(head)[:-1] + ',"traceEvents":[\n')
    first = True
    for i, r in enumerate(merged.ranks):
        off = merged.alignment.offsets_ns[i]
        head_lines = ",\n".join(_rank_lines(merged, i, counts[i]))
        chunks = event_chunks(r.trace, merged.rows(i), str(r.rank), off, (i + 1) << 40)
        for text in itertools.chain([head_lines], chunks):
            if text:
                f.write(("" if first else ",\n") + text)
                first = False
    f.write("\n]}\n")
