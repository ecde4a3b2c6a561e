"""`mindinsight report --lang zh` of real runs whose device is not known: the roofline
section says why in Chinese (the perf model's own `unavailable_zh`), with no English
sentence left in it, and the Markdown summary does not quote the English reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mindinsight_profiler.export.html import render_html
from mindinsight_profiler.export.markdown import render_markdown
from tests.conftest import shared
from tests.htmlreport import bundle_of, parse

#: four lowercase English words in a row: a sentence, not a name ("aten::mm fp32 gemm")
SENTENCE = re.compile(r"\b[a-z]{2,}(?:[ ,;:()]+[a-z]{2,}){3,}\b")

RUNS = {
    # the database names no chip: "the trace does not name its device"
    "ascend_pytorch/level1": "没有写明它的设备",
    # a CPU trace: "no device work in the trace (the operators ran on the host)"
    "torch_cpu/small": "算子在主机上运行",
}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_zh_report_explains_a_missing_device_in_chinese(run: str, tmp_path: Path) -> None:
    bundle = bundle_of(shared(run), tmp_path / "ws")
    model = bundle.report["perf_model"]
    roofline = parse(render_html(bundle, "zh")).text["roofline"]
    english = SENTENCE.findall(roofline)
    assert not english, f"English in the zh roofline section: {english}"
    assert model["unavailable"] and model["unavailable"] not in roofline
    assert RUNS[run] in model["unavailable_zh"] and model["unavailable_zh"] in roofline
    # the English report keeps the English reason
    assert model["unavailable"] in parse(render_html(bundle, "en")).text["roofline"]
    summary = render_markdown(bundle, "zh")
    assert SENTENCE.search(model["unavailable"])  # the check above would catch it
    assert model["unavailable"] not in summary
