"""`turncheck alerts preview --html --out FILE` opened in a real, headless Chromium.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` dev dependency.
Locally the test is skipped without them; under CI (``CI`` set) it fails, so a green CI
always opened the page.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_commands import ROOT, turncheck

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=800,1100",
)


def _browser_missing() -> str | None:
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[dev]')")
    if not missing:
        return None
    return f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)"


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium with a profile of its own, quit after the test."""
    missing = _browser_missing()
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
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        try:
            yield driver
        finally:
            driver.quit()


def test_the_preview_page_opens_in_a_browser_with_its_chart_and_fetches_nothing(
    tmp_path: Path, browser: Any
) -> None:
    """The page written by `alerts preview --html --out` shows the chart from the file
    alone: the image loads (it is a data: URI) and no resource is fetched from anywhere."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {"TURNCHECK_ALERT_MIN_RESULTS": "10", "TURNCHECK_ALERT_MIN_PASS_RATE": "0.6"}
    assert turncheck("replay", "examples/turns.jsonl", cwd=tmp_path, **env).returncode == 0
    page = tmp_path / "grounded.html"
    done = turncheck(
        "alerts",
        "preview",
        "--check",
        "grounded",
        "--html",
        "--out",
        str(page),
        cwd=tmp_path,
        **env,
    )
    assert done.returncode == 0, done.stderr

    browser.get(page.as_uri())
    heading = browser.execute_script("return document.querySelector('h2').textContent")
    assert heading == "Check grounded: below threshold"
    images = browser.execute_script(
        "return [...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert images == [[True, 560, 200]]
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(entry => entry.name)"
    )
    assert [name for name in fetched if not name.startswith("data:")] == []
    shot = tmp_path / "preview.png"  # kept with pytest's temporary folders, to look at
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes().startswith(b"\x89PNG")
