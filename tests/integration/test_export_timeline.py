"""`mindinsight export-timeline` on real multi-rank runs, read back with Perfetto's protos.

The expected counts come from the model, not from the writer: per rank, the events of
each track that overlap the window, their names and their times plus the rank's offset;
the advisor annotations from the advice's own evidence. Runs: HTA's two-rank Kineto
traces, MindSpore's four-rank pipeline-parallel cluster run, and Ascend PyTorch's two
ranks (the one of the three whose advice has time ranges).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.export.perfetto import track_label
from mindinsight_profiler.export.ranks import MergedTimeline, merge
from mindinsight_profiler.export.timeline import gather_ranks
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.kinds import DEVICE_KINDS
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.perfetto_read import read_perfetto
from tests.tracegen import kernel, op, write_trace

HTA = "hta/trace_filter"
MS_CLUSTER = "mindspore_legacy/cluster_propose"
ASCEND = "ascend_pytorch/level1"
#: run -> ranks, and the tracks of each rank holding events (from the readers' tracks)
RUNS = {HTA: [0, 1], MS_CLUSTER: [0, 1, 2, 3], ASCEND: [0, 1]}


def model_events(merged: MergedTimeline, i: int) -> Counter[tuple[str, str, int, int]]:
    """(track, name, aligned start, aligned end) of rank i's events in the window."""
    r, off = merged.ranks[i], merged.alignment.offsets_ns[i]
    ev, names = r.trace.events, r.trace.strings
    out: Counter[tuple[str, str, int, int]] = Counter()
    for j in merged.rows(i).tolist():
        track = track_label(r.trace.tracks[int(ev["track"][j])])
        out[(track, names[int(ev["name"][j])], int(ev["start_ns"][j]) + off,
             int(ev["end_ns"][j]) + off)] += 1  # fmt: skip
    return out


def model_flows(merged: MergedTimeline, i: int) -> Counter[tuple[str, int, str, int]]:
    """(launch's track, its aligned start, device work's track, its aligned start) of rank
    i's launches whose both ends are in the window: an event loop over the model, not the
    exporter's numpy."""
    r, off = merged.ranks[i], merged.alignment.offsets_ns[i]
    ev = r.trace.events
    rows = set(merged.rows(i).tolist())
    out: Counter[tuple[str, int, str, int]] = Counter()
    for j in rows:
        c = int(ev["caller"][j])
        if int(ev["kind"][j]) in DEVICE_KINDS and c in rows:
            src, dst = (track_label(r.trace.tracks[int(ev["track"][k])]) for k in (c, j))
            out[(src, int(ev["start_ns"][c]) + off, dst, int(ev["start_ns"][j]) + off)] += 1
    return out


def export(path: Path, ws: Path, out: Path, *args: str) -> None:
    done = run_cli("export-timeline", path, "--workspace", ws, "-o", out, *args)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stderr


@pytest.mark.parametrize("run", list(RUNS))
def test_merged_perfetto_trace_reads_back_with_the_models_counts(
    run: str, workspace: Path, tmp_path: Path
) -> None:
    out = tmp_path / "merged.perfetto-trace"
    export(shared(run), workspace, out)
    found = discover(shared(run))[0]
    ranks = gather_ranks(found, None, Workspace(workspace))
    merged = merge(ranks)
    rb = read_perfetto(out)
    assert [r.rank for r in ranks] == RUNS[run] and len(rb.processes) == len(ranks)
    for i, r in enumerate(ranks):
        proc = rb.process_of(f"rank {r.rank} ({r.worker})")
        tracks = rb.children(proc)
        got: Counter[tuple[str, str, int, int]] = Counter()
        notes = []
        for uuid, name in tracks.items():
            for s in rb.slices.get(uuid, []):
                if name.startswith("advisor"):
                    notes.append((s.name, s.start_ns, s.end_ns))
                else:
                    got[(re.sub(r" \(overlap \d+\)$", "", name), s.name, s.start_ns, s.end_ns)] += 1
        want = model_events(merged, i)
        assert got == want  # every event once, on its track, named, at its aligned time
        model_tracks = {k[0] for k in want}
        assert {re.sub(r" \(overlap \d+\)$", "", n) for n in tracks.values()
                if not n.startswith("advisor")} == model_tracks  # fmt: skip
        advice = advise_file(found.select(r.worker), found, Workspace(workspace))
        off = merged.alignment.offsets_ns[i]
        ranges = sorted((f"{f.id}: {e.label}", e.start_ns + off, e.end_ns + off)
                        for f in advice.findings for e in f.evidence
                        if e.start_ns is not None and e.end_ns is not None)  # fmt: skip
        assert sorted(notes) == ranges
        base = {re.sub(r" \(overlap \d+\)$", "", n) for n in tracks.values()}
        named = {u: re.sub(r" \(overlap \d+\)$", "", n) for u, n in tracks.items()}
        flows = Counter((named[st], sts, named[rb.flow_ends[f][0]], rb.flow_ends[f][1])
                        for f, (st, sts) in rb.flow_starts.items() if st in named)  # fmt: skip
        assert base and flows == model_flows(merged, i)  # every launch arrow, both ends
        if run == ASCEND:
            assert len(notes) >= 10  # idle gaps, online compiles, blocking syncs
        print(f"{run} rank {r.rank}: {sum(got.values())} slices on {len(model_tracks)} tracks "
              f"({len(tracks)} with lanes), {len(notes)} annotations, "
              f"{sum(flows.values())} launch flows")  # fmt: skip
    print(f"{run}: {out.stat().st_size:,} bytes, clocks {merged.alignment}")


def test_a_window_and_a_rank_selection_cut_the_hta_run(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "cut.perfetto-trace"
    export(shared(HTA), workspace, out, "--ranks", "1", "--window", "100:250.5")
    found = discover(shared(HTA))[0]
    ranks = gather_ranks(found, [1], Workspace(workspace), advice=False)
    merged = merge(ranks, (100_000_000, 250_500_000))
    rb = read_perfetto(out)
    assert list(rb.processes.values()) == ["rank 1 (sampled_rank-1)"]
    got = Counter(s.name for slices in rb.slices.values() for s in slices)
    want = model_events(merged, 0)
    assert got == Counter(k[1] for k in want) and 0 < sum(got.values()) < len(ranks[0].trace)
    origin = merged.origin_ns
    assert all(s.end_ns > origin + 100_000_000 or s.start_ns == s.end_ns
               for slices in rb.slices.values() for s in slices)  # fmt: skip
    assert all(s.start_ns < origin + 250_500_000 for v in rb.slices.values() for s in v)


def test_chrome_json_loads_with_json_and_our_kineto_reader(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "merged.json"
    export(shared(ASCEND), workspace, out, "--format", "json")
    doc = json.loads(out.read_text())
    procs = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e.get("name") == "process_name"}  # fmt: skip
    assert procs == {0: "rank 0 (rank0)", 1: "rank 1 (rank1)"}
    ranks = gather_ranks(discover(shared(ASCEND))[0], None, Workspace(workspace))
    events = sum(len(r.trace) for r in ranks)
    notes = sum(len(r.annotations) for r in ranks)
    slices = [e for e in doc["traceEvents"] if e["ph"] in ("X", "i")]
    assert len(slices) == events + notes and notes > 0
    back = read_kineto(out)
    assert len(back) == events + notes
    assert sorted({t.pid for t in back.tracks}) == ["0", "1"]


def test_cli_errors_exit_2_naming_the_problem(workspace: Path, tmp_path: Path) -> None:
    path = shared(HTA)
    cases = [
        (("--ranks", "7"), "unknown rank 7 (this run has 0, 1)"),
        (("--ranks", "0,one"), "'one' is not a rank number"),
        (("--window", "9000:9001"), "holds no events"),
        (("--window", "5:2"), "is empty"),
        (("--window", "soon"), "is not t0:t1"),
    ]
    for args, message in cases:
        done = run_cli("export-timeline", path, "--workspace", workspace, "-o",
                       tmp_path / "x.pftrace", *args)  # fmt: skip
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and message in lines[0], lines
    assert not list(tmp_path.glob("*.pftrace*")) and not list(tmp_path.glob(".x*"))  # none written
    done = run_cli("export-timeline", tmp_path / "nothing", "--workspace", workspace)
    assert done.returncode == 2


def test_a_run_of_one_worker_is_one_process(workspace: Path, tmp_path: Path) -> None:
    trace = shared("torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json")
    out = tmp_path / "one.perfetto-trace"
    export(trace, workspace, out, "--no-advice")
    rb = read_perfetto(out)
    assert len(rb.processes) == 1 and not any(n.startswith("advisor")
                                              for _, n in rb.tracks.values())  # fmt: skip
    # a file to share: the mode of any new file (the umask's), not a temporary file's 0600
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask, oct(out.stat().st_mode)


def test_cli_aligns_a_planted_clock_offset(workspace: Path, tmp_path: Path) -> None:
    """Two ranks of one job whose all-reduces end together, rank 1's clock 3 ms ahead:
    the export shifts rank 1 by -3 ms (within 5 us), so its calls end with rank 0's."""
    job = tmp_path / "job"
    job.mkdir()
    rng = np.random.default_rng(1)
    for rank, clock_us in ((0, 0.0), (1, 3000.0)):
        events = []
        for k in range(20):
            end = 1_000_000.0 + 10_000 * (k + 1) + clock_us + float(rng.integers(-2, 3))
            wait = float(rng.integers(100, 4000))
            start = end - 300 - wait
            events.append(op("nccl:all_reduce", start - 20, 10, cat="user_annotation"))
            events.append(kernel("ncclKernel_AllReduce_RING_LL_Sum_float", start, end - start,
                                 corr=k + 1))  # fmt: skip
            events.append(kernel("volta_sgemm_128x64_nn", start - 900, 500, corr=1000 + k))
        info = {"rank": rank, "world_size": 2, "backend": "nccl"}
        write_trace(job / f"rank{rank}.pt.trace.json", events, distributedInfo=info)
    out = tmp_path / "job.json"
    export(job, workspace, out, "--format", "json", "--no-advice")
    offsets = json.loads(out.read_text())["clockAlignment"]
    assert offsets["method"] == "collectives" and offsets["matched"] == 20
    assert abs(offsets["offsets_ns"]["1"] + 3_000_000) <= 5_000 and offsets["offsets_ns"]["0"] == 0
    back = read_kineto(out)
    ev = back.events
    comm = back.names_matching(lambda s: s.startswith("ncclKernel"))
    ends = {pid: np.sort(ev["end_ns"][comm & np.isin(ev["track"], [i for i, t in
            enumerate(back.tracks) if t.pid == pid])]) for pid in ("0", "1")}  # fmt: skip
    assert np.abs(ends["0"] - ends["1"]).max() <= 10_000  # 2 us jitter each, 5 us estimate
