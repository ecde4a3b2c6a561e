"""Evidence labels exist in English and Chinese with the same placeholders, and every
evidence item of real advice carries both."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from mindinsight_profiler.advisor.labels import TEMPLATES, label
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_both_languages_take_the_same_placeholders(key: str) -> None:
    en, zh = TEMPLATES[key]
    assert fields(en) == {f.removesuffix("_zh") for f in fields(zh)}, key
    assert (zh.strip() and zh != en) or not re.search(r"[a-z]{3,}", re.sub(r"\{[^}]*\}", "", en))


def test_label_fills_both() -> None:
    got = label("device_idle", us=69076.4, step="5")
    assert got == {
        "label": "device idle 69,076 us in step 5",
        "label_zh": "迭代 5 中设备空闲 69,076 us",
    }


@pytest.mark.parametrize(
    "folder",
    ["kineto/resnet50_num_workers_0", "mindspore_legacy/run_2", "ascend_pytorch/level1",
     "mindspore_legacy/cluster_propose"],
)  # fmt: skip
def test_real_advice_has_chinese_evidence(folder: str, tmp_path: Path) -> None:
    run = discover(shared(folder))[0]
    advice = advise_file(run.select(), run, Workspace(tmp_path))
    items = [e for f in advice.findings for e in f.evidence]
    assert items, folder
    for e in items:
        assert e.label_zh, e
