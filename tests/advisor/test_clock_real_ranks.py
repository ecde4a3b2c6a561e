"""Clock alignment on a real two-rank DDP run (gloo, CPU; tests/advisor/planted_ranks.py)
whose rank 1 is rewritten as if its host clock ran 7.3 ms ahead: every timestamp of its
trace file moves, as another host's clock would move them.

Both processes ran on one host, so their true offset is zero and the planted skew is the
answer: `align_ranks` must find it from the real gloo all-reduces, whose host ranges
neither start together (rank 0 waits 30 ms for the slow rank each step) nor end together
(2-6 ms apart: the ends' median alone was 2.4 ms off), so only the bounds every blocking
call sets bracket it; and the untouched pair must come out at zero within the same
precision (wall clock, or the few tens of us the ends' median says when they agree).
"""

from __future__ import annotations

import json
from pathlib import Path

from mindinsight_profiler.analysis.cluster.clock import TOLERANCE_NS, align_ranks
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.model.trace import Trace

SKEW_US = 7_300.0
#: gloo's host ranges end when each rank's work is done, milliseconds apart; the bound set
#: by the rank that comes last to every call is within its shortest call (0.4-0.6 ms seen)
RECOVERED_NS = 2_000_000


def _trace(path: Path) -> Trace:
    return read_trace(path, "kineto", path.name.split(".")[0], None)


def _skewed(path: Path, out: Path, skew_us: float) -> Path:
    """`path` with every event's `ts` moved by `skew_us` (its own clock ahead)."""
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = e["ts"] + skew_us
    target = out / path.name
    target.write_text(json.dumps(doc))
    return target


def test_a_planted_host_clock_skew_is_found_from_real_gloo_all_reduces(
    planted_ranks: Path, tmp_path: Path
) -> None:
    rank0, rank1 = (next(planted_ranks.glob(f"rank{r}.*.pt.trace.json")) for r in (0, 1))
    as_recorded = align_ranks([_trace(rank0), _trace(rank1)])
    assert as_recorded.matched > 0  # the all-reduces paired
    assert abs(as_recorded.offsets_ns[1]) < RECOVERED_NS, as_recorded  # one host: zero
    skewed = align_ranks([_trace(rank0), _trace(_skewed(rank1, tmp_path, SKEW_US))])
    assert skewed.method == "collectives" and skewed.matched > 0
    found = skewed.offsets_ns[1]
    assert abs(found + SKEW_US * 1000) < RECOVERED_NS, (found, skewed)
    assert abs(found) > TOLERANCE_NS
