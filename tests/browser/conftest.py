"""A real headless Chromium (Debian's ``chromium``) driven by Playwright's Python package.

Playwright's own browser downloads are never used (no ``playwright install``): the
system Chromium is launched by path. When either is missing the browser tests are
skipped with a loud reason, and under CI (``$CI`` set) they FAIL instead: CI must run
them (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: Where Debian puts it; $CHROMIUM overrides.
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _missing() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return ""


def need_browser() -> None:
    """Skip loudly here, fail under CI, when the browser cannot run."""
    missing = _missing()
    if not missing:
        return
    message = f"BROWSER TESTS NOT RUN: {missing}"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI must run them)")
    print(f"\n*** {message} ***", file=sys.stderr)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        try:
            yield chromium
        finally:
            chromium.close()


def _page(browser: Any, **options: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, **options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser) -> Iterator[Any]:
    # Playwright polls wait_for_function's expressions with eval, which the pages'
    # Content-Security-Policy refuses; test_web_safety.py checks the policy itself in a
    # context that keeps it (the `strict_page` fixture).
    yield from _page(browser, accept_downloads=True, bypass_csp=True)


@pytest.fixture
def strict_page(browser) -> Iterator[Any]:
    """A page whose browser enforces the Content-Security-Policy the device sends."""
    yield from _page(browser)
