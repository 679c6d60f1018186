"""A real, headless Chromium for the tests that open pages: Debian's ``chromium`` driven by
its ``chromium-driver`` through selenium. Locally a test that needs it is skipped when
they are missing; under CI (``CI`` set, where scripts/test.sh installs them) it fails,
so a green CI always opened its pages.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    # This machine reaches no network: without these Chromium keeps trying to.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def browser_missing() -> str | None:
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[dev]')")
    if not missing:
        return None
    return f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)"


@contextmanager
def chromium(width: int = 800, height: int = 1100) -> Iterator[Any]:
    """A headless Chromium with a profile of its own, quit on leaving."""
    missing = browser_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(shutil.which("chromium"))
    with tempfile.TemporaryDirectory(prefix="turncheck-chromium-") as profile:
        flags = (*CHROMIUM_FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}")
        for flag in flags:
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        try:
            yield driver
        finally:
            driver.quit()
