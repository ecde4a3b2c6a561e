"""The screenshot review: every page of a Kineto, an Ascend and a MindSpore run in English
and Chinese, light and dark (the system setting, which the dashboard follows), at 1440 and
1024 px wide, each saved for people to look at (build/e2e-screenshots/review/).

The whole matrix (3 runs x 12 pages x 8 looks) takes minutes, so it runs when
MI_SCREENSHOT_REVIEW=1; by default each run is walked in one look (a different one per
run), which still checks on every page: no console error or warning, no failed request,
nothing scrolling sideways.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import Tab, open_tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_tour import PAGES, ROOT, SETTLED

LOOKS = [
    (lang, scheme, width)
    for lang in ("en", "zh")
    for scheme in ("light", "dark")
    for width in (1440, 1024)
]
FULL = os.environ.get("MI_SCREENSHOT_REVIEW") == "1"
#: by default one look per run, so that each look is walked by some run
DEFAULT = {
    "kineto_gpu": ("zh", "dark", 1024),
    "ascend": ("en", "dark", 1440),
    "mindspore": ("zh", "light", 1024),
}
CASES = [
    (run, *look) for run in DEFAULT for look in (LOOKS if FULL else [DEFAULT[run]])
]  # fmt: skip
SIDEWAYS = """() => {
  const doc = document.scrollingElement;
  return doc.scrollWidth - doc.clientWidth;
}"""


@pytest.fixture
def look_tab(
    browser: Any, request: pytest.FixtureRequest
) -> Iterator[tuple[Tab, tuple[str, str, int]]]:
    lang, scheme, width = request.param
    viewport = {"width": width, "height": 900}
    language = f"localStorage.setItem('mindinsight.locale', '{lang}')"
    with open_tab(browser, viewport, language, color_scheme=scheme) as found:
        yield found, (lang, scheme, width)


@pytest.mark.parametrize(
    ("run", "look_tab"),
    [(run, (lang, scheme, width)) for run, lang, scheme, width in CASES],
    ids=[f"{run}-{lang}-{scheme}-{width}" for run, lang, scheme, width in CASES],
    indirect=["look_tab"],
)
def test_every_page_in_every_look(
    dashboard: Dashboard, look_tab: tuple[Tab, tuple[str, str, int]], run: str
) -> None:
    tab, (lang, scheme, width) = look_tab
    page = tab.page
    sideways = []
    for name in PAGES:
        page.goto(dashboard.run_url(run, name))
        page.locator(ROOT.format(page=name)).wait_for()
        page.wait_for_function(SETTLED, timeout=30_000)
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        over = page.evaluate(SIDEWAYS)
        if over > 0:
            sideways.append(f"{name}: {over} px")
        tab.shot(f"review/{run}-{name}-{lang}-{scheme}-{width}")
    assert not sideways, f"{run} at {width} px scrolls sideways: {sideways}"
    tab.assert_clean()
