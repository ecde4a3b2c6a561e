"""Every explanation of the performance model exists in English and Simplified Chinese, with
the same names and figures in both (`Said`): the zh dashboard and the zh report show the
Chinese one, so a figure or name missing from it would be a different statement."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.perf.calls import Unknown
from mindinsight_profiler.analysis.perf.devices import Observed, Said, match_device, spec_by_name
from mindinsight_profiler.analysis.perf.roofline import device_answer, find_device
from mindinsight_profiler.analysis.perf.section import _unavailable

PERF = Path(__file__).parents[2] / "mindinsight_profiler/analysis/perf"
CJK = re.compile(r"[\u4e00-\u9fff]")
#: English words of 3+ letters that are not names: a zh text holding one has English left
WORDS = re.compile(r"\b[a-z]{3,}\b")
#: a zh text may keep these: trace is the project's zh term; flags and dtypes are names
KEPT = {"trace", "device", "spec", "record", "shapes", "true"}


def tokens(text: str) -> list[str]:
    """The names and figures of a text: quoted names, numbers, and capitalised words (an
    English plural of an abbreviation, "SMs", is the same name as the Chinese "SM")."""
    found = re.findall(r"(?<!\w)'[^']*'(?!\w)|\d+(?:\.\d+)?%?|\b[A-Z][\w-]*", text)
    return sorted(re.sub(r"(?<=[A-Z])s$", "", t) for t in found)


def same_parts(said: Said) -> None:
    assert said.en and said.zh and said.en != said.zh
    assert CJK.search(said.zh) and not CJK.search(said.en), said
    assert tokens(said.en) == tokens(said.zh), (tokens(said.en), tokens(said.zh))
    left = [w for w in WORDS.findall(said.zh) if w not in KEPT]
    assert not left, f"English left in {said.zh!r}: {left}"


def figures(text: str) -> list[str]:
    return sorted(re.findall(r"\d+(?:\.\d+)?", text))


@pytest.mark.parametrize(
    ("obs", "en"),
    [
        (Observed("NVIDIA L40", "nvidia", "9.0", 132, 79.1), "close names: L4, L40S"),
        (Observed("NVIDIA H20", "nvidia", "9.0", 132, 79.1), "not in the device table"),
        (Observed("NVIDIA H100"), "H100 SXM 80GB, H100 PCIe 80GB"),
        (Observed("NVIDIA H100 NVL", "nvidia", "9.0", 132, 87.5), "form NVL, not SXM"),
        (Observed("Tesla V100-SXM3-32GB", "nvidia", "7.0", 80, 31.7), "different figures"),
        (Observed("", "nvidia", "8.0", 108, 79.2), "with different"),
        (Observed("", "nvidia", "8.0", 108, 39.6), "same per-device figures"),
        (Observed("AMD Radeon Graphics", "amd", "11.0", 48, 24.0), "no entry fits"),
        (Observed(None, "nvidia", "8.0", None, 39.6), "too little to tell"),
        (Observed("Ascend910B"), "is Ascend"),
    ],
)
def test_each_match_reason_is_said_in_both_languages(obs: Observed, en: str) -> None:
    m = match_device(obs)
    assert en in m.reason  # the case the row plants
    same_parts(m.said)
    assert figures(m.said.en) == figures(m.said.zh)


def test_a_close_name_list_is_the_same_in_chinese() -> None:
    m = match_device(Observed("NVIDIA L40", "nvidia", "9.0", 132, 79.1))
    assert "'NVIDIA L40'" in m.said.zh and "L4, L40S" in m.said.zh and "相近" in m.said.zh


def test_a_mig_slice_warns_in_both_languages_with_the_same_figures() -> None:
    m = match_device(Observed("NVIDIA A100-SXM4-40GB", "nvidia", "8.0", 14, 4.75))
    assert m.spec is not None and len(m.warnings_said) == 1
    warning = m.warnings_said[0]
    assert "14 SMs, not 108" in warning.en and "4.8 GiB of memory, not about 40 GB" in warning.en
    assert "14 个 SM，而非 108 个" in warning.zh and "4.8 GiB" in warning.zh and "MIG" in warning.zh
    same_parts(warning)
    assert figures(warning.en) == figures(warning.zh)
    answer = device_answer(find_device({"device_properties": [_props(14, 4.75)]}, None, False))
    assert answer["warnings"] == [warning.en] and answer["warnings_zh"] == [warning.zh]


def _props(sms: int, gib: float) -> dict[str, object]:
    return {
        "id": 0, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, "computeMinor": 0,
        "numSms": sms, "totalGlobalMem": int(gib * 2**30), "warpSize": 32,
    }  # fmt: skip


def test_find_device_reasons_are_said_in_both_languages() -> None:
    host = find_device({"device_properties": [_props(108, 39.6)]}, None, on_host=True)
    assert "ran on the host" in host.said.en and "主机" in host.said.zh
    unnamed = find_device({"device_type": "npu"}, None, on_host=False)
    assert "does not name its device" in unnamed.said.en and "没有写明" in unnamed.said.zh
    user = find_device({}, spec_by_name("H100 SXM 80GB"), on_host=False)
    assert user.how == "user" and "--device-spec" in user.said.zh
    differ = find_device(
        {"device_properties": [_props(108, 39.6), {**_props(108, 79.2), "id": 1,
                                                   "name": "NVIDIA A100-SXM4-80GB"}]},
        None, on_host=False,
    )  # fmt: skip
    assert "its devices differ" in differ.said.en and "各不相同" in differ.said.zh
    unknown = find_device({"device_name": "Ascend999Z"}, None, on_host=False)
    assert "'Ascend999Z'" in unknown.said.zh and unknown.said.zh.endswith(
        "请用 --device-spec 指定设备"
    )
    for device in (host, unnamed, user, differ, unknown):
        same_parts(device.said)
        assert figures(device.said.en) == figures(device.said.zh)
        answer = device_answer(device)
        assert answer["reason"] == device.said.en and answer["reason_zh"] == device.said.zh


def test_unavailable_is_said_in_both_languages() -> None:
    device = find_device({}, spec_by_name("H100 SXM 80GB"), on_host=False)
    none = _unavailable(device, [])
    assert none is not None and "record_shapes=True" in none.en and "record_shapes=True" in none.zh
    no_peak = _unavailable(device, [{"roof_tflops": None}])
    assert no_peak is not None and device.label and no_peak.zh.startswith(device.label)
    for said in (none, no_peak):
        same_parts(said)
    assert _unavailable(device, [{"roof_tflops": 1.0}]) is None
    host = find_device({}, None, on_host=True)
    assert _unavailable(host, [{"roof_tflops": None}]) == host.said


# ------------------------------------------------------------ operators the model cannot count


def _unknown_calls() -> list[tuple[str, ast.Call]]:
    """Every `Unknown(...)` the perf model builds, with its file."""
    out = []
    for path in sorted(PERF.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Unknown":
                out.append((path.name, node))
    return out


def _parts(node: ast.expr) -> tuple[list[str], str]:
    """The expressions an (f-)string formats, and its literal text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [], node.value
    assert isinstance(node, ast.JoinedStr), ast.dump(node)
    fields = sorted(ast.unparse(v.value) for v in node.values if isinstance(v, ast.FormattedValue))
    text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return fields, text


def test_every_unknown_reason_is_written_in_both_languages_with_the_same_parts() -> None:
    calls = _unknown_calls()
    assert len(calls) >= 60  # every formula module's reasons, not a file the glob missed
    for where, call in calls:
        assert len(call.args) == 2, f"{where}:{call.lineno}: no Chinese reason"
        (en_fields, en), (zh_fields, zh) = (_parts(a) for a in call.args)
        assert en_fields == zh_fields, f"{where}:{call.lineno}: {en_fields} != {zh_fields}"
        assert CJK.search(zh) and not CJK.search(en), f"{where}:{call.lineno}: {zh!r}"
        # names the trace uses (grad_output, Concrete Inputs, NC1HWC0, record_shapes) stay
        names = re.findall(r"\b\w+_\w+\b|\b[A-Z][A-Za-z0-9-]+\b", en)
        assert all(n in zh for n in names), f"{where}:{call.lineno}: {names} in {zh!r}"


def test_an_unknown_operator_row_carries_both_reasons() -> None:
    from mindinsight_profiler.analysis.perf.calls import OpCall
    from mindinsight_profiler.analysis.perf.flops import work_of

    no_formula = work_of(OpCall("aten::frobnicate", ((4, 4),), ("float",)))
    assert no_formula == Unknown("no formula for aten::frobnicate", "没有 aten::frobnicate 的公式")
    shapes = work_of(OpCall("aten::mm", ([4, 5], [6, 7]), ("float", "float")))
    assert isinstance(shapes, Unknown) and "[4, 5] @ [6, 7]" in shapes.reason
    assert "[4, 5] @ [6, 7]" in shapes.zh and CJK.search(shapes.zh)
