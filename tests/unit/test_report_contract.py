"""The typed report contract (`analysis.schema`) holds for every real input, byte for byte.

For each worker of every run under ../shared/data the report is built as the pipeline builds
it (`build_report`, with the worker's DataLoader probe file when there is one), converted to
`Report` (what `pipeline.analyse_file` returns), stored and read back as the cache does
(`encode_report`/`decode_report`), and printed as the CLI prints it: every text must be the
analyses' own, byte for byte. `torch_cpu/large` (469 MB of JSON) is left out unless
MI_TEST_LARGE=1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from mindinsight_profiler.analysis.report import build_report, grouped_tables
from mindinsight_profiler.analysis.schema import (
    AnalyseOutput,
    Report,
    decode_report,
    encode_report,
    report_builtins,
    report_for,
    to_analyse_output,
    to_report,
)
from mindinsight_profiler.analysis.schema.steps import Breakdown
from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.discovery import TraceFile, discover
from mindinsight_profiler.pipeline.reports import analyse_file
from mindinsight_profiler.store.atomic import json_default
from tests.conftest import SHARED_DATA, shared

LARGE_ENV = "MI_TEST_LARGE"


def _inputs() -> list[Any]:
    """One parameter per worker/span of every run under the shared data folder."""
    if not SHARED_DATA.is_dir():
        reason = f"real data not available: {SHARED_DATA}"
        return [pytest.param(None, id="no-data", marks=pytest.mark.skip(reason=reason))]
    params = []
    for run in discover(SHARED_DATA):
        for file in run.files:
            rel = file.path.relative_to(SHARED_DATA).as_posix()
            marks: list[Any] = []
            if rel.startswith("torch_cpu/large/") and not os.environ.get(LARGE_ENV):
                marks.append(pytest.mark.skip(reason=f"469 MB input: set {LARGE_ENV}=1"))
            params.append(pytest.param(file, id=f"{rel}:{file.worker}.{file.span}", marks=marks))
    return params


def _text(d: Any) -> str:
    """The report as the CLI prints it and the cache writes it."""
    return json.dumps(d, separators=(",", ":"), default=json_default)


def _built(file: TraceFile) -> dict[str, Any]:
    """The analyses' plain report, with the probe file `pipeline.reports` would pass."""
    probe_file = file.path.parent / f"{file.worker}.dataloader_probe.json"
    probe = json.loads(probe_file.read_text()) if probe_file.is_file() else None
    return build_report(read_trace(file.path, file.format, file.worker), probe=probe)


@pytest.mark.parametrize("file", _inputs())
def test_report_round_trips_byte_for_byte(file: TraceFile) -> None:
    report = _built(file)
    typed = to_report(report)
    assert isinstance(typed, Report)
    assert _text(report_builtins(typed)) == _text(report)
    stored = decode_report(encode_report(typed))  # the cache's report.json, read back typed
    assert stored == typed and _text(report_builtins(stored)) == _text(report)
    # What `mindinsight analyse --format json` prints: the report, then worker and span.
    cli = report_for(stored, file.worker, file.span)
    assert _text(report_builtins(to_analyse_output(cli))) == _text(dict(report, **cli))


def _torch_small(name: str) -> Path:
    return shared(f"torch_cpu/small/{name}")


@pytest.mark.parametrize(
    "rel",
    [
        "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json",
        "kineto/tb_plugin_expected/gpu_metrics_input.json",
    ],
)
def test_grouped_tables_round_trip(rel: str) -> None:
    """`--group-by name_input|name_stack` and `--kernel-group-by name_op_launch` columns."""
    trace = read_trace(shared(rel))
    report = build_report(trace)
    for by in ("name_input", "name_stack"):
        ops, kernels = grouped_tables(trace, by, "name_op_launch")
        cli = dict(report, worker="w", span="", operators=ops, kernels=kernels)
        assert _text(report_builtins(to_analyse_output(cli))) == _text(cli)


def test_probe_fields_round_trip() -> None:
    """A DataLoader probe adds `probe_average_us`, the loader's config and its queue."""
    trace = read_trace(_torch_small("cnn_nw2_active5.1795320558072984922.pt.trace.json"))
    probe = {
        "config": {"num_workers": 2, "prefetch_factor": 2, "pin_memory": False, "type": "X"},
        "columns": ["step", "wait_ns", "ready_batches"],
        "rows": [[2, 5_000_000, 0], [3, 10, 4], [4, 20, 1]],
    }
    report = build_report(trace, probe=probe)
    pipeline = to_report(report).data_pipeline
    assert pipeline is not None and pipeline.workers is not None
    assert pipeline.workers.config == probe["config"]
    assert pipeline.data_wait is not None and isinstance(pipeline.data_wait.probe_average_us, float)
    assert [q.name for q in pipeline.queues] == ["loader_queue"]
    assert _text(report_builtins(to_report(report))) == _text(report)


def _small_report() -> dict[str, Any]:
    report, _ = analyse_file(_torch_small("cnn_nw0_active5.1795320550475422677.pt.trace.json"))
    return report_builtins(report)


def test_unknown_key_is_rejected() -> None:
    report = _small_report()
    with pytest.raises(msgspec.ValidationError, match="unknown field `surprise`"):
        to_report(dict(report, surprise=1))
    row = dict(report["operators"][0], surprise=1)
    with pytest.raises(msgspec.ValidationError, match=r"\$\.operators\[0\]"):
        to_report(dict(report, operators=[row]))


def test_missing_key_is_rejected() -> None:
    report = _small_report()
    del report["kernels"]
    with pytest.raises(msgspec.ValidationError, match="missing required field `kernels`"):
        to_report(report)
    steps = {k: v for k, v in report["steps"].items() if k != "average_us"}
    with pytest.raises(msgspec.ValidationError, match="average_us"):
        to_report(dict(_small_report(), steps=steps))


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("steps", "count"), "5"),  # a string for an int
        (("steps", "count"), 5.0),  # a float for an int
        (("steps", "from_profiler_steps"), 1),  # an int for a bool
        (("breakdown_us", "kernel"), None),  # null where a number is required
        (("device_type",), "tpu"),  # outside the declared values
    ],
)
def test_wrong_type_is_rejected(path: tuple[str, ...], value: Any) -> None:
    report = _small_report()
    target = report
    for key in path[:-1]:
        target[key] = dict(target[key])
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(msgspec.ValidationError):
        to_report(report)


def test_numpy_scalars_are_plain_numbers() -> None:
    """A fresh report may hold NumPy scalars; they convert as the cache writes them."""
    report = _small_report()
    steps = dict(report["steps"], count=np.int64(5), average_us=np.float64(2.5))
    typed = to_report(dict(report, steps=steps))
    assert type(typed.steps.count) is int and type(typed.steps.average_us) is float
    assert _text(report_builtins(typed)) == _text(dict(report, steps=steps))


def test_breakdown_fields_are_the_categories() -> None:
    assert Breakdown.__struct_fields__ == CATEGORIES


def test_analyse_output_is_the_report_then_worker_and_span() -> None:
    assert AnalyseOutput.__struct_fields__ == (*Report.__struct_fields__, "worker", "span")
