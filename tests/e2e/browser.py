"""Driving Debian's Chromium with Playwright for the dashboard's end-to-end tests.

The browser is `/usr/bin/chromium` (installed by `scripts/install_browser.sh`), never a
downloaded one. A `Tab` records every console error and warning, failed request and uncaught page
error, so each test can end by asserting the page ran cleanly; `shot` saves screenshots
to `build/e2e-screenshots/` for people to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

CHROMIUM = Path(os.environ.get("MI_CHROMIUM", "/usr/bin/chromium"))
UI_INDEX = ROOT / "mindinsight_profiler" / "_ui" / "index.html"
SCREENSHOTS = Path(os.environ.get("MI_SCREENSHOTS", ROOT / "build" / "e2e-screenshots"))
#: The flags the machine needs: no sandbox as root, no GPU, and no background traffic (this
#: machine's network is closed; Chromium's own connections would fail noisily).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
    "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
]  # fmt: skip
#: the size of most tests' window; the smallest supported is 1024x768 (tests/e2e/test_layout.py:
#: below 1280 px the advisor is a drawer)
VIEWPORT = {"width": 1280, "height": 800}


def skip_reason(need_ui: bool = True) -> str | None:
    """Why the browser tests cannot run here (None when they can); `need_ui`: the test
    opens the dashboard (the HTML report's tests need only Chromium)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        return f"no Chromium at {CHROMIUM} (bash scripts/install_browser.sh)"
    if need_ui and not UI_INDEX.is_file():
        return "the dashboard is not built (bash scripts/build_ui.sh)"
    return None


@dataclass
class Tab:
    """A page with the problems it reported; `problems` must be empty at the end of a test."""

    page: Any
    problems: list[str] = field(default_factory=list)

    def watch(self) -> None:
        def on_console(msg: Any) -> None:
            # warnings count too: a deprecation warning today is tomorrow's broken page
            if msg.type in ("error", "warning"):
                self.problems.append(f"console {msg.type}: {msg.text}")

        def on_response(response: Any) -> None:
            if response.status >= 500 or (response.status == 404 and "/assets/" in response.url):
                self.problems.append(f"HTTP {response.status}: {response.url}")

        self.page.on("console", on_console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        self.page.on("response", on_response)

    def shot(self, name: str) -> Path:
        """A screenshot of the whole window, saved as `<name>.png`."""
        path = SCREENSHOTS / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))
        return path

    def assert_clean(self) -> None:
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One Chromium for the whole session: Playwright's sync API runs one instance per
    thread, so every browser test (dashboard or not) shares it."""
    reason = skip_reason(need_ui=False)
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    path = CHROMIUM if CHROMIUM.exists() else Path(shutil.which("chromium") or CHROMIUM)
    launched = pw.chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
    try:
        yield launched
    finally:
        launched.close()
        pw.stop()


@pytest.fixture(scope="session")
def browser(chromium: Any) -> Any:
    """Chromium for the dashboard's tests (skipped when the dashboard is not built)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    return chromium


@contextmanager
def open_tab(
    browser: Any, viewport: dict[str, int], init_script: str | None = None, **options: Any
) -> Iterator[Tab]:
    """A fresh browser context of this window size, closed at the end; `options` go to the
    context (e.g. color_scheme="dark"), `init_script` runs before each page's own scripts."""
    context = browser.new_context(viewport=viewport, locale="en-US", **options)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    page.set_default_timeout(20_000)
    found = Tab(page)
    found.watch()
    try:
        yield found
    finally:
        context.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    """A fresh browser context at 1280x800, the smallest size with the advisor as a column
    (the dashboard supports 1024x768 up, with the advisor as a drawer below 1280 px)."""
    with open_tab(browser, VIEWPORT) as found:
        yield found
