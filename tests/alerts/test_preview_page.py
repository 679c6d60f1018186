"""`turncheck alerts preview --html --out FILE` opened in a real, headless Chromium.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` dev dependency.
Locally the test is skipped without them; under CI (``CI`` set) it fails, so a green CI
always opened the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chromium
from tests.cli.test_commands import ROOT, turncheck


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium(800, 1100) as driver:
        yield driver


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
