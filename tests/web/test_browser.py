"""The pages in a real browser, as a person uses them: Debian's headless Chromium signs in
to ``turncheck serve`` (over results ``turncheck replay`` stored, tests/web/served.py),
opens every page, filters, pages through failing turns, sets a label, uses the test panel,
starts a backtest and watches it finish. No page runs a script, so what the browser shows
is what the server drew.

Each test saves a screenshot beside its temporary files; with ``TURNCHECK_SCREENSHOTS``
set to a folder they are saved there too (how docs/ui-*.png were made).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.browser import chromium
from tests.web.served import ROOT, Served, served

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(tmp_path_factory.mktemp("served")) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server: Served) -> Iterator[Any]:
    """One Chromium for the module, signed in by the first test that needs it."""
    with chromium(1280, 1000) as driver:
        yield driver


@pytest.fixture
def shot(browser: Any, tmp_path: Path) -> Callable[[str], Path]:
    def save(name: str) -> Path:
        path = tmp_path / f"{name}.png"
        assert browser.save_screenshot(str(path))
        assert path.read_bytes().startswith(b"\x89PNG")
        folder = os.environ.get("TURNCHECK_SCREENSHOTS")
        if folder:
            shutil.copy(path, Path(folder) / path.name)
        return path

    return save


def by_css(browser: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(browser.find_elements(By.CSS_SELECTOR, selector))


def one(browser: Any, selector: str) -> Any:
    found = by_css(browser, selector)
    assert found, f"nothing matches {selector!r} on {browser.current_url}"
    return found[0]


def submit(browser: Any, selector: str) -> None:
    """Click a form's button and wait until the page it leads to has replaced this one."""
    from selenium.webdriver.support.ui import WebDriverWait

    old = one(browser, "html")
    one(browser, selector).click()
    WebDriverWait(browser, 60).until(lambda driver: _gone(old))
    # The old document can be gone before the new one has finished loading: reading its
    # nodes then races chromium's swap ("Node ... does not belong to the document").
    WebDriverWait(browser, 60).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete"
    )


def _gone(element: Any) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.tag_name  # noqa: B018 (touching it is the test)
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        # chromium reports a node of a document being replaced this way, not as stale.
        return "does not belong to the document" in str(error)
    return False


def sign_in(browser: Any, server: Served, page: str = "/ui/alerts") -> None:
    browser.get(server.url + page)
    if "/ui/sign-in" in browser.current_url:
        one(browser, "#token").send_keys(server.token)
        submit(browser, "form[action='/ui/sign-in'] button[type=submit]")


def failing_turns(server: Served, check: str) -> list[str]:
    answer = httpx.get(
        f"{server.url}/v1/checks/{check}/results",
        params={"verdict": "failed", "since": "2000-01-01T00:00:00Z", "limit": 50},
        headers={"Authorization": f"Bearer {server.token}"},
    )
    assert answer.status_code == 200, answer.text
    return [str(row["turn_id"]) for row in answer.json()["results"]]


def test_signing_in_leads_to_the_page_asked_for(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """A visitor without a session is sent to sign in, a wrong token is told so, and the
    right one opens the page first asked for; the cookie is out of a script's reach."""
    browser.delete_all_cookies()
    browser.get(server.url + "/ui/alerts")
    assert "/ui/sign-in" in browser.current_url
    one(browser, "#token").send_keys("not-the-token")
    submit(browser, "form[action='/ui/sign-in'] button[type=submit]")
    assert "not this server's token" in one(browser, "[role=alert]").text
    shot("sign-in")
    one(browser, "#token").send_keys(server.token)
    submit(browser, "form[action='/ui/sign-in'] button[type=submit]")
    assert browser.current_url == server.url + "/ui/alerts"
    assert one(browser, "h1").text
    [cookie] = browser.get_cookies()
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    assert browser.execute_script("return document.cookie") == ""


def test_the_turn_page_shows_results_and_takes_a_label(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """A failing turn's page lists its results; marking a failure a false alarm brings the
    person back to the page with the label shown."""
    sign_in(browser, server)
    turn_id = failing_turns(server, "grounded")[0]
    browser.get(f"{server.url}/ui/turns/{quote(turn_id, safe='')}")
    assert turn_id in one(browser, "h1").text
    assert by_css(browser, ".state.failed") and by_css(browser, ".state.passed")
    form = one(browser, "form.label-form")
    form.find_element("css selector", "input[name=note]").send_keys("quoted from the order page")
    submit(browser, "form.label-form button[value=false_alarm]")
    assert f"/ui/turns/{quote(turn_id, safe='')}" in browser.current_url
    body = one(browser, "main").text
    assert "false alarm" in body.lower() and "quoted from the order page" in body
    shot("turn")


def test_the_alerts_page_opens(browser: Any, server: Served, shot: Callable[[str], Path]) -> None:
    """The alerts page answers with its table or says there are none, in the zone it names."""
    sign_in(browser, server)
    browser.get(server.url + "/ui/alerts?days=7")
    assert one(browser, "nav a[aria-current=page]").text == "Alerts"
    assert one(browser, "header .zone").text == "UTC"
    shot("alerts")


def test_the_test_panel_marks_what_a_check_matched(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """A pasted reply naming a competitor fails that check, with the name marked in the
    reply as the page shows it, and the pasted markup shown as text."""
    sign_in(browser, server)
    browser.get(server.url + "/ui/test")
    one(browser, "#reply").send_keys("Unlike HelpCo, we <b>ship</b> on Sundays.")
    submit(browser, "form[action='/ui/test'][method=post] button[type=submit]")
    marked = [mark.text for mark in by_css(browser, "mark")]
    assert "HelpCo" in marked
    assert "<b>ship</b>" in one(browser, "main").text
    shot("test-panel")


def test_a_backtest_started_from_an_uploaded_file_finishes_with_its_report(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """The draft file uploaded on the backtests page starts a backtest whose page refreshes
    itself until it is done, then shows the report and the comparison with the live check."""
    sign_in(browser, server)
    browser.get(server.url + "/ui/backtests")
    one(browser, "#file").send_keys(str(ROOT / "examples" / "draft-checks.yaml"))
    submit(browser, "form[action='/ui/backtests'] button[type=submit]")
    assert "/ui/backtests/" in browser.current_url
    deadline = time.monotonic() + 180
    while one(browser, ".state").text in ("queued", "running"):
        assert time.monotonic() < deadline, "the backtest did not finish"
        time.sleep(0.5)  # the page reloads itself every 2 s: no script, a meta refresh
    assert one(browser, ".state").text == "done"
    text = one(browser, "main").text
    for check in ("no-competitors", "no-inside-words", "no-refund-promises"):
        assert check in text
    assert "newly failing" in text.lower()
    shot("backtest")


def test_a_check_page_draws_its_charts_pages_its_failures_and_takes_a_label(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """The check page draws both charts, splits them by agent version when asked, pages
    through its failing turns without showing one twice, and a label set on a row of the
    second page brings the person back to that page with the label shown."""
    sign_in(browser, server)
    browser.get(server.url + "/ui/checks/support-bot/grounded")
    charts = by_css(browser, "svg.rate-chart")
    assert len(charts) == 2 and all(chart.is_displayed() for chart in charts)
    assert charts[0].size["width"] > 400 and charts[0].size["height"] > 100
    assert one(browser, "#count-failed").text == "120"
    shot("check")

    from selenium.webdriver.support.ui import Select

    Select(one(browser, "#split")).select_by_value("agent_version")
    submit(browser, "form.filters button[type=submit]")
    assert "split=agent_version" in browser.current_url
    assert "7" in one(browser, "svg.rate-chart").text  # the legend names the version

    first = [a.text for a in by_css(browser, "table.failures tbody tr td:nth-child(2) a")]
    submit(browser, "nav.pager a[rel=next]")
    second = [a.text for a in by_css(browser, "table.failures tbody tr td:nth-child(2) a")]
    assert len(first) == 25 and second and not set(first) & set(second)
    assert set(first + second) <= set(server.turn_ids)
    page_two = browser.current_url

    submit(browser, "table.failures tbody tr:first-child button[value=confirmed]")
    assert browser.current_url.split("#")[0] == page_two.split("#")[0]
    row = one(browser, "table.failures tbody tr:first-child")
    assert row.find_element("css selector", "td.label").text == "confirmed"


def test_the_overview_shows_what_is_red_sorts_filters_and_leads_to_a_check(
    browser: Any, server: Served, shot: Callable[[str], Path]
) -> None:
    """The overview lists every example check, the worst 24-hour rate first and marked below
    its threshold; sorting by name and filtering by agent and version keep every row, and a
    check's name opens its page."""
    sign_in(browser, server)
    browser.get(server.url + "/ui/")
    names = [a.text for a in by_css(browser, "table.overview tbody tr td:first-child a")]
    assert len(names) == 8 and names[0] == "grounded"
    first = one(browser, "table.overview tbody tr")
    assert "below threshold" in first.text
    assert first.find_element("css selector", "svg").is_displayed()  # its sparkline
    shot("overview")

    submit(browser, "table.overview thead th:first-child a")
    assert [a.text for a in by_css(browser, "table.overview tbody td:first-child a")] == sorted(
        names
    )

    from selenium.webdriver.support.ui import Select

    Select(one(browser, "#agent")).select_by_visible_text("support-bot")
    Select(one(browser, "#agent_version")).select_by_visible_text("7")
    submit(browser, "form.filters button[type=submit]")
    assert "agent=support-bot" in browser.current_url
    assert len(by_css(browser, "table.overview tbody tr")) == 8

    submit(browser, "table.overview tbody a[href$='/grounded']")
    assert "grounded" in one(browser, "h1").text
