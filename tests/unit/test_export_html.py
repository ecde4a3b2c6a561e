"""The HTML report: the dashboard's number formatting, sections present or noted missing by
input, figures equal to the report's, nothing fetched, and every trace-derived string escaped
(a Kineto trace with hostile operator and kernel names; the SVG charts' labels)."""

from __future__ import annotations

import copy
import re
import shutil

import jinja2
import pytest

from mindinsight_profiler.export import html as report_html
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.export.html import SECTIONS, fmt, render_html, svg, tables
from mindinsight_profiler.export.html.texts import EN, ZH, covered_text
from tests.conftest import shared
from tests.htmlreport import (
    HOSTILE_KERNELS,
    HOSTILE_OPS,
    HOSTILE_RUN,
    LONG,
    bundle_of,
    hostile_trace,
    parse,
)

# --- formatting: ui/src/format.ts's rules, JavaScript's rounding -----------------------


@pytest.mark.parametrize(
    ("value", "digits", "js"),
    [(0.125, 2, "0.13"), (2.5, 0, "3"), (-2.5, 0, "-3"), (1.005, 2, "1.00"),  # 1.00499..
     (-0.001, 2, "-0.00"), (-0.0, 2, "0.00"), (177592.16666, 0, "177592")],
)  # fmt: skip
def test_fixed_rounds_like_javascript_to_fixed(value: float, digits: int, js: str) -> None:
    # the JavaScript column is what `value.toFixed(digits)` prints (half away from zero on
    # the exact binary value); Python's format rounds 0.125 and 2.5 half to even
    assert fmt.fixed(value, digits) == js


def test_durations_shares_bytes_and_counts_read_as_on_the_dashboard() -> None:
    assert [fmt.us(x) for x in (177592.1666, 2.5e6, 89.0, 0.5, 0, None)] == [
        "177.59 ms", "2.50 s", "89.0 µs", "500 ns", "0 µs", "–"]  # fmt: skip
    assert fmt.share(0.33369621220155166) == "33.4 %" and fmt.share(None) == "–"
    assert fmt.pct(55.5141) == "55.5 %"
    assert fmt.nbytes(57803264) == "55.1 MiB" and fmt.nbytes(1000) == "1000 B"
    assert fmt.count(1234567) == "1,234,567"
    assert [fmt.sig(x) for x in (6.57667, 0.0036712, 4714.65, 12345.6)] == [
        "6.58", "0.00367", "4,715", "12,346"]  # fmt: skip
    assert fmt.sig(4714.65, 4) == "4715"  # the roofline's total GFLOPs
    # JavaScript's String(number): positional down to 1e-6, then "3.2e-8" (not "3.2e-08")
    assert [fmt.sig(x) for x in (5.8912e-05, 3.2e-08, 999.6)] == ["0.0000589", "3.2e-8", "1000"]


def test_covered_text_is_the_dashboards() -> None:
    c = {"count": 9, "first": "2", "last": "10", "left_out": ["1"], "compile": ["1"]}
    assert covered_text(c, "en") == "mean of 9 steps (2–10); step 1 left out: graph compilation"
    assert covered_text(c, "zh") == "9 个迭代（2–10）的平均; 不含迭代 1：图编译"
    one = {"count": 1, "first": "50", "last": "50", "left_out": [], "compile": []}
    assert covered_text(one, "en") == "the one step"


def test_english_and_chinese_texts_have_the_same_keys() -> None:
    assert set(EN) == set(ZH)


# --- a generated trace with hostile names -------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> ReportBundle:
    base = tmp_path_factory.mktemp("hostile")
    return bundle_of(hostile_trace(base), base / "ws")


def unsafe(html: str) -> list[str]:
    """What would run or fetch in a browser: script, event handler or embedded-object tags
    and attributes, and any reference outside the file."""
    doc = parse(html)
    bad = [t for t in doc.tags if t in ("script", "img", "iframe", "object", "embed", "link")]
    bad += [k for k, _ in doc.attrs if k.startswith("on") or k in ("src", "srcset")]
    bad += [f"{k}={v}" for k, v in doc.attrs if k == "href" and not v.startswith("#")]
    bad += re.findall(r"url\(|@import|https?://", html.split("</style>")[0].split("<style>")[-1])
    return bad


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hostile_names_show_as_text_and_nothing_runs(hostile: ReportBundle, lang: str) -> None:
    html = render_html(hostile, lang)
    assert unsafe(html) == []
    doc = parse(html)
    text = doc.all_text.replace("\r\n", "\n").replace("\r", "\n")  # as a browser normalises
    for name in HOSTILE_OPS + HOSTILE_KERNELS:
        if name is not LONG:
            assert name.replace("\r\n", "\n") in text, name
    # data, never template source ("49" may be part of a figure or the time: not checked)
    assert "{{ 7*7 }}{% raw %}" in text and "k_{{ 7*7 }}" in text
    # the 5,000-character name is cut in the middle in its cell, and whole in its tooltip
    assert ("title", LONG) in doc.attrs
    assert fmt.shorten(LONG, 160) in doc.text["operators"]
    assert HOSTILE_RUN in doc.text["header"]


def test_the_hostile_check_fails_on_an_unescaped_report(
    hostile: ReportBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mutation: the same template without autoescape lets the names in as markup."""
    loose = jinja2.Environment(
        loader=jinja2.PackageLoader("mindinsight_profiler.export.html", "templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
    )
    monkeypatch.setattr(report_html, "_environment", lambda: loose)
    bad = unsafe(render_html(hostile))
    assert "script" in bad and "img" in bad and "onerror" in bad


def test_svg_labels_are_escaped_in_text_and_attributes() -> None:
    evil = "</text></svg><script>window.__pwned=7</script>\"'&"
    bars = svg.stacked_bars([evil, "2"], [svg.Series(evil, "#123456", [5.0, 6.0])], evil)
    roof = svg.roofline([(evil, 10.0, 5.0, "#123456")], 15.7, 0.9, evil, evil)
    ledger = svg.hbar([(evil, "#123456", 3.0, evil)])
    for chart in (bars, roof, ledger):
        assert unsafe(str(chart)) == []
        doc = parse(str(chart))
        assert "script" not in doc.tags and evil in doc.all_text
    assert ("aria-label", evil) in parse(str(bars)).attrs  # attribute values too


def test_every_section_is_there_in_order(hostile: ReportBundle) -> None:
    sections = re.findall(r'<section id="(\w+)" data-section="\1"', render_html(hostile))
    assert sections == list(SECTIONS)


# --- sections present or noted missing by input ------------------------------------------

SOURCES = {  # section -> the report keys whose absence removes it
    "overview": ("steps",), "step_trace": ("step_trace",), "operators": ("operators",),
    "kernels": ("kernels",), "data_pipeline": ("data_pipeline",), "memory": ("memory",),
    "communication": ("communication", "distributed"), "roofline": ("perf_model",),
}  # fmt: skip


def _without(bundle: ReportBundle, keys: tuple[str, ...]) -> ReportBundle:
    report = copy.deepcopy(bundle.report)
    for k in keys:
        report[k] = {"count": 0} if k == "steps" else None
    return ReportBundle(**{**bundle.__dict__, "report": report})


def _missing(html: str) -> set[str]:
    """The sections that print the one-line "not in this input" note."""
    bodies = re.findall(r'<section id="(\w+)" data-section="\1">(.*?)</section>', html, re.S)
    return {name for name, body in bodies if 'class="missing' in body}


@pytest.mark.parametrize("section", [s for s in SOURCES if s not in ("memory", "communication")])
def test_a_section_without_its_data_says_so_in_one_line(
    hostile: ReportBundle, section: str
) -> None:
    assert section not in _missing(render_html(hostile))
    gone = render_html(_without(hostile, SOURCES[section]))
    assert _missing(gone) == {"memory", "communication", section}
    assert parse(gone).text[section].strip().endswith(EN["missing"])


def test_the_hostile_run_has_its_sections(hostile: ReportBundle) -> None:
    # a CPU-memory-less, single-GPU trace: no memory, no communication; the rest present
    assert _missing(render_html(hostile)) == {"memory", "communication"}


# --- the figures of real runs ----------------------------------------------------------

KINETO = "kineto/resnet50_num_workers_0"


@pytest.fixture(scope="module")
def kineto(tmp_path_factory: pytest.TempPathFactory) -> ReportBundle:
    base = tmp_path_factory.mktemp("kineto")
    shutil.copytree(shared(KINETO), base / "resnet50")
    return bundle_of(base / "resnet50", base / "ws")


def _figure(html: str, key: str) -> str:
    found = re.search(rf'data-figure="{key}"><div class="label">[^<]*</div><div class="value">'
                      r"([^<]*)</div>", html)  # fmt: skip
    assert found, key
    return found.group(1)


def test_kineto_overview_figures_are_the_reports(kineto: ReportBundle) -> None:
    r, html = kineto.report, render_html(kineto)
    # by hand from the JSON report (docs: `mindinsight analyse --format json`)
    assert _figure(html, "avg-step") == "177.59 ms" == fmt.us(r["steps"]["average_us"])
    assert _figure(html, "steps") == "6"
    assert _figure(html, "data-wait") == "33.4 %"
    assert _figure(html, "utilization") == "55.5 %"
    assert _figure(html, "mfu") == fmt.share(r["perf_model"]["totals"]["mfu"])
    average = r["steps"]["average_us"]
    for key, us in r["breakdown_us"].items():
        row = re.search(rf'<tr data-key="{key}"><td>[^<]*</td><td class="num" data-us>([^<]*)'
                        r'</td><td class="num" data-share>([^<]*)</td>', html)  # fmt: skip
        assert (row is None) == (us == 0), key
        if row:
            assert row.groups() == (fmt.us(us), fmt.share(us / average)), key
    assert "mean of all 6 steps" in parse(html).text["overview"]
    # the chart: one bar segment per step and category with time, each named in its tooltip
    chart = html.split('data-chart="breakdown"')[1].split("</svg>")[0]
    segments = sum(1 for s in r["breakdown_per_step_us"] for v in s.values() if v > 0)
    assert chart.count("<rect") == segments and "(ms)" in chart


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_real_report_refers_to_nothing_outside_itself(kineto: ReportBundle, lang: str) -> None:
    html = render_html(kineto, lang)
    assert not re.search(r"<script|<link|<img|src=|url\(|@import|@font-face|https?://", html, re.I)
    assert unsafe(html) == []


def test_chinese_report_uses_the_advices_chinese_texts(kineto: ReportBundle) -> None:
    html = render_html(kineto, "zh")
    assert '<html lang="zh-CN">' in html
    text = parse(html).all_text
    assert "平均迭代时间" in text and "全部 6 个迭代的平均" in text
    for f in kineto.advice.findings:
        assert f.title.zh in text and f.title.en not in text


def test_many_steps_are_drawn_up_to_the_cap_and_the_chart_says_so(hostile: ReportBundle) -> None:
    report = copy.deepcopy(hostile.report)
    one = report["breakdown_per_step_us"][0]
    report["breakdown_per_step_us"] = [one] * 1000
    report["steps"]["names"] = [str(i) for i in range(1000)]
    html = render_html(ReportBundle(**{**hostile.__dict__, "report": report}))
    chart = html.split('data-chart="breakdown"')[1].split("</figure>")[0]
    drawn = sum(1 for v in one.values() if v > 0)
    assert chart.count("<rect") == drawn * tables.CHART_STEPS
    assert EN["chart_cap"].format(n=tables.CHART_STEPS, total=1000) in chart


def test_a_device_without_a_roof_gives_the_reason_and_no_chart(hostile: ReportBundle) -> None:
    report = copy.deepcopy(hostile.report)
    reason = "the trace does not name its device; name one with --device-spec"
    report["perf_model"]["unavailable"] = reason
    report["perf_model"]["device"].update(name=None, peak_tflops={}, bandwidth_tbps=None)
    html = render_html(ReportBundle(**{**hostile.__dict__, "report": report}))
    assert 'data-chart="roofline"' in render_html(hostile)
    assert 'data-chart="roofline"' not in html
    assert EN["roof_unavailable"].format(reason=reason) in parse(html).text["roofline"]


def test_ascends_step_view_shows_without_a_step_trace(hostile: ReportBundle) -> None:
    report = copy.deepcopy(hostile.report)
    report["step_trace"] = None
    report["npu"] = {"average": {k: 0.0 for k in ("computing_us", "comm_not_overlapped_us",
                     "overlapped_us", "communication_us", "free_us", "bubble_us",
                     "preparing_us")} | {"stage_us": 2000.0, "computing_us": 1500.0},
                     "average_steps": ["1"], "steps": [], "op_types": None}  # fmt: skip
    html = render_html(ReportBundle(**{**hostile.__dict__, "report": report}))
    assert "step_trace" not in _missing(html) and 'data-chart="step_trace"' not in html
    row = re.search(r'<tr data-key="computing_us"><td>Computing</td><td class="num">([^<]*)</td>'
                    r'<td class="num">([^<]*)</td>', html)  # fmt: skip
    assert row and row.groups() == ("1.50 ms", "75.0 %")


def test_a_step_trace_without_named_points_still_shows_its_steps(hostile: ReportBundle) -> None:
    """MindSpore's step_trace table times the stages without naming the FP/BP operators:
    the section shows the stages' chart and table (it was a bare heading), not the names."""
    report = copy.deepcopy(hostile.report)
    for point in ("fp_point", "bp_point"):
        report["step_trace"][point]["name"] = None
    html = render_html(ReportBundle(**{**hostile.__dict__, "report": report}))
    assert 'data-chart="step_trace"' in html and "step_trace" not in _missing(html)
    assert EN["fp_point"] not in parse(html).text["step_trace"]
