"""Helpers of the HTML report's tests: a Kineto trace with hostile operator and kernel names,
the bundle of a folder, and a parse of the report into sections, texts and attributes."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from mindinsight_profiler.export.bundle import ReportBundle, gather
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.store.cache import Workspace
from tests.advisor.gputrace import gpu_trace, mm

LONG = "op_" + "x" * 4997  # a 5,000-character name
#: names that would run script, break out of an attribute, the SVG or the template if a
#: renderer let them through unescaped, plus a very long one and one with line breaks
HOSTILE_OPS = [
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=2">',
    "</svg><script>window.__pwned=3</script>",
    "{{ 7*7 }}{% raw %}",
    LONG,
    "line one\nline two\r\n<b>three</b>",
]
HOSTILE_KERNELS = [
    "k_<script>window.__pwned=4</script>",
    "k_'><svg onload=window.__pwned=5>",
    "k_</title></text></svg><img src=x onerror=window.__pwned=6>",
    "k_{{ 7*7 }}",
]
#: the run folder's name: the header shows it (and the source path holding it)
HOSTILE_RUN = "run_<i>\"&amp;'x"


def hostile_trace(base: Path) -> Path:
    """A three-step H100 trace whose operators and kernels have the hostile names (each
    operator launches one kernel; the long-running ones are listed first, so all of them are
    in the report's top 20), and one matrix multiply the roofline can place."""
    calls = []
    for i, name in enumerate(HOSTILE_OPS):
        kname = HOSTILE_KERNELS[i % len(HOSTILE_KERNELS)]
        calls.append((name, [[64, 64], [64, 64]], ["c10::Half", "c10::Half"], kname, 200.0 - i))
    folder = base / HOSTILE_RUN
    gpu_trace(folder, [*calls, mm(2048, 2048, 2048, 100.0)])
    return folder


def bundle_of(folder: Path, workspace: Path) -> ReportBundle:
    """The bundle `mindinsight report` would render for the folder's first worker."""
    run = discover(folder)[0]
    return gather(run.select(None, None), run, Workspace(workspace))


@dataclass
class Parsed:
    """The report as a browser's parser sees it: tags, text per section, attribute values."""

    tags: list[str] = field(default_factory=list)
    text: dict[str, str] = field(default_factory=dict)  # section -> its text
    attrs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def all_text(self) -> str:
        return "".join(self.text.values())


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out = Parsed()
        self.section = "(none)"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.tags.append(tag)
        for k, v in attrs:
            self.out.attrs.append((k, v or ""))
            if k == "data-section" and v:
                self.section = v

    def handle_data(self, data: str) -> None:
        self.out.text[self.section] = self.out.text.get(self.section, "") + data


def parse(html: str) -> Parsed:
    p = _Parser()
    p.feed(html)
    p.close()
    return p.out
