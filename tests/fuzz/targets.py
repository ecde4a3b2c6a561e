"""What is fuzzed: small real inputs of each family, and the seeded plan of each case.

A case is (target, index); its mutation class cycles through `mutate.CLASSES` with the
index, and everything else (which file, where, what value) comes from a `random.Random`
seeded with `MI_FUZZ_SEED`, the target and the index, so a failing case is reproduced by
its id alone (`pytest tests/fuzz -k ascend_pt-17`).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import SHARED_DATA
from tests.fuzz import mutate

#: Seed of the whole run; the default keeps CI deterministic.
SEED = os.environ.get("MI_FUZZ_SEED", "mindinsight-fuzz-1")
#: In-process cases of the default run; `MI_FUZZ_CASES=5000` for a long local run.
CASES = int(os.environ.get("MI_FUZZ_CASES", "330"))
#: Cases also run through the real CLI (a subprocess each: slower).
CLI_CASES = int(os.environ.get("MI_FUZZ_CLI_CASES", "24"))

_ASCEND_OUT = "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"


@dataclass(frozen=True)
class Target:
    """One real input; `files` are the mutable files (the events file first)."""

    name: str
    fmt: str
    source: str  # under ../shared/data
    entry: str  # what is read, relative to the case folder
    files: tuple[str, ...]
    share: float  # of the cases
    worker: str = ""


TARGETS = (
    Target(
        "kineto_gpu",
        "kineto",
        "hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
        "worker0.1.pt.trace.json",
        ("worker0.1.pt.trace.json",),
        0.18,
    ),
    Target(
        "kineto_cpu",
        "kineto",
        "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json",
        "worker0.2.pt.trace.json",
        ("worker0.2.pt.trace.json",),
        0.17,
    ),
    Target(
        "ascend_pt",
        "ascend_pt",
        "ascend_pytorch/level1/rank0_ascend_pt",
        "rank0_ascend_pt",
        (
            *(
                f"{_ASCEND_OUT}/{name}"
                for name in (
                    "trace_view.json",
                    "kernel_details.csv",
                    "step_trace_time.csv",
                    "op_statistic.csv",
                    "memory_record.csv",
                    "operator_memory.csv",
                    "npu_module_mem.csv",
                    "api_statistic.csv",
                    "communication.json",
                    "communication_matrix.json",
                )
            ),
            "rank0_ascend_pt/profiler_info_0.json",
            "rank0_ascend_pt/profiler_metadata.json",
        ),
        0.32,
    ),
    Target(
        "mindspore_legacy",
        "mindspore_legacy",
        "mindspore_legacy/run_2/normal_run/profiler",
        "profiler",
        tuple(
            f"profiler/{name}"
            for name in (
                "ascend_timeline_display_1.json",
                "step_trace_raw_1_detail_time.csv",
                "step_trace_point_info.json",
                "aicore_intermediate_1_detail.csv",
                "aicore_intermediate_1_type.csv",
                "framework_raw_1.csv",
                "aicpu_intermediate_1.csv",
                "minddata_pipeline_raw_1.csv",
                "pipeline_profiling_1.json",
                "minddata_cpu_utilization_1.json",
                "device_queue_profiling_1.txt",
                "dataset_iterator_profiling_1.txt",
                "minddata_aicpu_1.txt",
                "ascend_cluster_analyse_data-parallel_1_1_1.csv",
            )
        ),
        0.23,
        "rank1",
    ),
    Target(
        "mindspore2",
        "mindspore2",
        "mindspore_cpu/legacy_pynative_mdprofiler",
        "run/vm_23709_20261122041728335_ascend_ms",
        tuple(
            f"run/{name}"
            for name in (
                "vm_23709_20261122041728335_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json",
                "vm_23709_20261122041728335_ascend_ms/FRAMEWORK/cpu_op_detail_info_0.csv",
                "vm_23709_20261122041728335_ascend_ms/FRAMEWORK/cpu_op_execute_timestamp_0.txt",
                "minddata_profiling/dataset_iterator_profiling_0.txt",
                "minddata_profiling/minddata_cpu_utilization_0.json",
                "minddata_profiling/pipeline_profiling_0.json",
            )
        ),
        0.1,
    ),
)
TARGET_BY_NAME = {t.name: t for t in TARGETS}

#: Events kept from the CPU trace: the first ones in time (a real trace, cut small).
KINETO_CPU_EVENTS = 1500


@dataclass(frozen=True)
class Case:
    target: Target
    index: int

    @property
    def id(self) -> str:
        return f"{self.target.name}-{self.index}"

    def rng(self) -> random.Random:
        return random.Random(f"{SEED}/{self.target.name}/{self.index}")


def cases(total: int, first: int = 0) -> list[Case]:
    """`total` cases shared out among the targets, indices from `first`."""
    out = []
    for t in TARGETS:
        n = max(1, round(total * t.share))
        out += [Case(t, first + i) for i in range(n)]
    return out


def cli_cases(total: int) -> list[Case]:
    """Cases for the CLI: the targets in turn, indices beyond the in-process ones."""
    return [Case(TARGETS[k % len(TARGETS)], 1_000_000 + k) for k in range(total)]


def _trim_kineto(doc: dict, keep: int) -> dict:
    """The metadata events and the `keep` earliest other events of a trace."""
    events = doc["traceEvents"]
    timed = sorted(float(e["ts"]) for e in events if e.get("ph") != "M" and "ts" in e)
    cutoff = timed[min(keep, len(timed)) - 1]
    doc["traceEvents"] = [
        e for e in events if e.get("ph") == "M" or float(e.get("ts", 0)) <= cutoff
    ]
    return doc


def prepare_base(target: Target, root: Path) -> Path:
    """A writable copy of the target's real input under `root / target.name`."""
    src = SHARED_DATA / target.source
    base = root / target.name
    base.mkdir(parents=True)
    if target.name == "kineto_gpu":
        (base / target.entry).write_bytes(gzip.decompress(src.read_bytes()))
    elif target.name == "kineto_cpu":
        doc = _trim_kineto(json.loads(src.read_bytes()), KINETO_CPU_EVENTS)
        (base / target.entry).write_text(json.dumps(doc))
    else:
        top = base / target.entry.split("/")[0]
        for file in sorted(src.rglob("*")):
            if file.is_file():
                dest = top / file.relative_to(src)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(file.read_bytes())
    return base


@dataclass(frozen=True)
class CaseInput:
    """A case made on disk: its folder, what to read, which file changed and how."""

    folder: Path
    entry: Path
    file: str
    mutant: mutate.Mutant


def pick(case: Case, base: Path) -> tuple[str, str, random.Random]:
    """(file, mutation class, the rng for the mutation) of a case."""
    rng = case.rng()
    cls = mutate.CLASSES[case.index % len(mutate.CLASSES)]
    files = case.target.files
    file = files[0] if cls in mutate.EVENT_ONLY or rng.random() < 0.4 else rng.choice(files)
    return file, cls, rng


def make_case(case: Case, base: Path, dest: Path) -> CaseInput:
    """The base input hard-linked into `dest` with one file replaced by its mutant."""
    file, cls, rng = pick(case, base)
    mutant = mutate.mutate((base / file).read_bytes(), file, cls, rng)
    for src in sorted(base.rglob("*")):
        if src.is_file():
            out = dest / src.relative_to(base)
            out.parent.mkdir(parents=True, exist_ok=True)
            os.link(src, out)
    target_file = dest / file
    target_file.unlink()  # never write through the link into the base
    target_file.write_bytes(mutant.data)
    return CaseInput(dest, dest / case.target.entry, file, mutant)


def remove_case(made: CaseInput) -> None:
    shutil.rmtree(made.folder, ignore_errors=True)
