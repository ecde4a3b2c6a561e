"""Clock alignment on synthetic ranks with planted clock offsets: recovered within 5 us.

Each rank runs the same all-reduces; every call ends at one shared instant (plus a few us
of jitter) and starts after a different wait on each rank, and each rank's clock is off by
a planted amount. The offsets must come back from the ends, not the starts.
"""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.cluster.clock import (
    AGREE_NS,
    TOLERANCE_NS,
    align_calls,
    align_ends,
    align_ranks,
    collective_ends,
)
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    FLOW_COLUMNS,
    MEMORY_COLUMNS,
    Trace,
    Track,
    empty_columns,
)

T0 = 1_700_000_000_000_000_000
RECOVERED_NS = 5_000  # the stated tolerance: jitter is +-3 us


def rank_trace(
    clock_ns: int, calls: int, rng: np.random.Generator, kernel: str = "ncclKernel_AllReduce_RING"
) -> Trace:
    """Compute kernels and `calls` all-reduces (every 10 ms) on one stream, on a clock
    `clock_ns` ahead of the true time. Waits differ per rank (up to 4 ms)."""
    strings = StringTable()
    rows = []
    for k in range(calls):
        true_end = T0 + (k + 1) * 10_000_000
        end = true_end + int(rng.integers(-3000, 3001))
        start = end - 500_000 - int(rng.integers(0, 4_000_000))
        rows.append((start, end, f"{kernel}_LL_Sum_float"))
        rows.append((start - 900_000, start - 100_000, "volta_sgemm_128x64_nn"))
    ev = empty_columns(EVENT_COLUMNS, len(rows))
    for i, (start, end, name) in enumerate(rows):
        ev["start_ns"][i], ev["end_ns"][i] = start + clock_ns, end + clock_ns
        ev["name"][i], ev["kind"][i], ev["track"][i] = strings.intern(name), Kind.KERNEL, 0
    tracks = [Track("0", "7", "GPU 0", "stream 7", is_device=True)]
    return Trace(ev, empty_columns(MEMORY_COLUMNS, 0), empty_columns(FLOW_COLUMNS, 0), strings,
                 tracks)  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_offsets_are_recovered_from_the_ends(seed: int) -> None:
    rng = np.random.default_rng(seed)
    clocks = [0, 250_000, -1_300_000, 42_000_000]  # rank r's clock is ahead by clocks[r]
    traces = [rank_trace(c, 40, rng) for c in clocks]
    found = align_ranks(traces)
    assert found.method == "collectives" and found.matched == 3 * 40
    for r, clock in enumerate(clocks):
        assert abs(found.offsets_ns[r] - (clocks[0] - clock)) <= RECOVERED_NS, (r, found)
    # the starts would not do: they differ by the waits, up to 4 ms
    starts = [int(t.events["start_ns"][0]) for t in traces]
    assert any(abs(starts[r] - starts[0] + found.offsets_ns[r]) > RECOVERED_NS for r in (1, 2, 3))


def test_a_rank_with_a_call_more_and_a_late_outlier_still_aligns() -> None:
    rng = np.random.default_rng(7)
    a, b = rank_trace(0, 30, rng), rank_trace(-800_000, 31, rng)  # b recorded one call more
    ends = [collective_ends(a), collective_ends(b)]
    (key,) = ends[1]
    ends[1][key][:3] += 5_000_000  # three calls of b end 5 ms late (a descheduled host)
    found = align_ends(ends)
    assert found.matched == 30 and abs(found.offsets_ns[1] - 800_000) <= RECOVERED_NS


def test_clocks_that_already_agree_are_kept() -> None:
    rng = np.random.default_rng(3)
    traces = [rank_trace(c, 20, rng) for c in (0, TOLERANCE_NS // 2, -TOLERANCE_NS // 2)]
    found = align_ranks(traces)
    assert found.method == "wall_clock" and found.offsets_ns == [0, 0, 0] and found.matched == 40
    # mutation: twice the tolerance is skew, and is corrected
    traces[1] = rank_trace(2 * TOLERANCE_NS + 5000, 20, rng)
    assert align_ranks(traces).method == "collectives"


def test_ranks_without_collectives_keep_their_wall_clocks() -> None:
    rng = np.random.default_rng(4)
    traces = [rank_trace(c, 10, rng, kernel="void_elementwise") for c in (0, 3_000_000)]
    assert collective_ends(traces[0]) == {}
    found = align_ranks(traces)
    assert (found.offsets_ns, found.method, found.matched) == ([0, 0], "wall_clock", 0)
    assert align_ranks([]).offsets_ns == [] and align_ranks(traces[:1]).offsets_ns == [0]


def test_scattered_pairs_are_not_trusted() -> None:
    """Calls paired k-th to k-th whose ends scatter over milliseconds are not the same
    calls (ranks sampled at different steps): the wall clocks are kept."""
    rng = np.random.default_rng(5)
    ref = {"AllReduce|": np.cumsum(rng.integers(5_000_000, 9_000_000, 12))}
    other = {"AllReduce|": ref["AllReduce|"] + rng.integers(-50, 50, 12) * AGREE_NS}
    assert align_ends([ref, other]).method == "wall_clock"
    other["AllReduce|"] = ref["AllReduce|"] + 3 * AGREE_NS + rng.integers(-1000, 1000, 12)
    assert align_ends([ref, other]).offsets_ns[1] == pytest.approx(-3 * AGREE_NS, abs=1000)


def test_ranks_meet_through_a_rank_that_runs_both_groups() -> None:
    """Rank 2 shares no collective with rank 0 but one with rank 1 (pipeline stages)."""
    e = np.arange(1, 11, dtype=np.int64) * 10_000_000
    ends = [{"A|x": e}, {"A|x": e - 100_000, "B|y": e + 5}, {"B|y": e + 5 - 700_000}]
    found = align_ends(ends)
    assert found.offsets_ns == [0, 100_000, 800_000] and found.matched == 20


def test_keys_include_the_message_and_the_mindspore_operator() -> None:
    """A call's key is its collective and its message (`comm_msg`), or for a device-less
    MindSpore step trace its operator without the stream prefix."""
    rng = np.random.default_rng(6)
    t = rank_trace(0, 4, rng)
    ev = t.events
    comm = np.flatnonzero(t.names_matching(lambda s: s.startswith("nccl")))
    ev["comm_msg"][comm[:2]] = t.strings.intern('[1024, "float", 8]')
    assert {k: len(v) for k, v in collective_ends(t).items()} == {
        'AllReduce|[1024, "float", 8]': 2, "AllReduce|": 2,
    }  # fmt: skip
    ev["kind"][:], ev["comm_msg"][:] = Kind.OTHER, -1
    ev["name"][comm] = t.strings.intern("stream_36_0_AllReduce-op4542")
    assert {k: len(v) for k, v in collective_ends(t).items()} == {"AllReduce-op4542|": 4}


#: a real gloo run's all-reduces on one host (ms; tests/advisor/planted_ranks.py): rank 0's
#: host ranges wait ~30 ms for the slow rank 1, and their ends are 0.6-10.8 ms apart
GLOO_RANK0 = [(594.4, 625.0), (632.5, 670.5), (673.6, 706.96), (716.2, 746.5), (755.7, 789.3),
              (796.4, 841.5)]  # fmt: skip
GLOO_RANK1 = [(624.3, 625.6), (664.8, 665.7), (706.0, 706.84), (745.8, 750.5), (788.7, 789.3),
              (827.7, 830.6)]  # fmt: skip


def _gloo(calls: list[tuple[float, float]], shift_ms: float = 0.0) -> dict[str, np.ndarray]:
    return {"AllReduce|": ((np.asarray(calls) + shift_ms) * 1e6).astype(np.int64)}


def test_host_ranges_whose_ends_disagree_are_bracketed_by_the_calls_bounds() -> None:
    """Rule 3's fallback: no rank leaves a blocking call before all entered it. The ends'
    median is 2 ms off here; the bound the late rank sets is within 0.6 ms."""
    same_host = align_calls([_gloo(GLOO_RANK0), _gloo(GLOO_RANK1)])
    assert same_host.method == "wall_clock" and same_host.matched == 6  # zero is in bounds
    skewed = align_calls([_gloo(GLOO_RANK0), _gloo(GLOO_RANK1, 7.3)])
    assert skewed.method == "collectives"
    assert skewed.offsets_ns[1] == pytest.approx(-7.3e6, abs=0.7e6)
    # calls that cannot be the same (one call 100 ms later than any offset the others
    # allow: the bounds do not meet): not paired, the wall clock kept
    odd = [*GLOO_RANK1[:2], (806.0, 806.84), *GLOO_RANK1[3:]]
    apart = align_calls([_gloo(GLOO_RANK0), _gloo(odd)])
    assert apart.matched == 0 and apart.offsets_ns == [0, 0]
