"""Per-component device memory of Ascend exports (`npu_module_mem`), text and database.

Expected figures are read here with `csv` (MB, as the file writes them) and SQL (bytes),
independently of the readers. The two level-1 exports are different runs of the same job,
and CANN reserves the same sizes per component in both, so their peaks are equal too.
"""

from __future__ import annotations

import csv
import sqlite3
from collections import defaultdict

from mindinsight_profiler.analysis.memory.npu_modules import npu_module_memory
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from tests.conftest import shared

TEXT = "ascend_pytorch/level1/rank0_ascend_pt"
DB = "ascend_pytorch_db/level1/rank0_ascend_pt"
MB = 1 << 20


def _peaks(rows: list[dict]) -> dict[str, int]:
    return {r["component"]: r["peak_reserved_bytes"] for r in rows}


def test_text_export_equals_npu_module_mem_csv() -> None:
    path = shared(TEXT) / "ASCEND_PROFILER_OUTPUT" / "npu_module_mem.csv"
    samples: dict[str, list[float]] = defaultdict(list)
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            samples[row["Component"]].append(float(row["Total Reserved(MB)"]))
    expected = {c: round(max(v) * MB) for c, v in samples.items() if max(v) > 0}
    rows = npu_module_memory(read_ascend_pt(shared(TEXT)))
    assert rows is not None
    assert _peaks(rows) == expected
    assert [r["component"] for r in rows][:2] == ["APP", "HCCL"]  # largest first
    assert all(r["samples"] == len(samples[r["component"]]) for r in rows)
    assert {r["device"] for r in rows} == {"NPU:0"}


def test_db_export_equals_npu_module_mem_table() -> None:
    path = shared(DB) / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    sql = """SELECT m.name, MAX(n.totalReserved) FROM NPU_MODULE_MEM n
             JOIN ENUM_MODULE m ON m.id = n.moduleId GROUP BY m.name"""
    expected = {name: int(peak) for name, peak in db.execute(sql) if peak > 0}
    rows = npu_module_memory(read_ascend_pt(shared(DB)))
    assert rows is not None and _peaks(rows) == expected
    assert _peaks(rows) == _peaks(npu_module_memory(read_ascend_pt(shared(TEXT))) or [])


def test_report_memory_section_carries_the_components() -> None:
    memory = build_report(read_ascend_pt(shared(TEXT)))["memory"]
    assert memory is not None and memory["npu_modules"][0]["component"] == "APP"
