"""The timeline in the browser on a 1.1 M-event trace: what it draws stays bounded.

The x15 input (15 back-to-back copies of the real ResNet-50 Kineto sample, 1,135,448
events; bench/make_inputs.py) is made in a temporary folder and served by the real
`mindinsight start`. Once it is analysed and each server process has opened its cache
once, the timeline page is opened in fresh browser contexts and driven with keys and the
wheel. The page itself measures (performance.measure):

- `timeline-first-paint`: navigation start -> the first frame drawn with the view's data;
  at most 1.5 s.
- `timeline-redraw`: a key or wheel event -> the frame drawn with the new window's own
  answer (after the debounce, the request and the parse); at most 100 ms for every step.
- `timeline-redraw-cached`: the same event -> the immediate frame drawn from cached
  answers.

Asserted: every open paints, every step redraws with its own answer, and no frame draws
more than two answers' worth of items, whatever the trace's size. The times are printed
(run with -s) but not asserted: a test's wall time depends on what else the machine runs
(one redraw took 159 ms while another suite ran beside it). Their targets (first paint
<= 1.5 s, every redraw <= 100 ms) are held by bench/timeline_browser_bench.py, which exits
1 when one is missed.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.conftest import ROOT, SHARED_DATA
from tests.e2e.browser import SCREENSHOTS, VIEWPORT, Tab, skip_reason
from tests.server.service import Server

SOURCE = SHARED_DATA / "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
FIRST_PAINT_MS = 1500
REDRAW_MS = 100
CANVAS = "[data-test=timeline-canvas]"
OPENS = 3


@pytest.fixture(scope="module")
def x15(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    if not SOURCE.exists():
        pytest.skip(f"real data not available: {SOURCE} (../shared/data)")
    out = tmp_path_factory.mktemp("x15-inputs")
    made = subprocess.run(
        [sys.executable, str(ROOT / "bench/make_inputs.py"), "--out", str(out), "--factors", "15"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    base = out / "runs"
    base.mkdir()
    (out / "x15").rename(base / "x15")
    server = Server(base, tmp_path_factory.mktemp("x15-ws"))
    server.start("--reload-interval", "0")
    try:
        runs = server.wait_settled(timeout=600)
        assert [r["state"] for r in runs] == ["ready"], (runs, server.logs())
        yield server, runs[0]["id"]
    finally:
        server.stop()


def _measures(page: Any, name: str) -> list[float]:
    entries = page.evaluate(
        f"() => performance.getEntriesByName('{name}', 'measure').map((e) => e.duration)"
    )
    return [float(e) for e in entries]


def _step(page: Any, kind: str, value: Any) -> tuple[float, float, int, float]:
    """One pan/zoom step (a key press or a wheel notch), once the new window is drawn:
    (redraw ms, cached redraw ms, items drawn, canvas draw ms)."""
    done = len(_measures(page, "timeline-redraw"))
    if kind == "key":
        page.keyboard.press(value)
    else:
        page.mouse.wheel(0, value)
    page.wait_for_function(
        f"() => performance.getEntriesByName('timeline-redraw', 'measure').length > {done}",
        timeout=10_000,
    )
    page.wait_for_timeout(120)  # a person's pace: one step at a time
    canvas = page.locator(CANVAS)
    return (
        _measures(page, "timeline-redraw")[done],
        _measures(page, "timeline-redraw-cached")[-1],
        int(canvas.get_attribute("data-items") or 0),
        float(canvas.get_attribute("data-draw-ms") or 0),
    )


#: Zoom in at the cursor, pan both ways, zoom out, then the wheel: every step moves the view
#: to a window not seen before, so each one waits for the server.
STEPS = [("key", k) for k in ["w"] * 5 + ["d", "d", "s", "a", "a", "w", "d", "s"]] + [
    ("wheel", d) for d in (-240, -240, 240)
]


def _warm(server: Server, run: str) -> float:
    """Let every server process open the cached trace once; the slowest request, in ms.

    Opening the memory-mapped cache (checksums included) costs a gunicorn worker about
    0.2 s once per server start; a user's first request to each worker pays it, later ones
    never. Concurrent requests reach both workers, so the steps measure the page, not that.
    """

    def one(_: int) -> float:
        began = time.perf_counter()
        server.get(f"/api/v1/runs/{run}/timeline?width_px=1000")
        return (time.perf_counter() - began) * 1000

    with ThreadPoolExecutor(4) as pool:
        return max(pool.map(one, range(8)))


def _summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms (n={len(values)})"


@pytest.mark.slow  # 30-100 s with the machine's load: making and analysing x15 is most of it
def test_x15_first_paint_and_redraw_per_step(x15: tuple[Server, str], browser: Any) -> None:
    server, run = x15
    info = server.get(f"/api/v1/runs/{run}/timeline?width_px=100&max_items=1")["window"]
    events = sum(t["events"] for t in info["tracks"])
    assert events > 600_000, events  # the index holds every drawable event of x15
    cold = _warm(server, run)
    url = f"{server.url}/runs/{run}/timeline"
    first_paints: list[float] = []
    steps: list[tuple[float, float, int, float]] = []
    for attempt in range(OPENS):
        context = browser.new_context(viewport=VIEWPORT, locale="en-US")
        tab = Tab(context.new_page())
        tab.watch()
        page = tab.page
        try:
            page.goto(url)
            page.wait_for_selector(f"{CANVAS}[data-rendered=true]", timeout=20_000)
            first_paints.append(_measures(page, "timeline-first-paint")[0])
            if attempt == 0:  # later opens measure the first paint only
                box = page.locator(CANVAS).bounding_box()
                assert box is not None
                page.mouse.move(box["x"] + 170 + (box["width"] - 170) * 0.4, box["y"] + 100)
                steps = [_step(page, kind, value) for kind, value in STEPS]
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SCREENSHOTS / "timeline-x15.png"))
            tab.assert_clean()
        finally:
            context.close()
    redraws, cached, items, draws = (list(col) for col in zip(*steps, strict=True))
    print(f"\nx15 timeline ({events:,} indexed events) in the browser:")
    print(f"  server warm-up (a worker's first open of the cache): {cold:.0f} ms")
    print(f"  first paint: {', '.join(f'{v:.0f}' for v in first_paints)} ms")
    print(f"  redraw with the new window's data: {_summary(redraws)}")
    print(f"  redraw from cache: {_summary(cached)}")
    print(f"  items drawn per frame: max {max(items)}; canvas draw: {_summary(draws)}")
    assert len(first_paints) == OPENS and all(v > 0 for v in first_paints), first_paints
    assert len(redraws) >= 10 and all(v > 0 for v in redraws), redraws
    slow = [v for v in [*first_paints, *redraws] if v > FIRST_PAINT_MS]
    if slow or max(redraws) > REDRAW_MS:
        print(f"  over the bench targets on this machine now: {slow or max(redraws)}")
    assert max(items) <= 2 * 5000  # two answers of at most max_items, whatever the trace size
