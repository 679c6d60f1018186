"""The overview page on a real uvicorn over both databases: a row per (agent, check)
with its rates over the alert window, 24 h and 7 d at their hour boundaries, the
change against the periods before, the sparkline, the states, sorting and filtering.

The API's clock is ``API_NOW``, 2026-11-29 13:00 UTC: "24 h" is the hours from
2026-11-28 14:00 on, the previous 24 h from 2026-11-27 14:00; "7 d" from 2026-11-22
14:00, the previous 7 d from 2026-11-15 14:00. The zone is UTC.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator
from datetime import date, timedelta

import httpx
import pytest

from tests.api.conftest import API_NOW, TOKEN, api_settings, running_api, save, turn
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import CHECK, AlertKey, AlertStore

PASSED, FAILED = Verdict.PASSED, Verdict.FAILED
TODAY = date(2026, 11, 29)
TURN_IDS = itertools.count(1)


async def seed(
    store: Store,
    check: str,
    created_at: str,
    verdict: Verdict,
    *,
    agent: str = "bot-a",
    version: int = 3,
) -> None:
    """One result of ``check`` for a new turn of ``agent`` created at ``created_at``."""
    ref = turn(
        f"t-{next(TURN_IDS)}",
        created_at=created_at,
        agent={"id": agent, "version": version, "model": "m"},
    )
    await save(store, [ref], [(check, verdict)])


@pytest.fixture
async def ui(store: Store, database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A signed-in client; alerts count the latest 10 results, 3 at least, 95 %."""
    settings = api_settings(database_url, alert_latest=10, alert_min_results=3)
    async with running_api(settings, store) as client:
        signed = await client.post("/ui/sign-in", data={"token": TOKEN, "next": "/ui/"})
        assert signed.status_code == 303
        yield client


def rows_of(html: str) -> list[dict[str, str]]:
    """Each body row as a person reads it: check, agent, each rate cell, its states."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in html else ""
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        row = {
            "check": re.sub(r"<[^>]+>", "", cells[0]).strip(),
            "link": re.search(r'href="([^"]+)"', cells[0]).group(1),  # type: ignore[union-attr]
            "agent": cells[1].strip(),
            "rollout": re.sub(r"<[^>]+>", "", cells[2]).strip(),
            "states": ", ".join(re.findall(r'<span class="state [a-z]+">([^<]+)</span>', cells[9])),
            "spark": cells[8],
        }
        for name, value in re.findall(r'data-col="([a-z_0-9]+)">(.*?)</td>', tr, re.S):
            row[name] = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", value)).strip()
        rows.append(row)
    return rows


async def seed_tone(store: Store) -> None:
    """``tone`` of bot-a, one result each side of every boundary, and one too old."""
    await seed(store, "tone", "2026-11-29T13:10:00Z", FAILED)  # this hour: 24 h
    await seed(store, "tone", "2026-11-28T14:00:00Z", PASSED)  # 23 h ago: 24 h
    await seed(store, "tone", "2026-11-28T13:59:00Z", PASSED)  # 24 h ago: the 24 h before
    await seed(store, "tone", "2026-11-27T14:00:00Z", PASSED)  # 47 h ago: the 24 h before
    await seed(store, "tone", "2026-11-22T14:00:00Z", PASSED)  # 167 h ago: 7 d
    await seed(store, "tone", "2026-11-22T13:00:00Z", FAILED)  # 168 h ago: the 7 d before
    await seed(store, "tone", "2026-11-15T12:00:00Z", PASSED)  # before both weeks


async def test_rates_count_whole_hours_on_each_side_of_the_24_h_and_7_d_boundaries(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """24 h: 1 of 2; before: 2 of 2; 7 d: 4 of 5; before: 0 of 1; the window all 7."""
    await seed_tone(store)
    page = await ui.get("/ui/")
    assert page.status_code == 200, page.text
    [row] = rows_of(page.text)
    assert (row["check"], row["agent"], row["rollout"]) == ("tone", "bot-a", "live")
    assert row["rate_24h"] == "50 % of 2"
    assert row["change_24h"] == "▼ -50.0 pp"
    assert row["rate_7d"] == "80 % of 5"
    assert row["change_7d"] == "▲ +80.0 pp"
    assert row["rate_window"] == "71.4 % of 7"
    assert row["link"] == "/ui/checks/bot-a/tone"
    assert "UTC" in page.text


async def test_the_change_is_n_a_when_the_period_before_has_no_results(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Results only in the last hour: rates, but no change to show."""
    for _ in range(3):
        await seed(store, "fresh", "2026-11-29T13:05:00Z", PASSED)
    [row] = rows_of((await ui.get("/ui/")).text)
    assert row["rate_24h"] == "100 % of 3" and row["change_24h"] == "n/a"
    assert row["change_7d"] == "n/a"


async def test_the_sparkline_has_a_dot_for_each_day_with_results_and_says_its_rates(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """tone has results on Nov 27, 28 and 29 of the 7 days Nov 23-29: three dots."""
    await seed_tone(store)
    [row] = rows_of((await ui.get("/ui/")).text)
    assert row["spark"].count("<circle") == 3
    title = re.search(r"<title>(.*?)</title>", row["spark"]).group(1)  # type: ignore[union-attr]
    assert title.startswith("Pass rate: Nov 23 none, Nov 24 none")
    assert "Nov 27 100 % of 1, Nov 28 100 % of 2, Nov 29 0 % of 1; threshold 95 %" in title


async def test_a_check_without_results_in_range_still_has_its_row(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Results only weeks ago: the row says no results and n/a, with an empty sparkline."""
    await seed(store, "quiet", "2026-11-05T10:00:00Z", PASSED)
    [row] = rows_of((await ui.get("/ui/")).text)
    assert row["check"] == "quiet"
    assert row["rate_24h"] == "no results" and row["rate_7d"] == "no results"
    assert row["change_24h"] == "n/a" and "<circle" not in row["spark"]
    assert row["states"] == "too few results"


async def test_states_say_below_threshold_too_few_shadow_and_todays_alert(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Each state as a badge with its word; several on one row when several hold. An
    alert of today is sent once one channel sent it; yesterday's says nothing."""
    await seed_tone(store)  # 5 of 7: below 95 %
    for verdict in (PASSED, PASSED):
        await seed(store, "sparse", "2026-11-29T12:00:00Z", verdict)  # 2 of at least 3
    for _ in range(3):
        await seed(store, "fine", "2026-11-29T12:00:00Z", PASSED)
        await seed(store, "preview", "2026-11-29T12:00:00Z", PASSED)
    await store.rollouts.record({("bot-a", "preview"): "shadow"}, API_NOW)
    alerts = AlertStore(store.database)
    days = (("tone", TODAY), ("sparse", TODAY), ("fine", TODAY - timedelta(days=1)))
    for check, day in days:
        await alerts.raise_alert(
            AlertKey(CHECK, check, "bot-a", day),
            snapshot="{}",
            channels=["slack", "mail"],
            now=API_NOW,
            give_up_at=API_NOW + timedelta(days=1),
        )
    pending = await alerts.due(API_NOW)
    tone_id = min(due.alert_id for due in pending)  # raised first
    [slack] = [d for d in pending if d.alert_id == tone_id and d.channel == "slack"]
    await alerts.delivered(slack, API_NOW)  # its mail is still pending: sent is sent
    states = {row["check"]: row["states"] for row in rows_of((await ui.get("/ui/")).text)}
    assert states == {
        "tone": "below threshold, alert sent today",
        "sparse": "too few results, alert raised today, not sent",
        "fine": "ok",
        "preview": "shadow, ok",
    }


async def test_rows_sort_by_the_worst_24_h_rate_first_and_by_any_column_asked(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Default rate_24h ascending, rows without a rate last; headers link the sorts."""
    await seed(store, "b-half", "2026-11-29T12:00:00Z", PASSED)
    await seed(store, "b-half", "2026-11-29T12:00:00Z", FAILED)
    await seed(store, "a-all", "2026-11-29T12:00:00Z", PASSED)
    await seed(store, "c-none", "2026-11-01T12:00:00Z", FAILED)
    await seed(store, "d-zero", "2026-11-29T12:00:00Z", FAILED)
    page = await ui.get("/ui/")
    assert [r["check"] for r in rows_of(page.text)] == ["d-zero", "b-half", "a-all", "c-none"]
    assert 'href="/ui/?sort=rate_24h&amp;order=desc"' in page.text
    down = await ui.get("/ui/", params={"sort": "rate_24h", "order": "desc"})
    assert [r["check"] for r in rows_of(down.text)] == ["a-all", "b-half", "d-zero", "c-none"]
    by_name = await ui.get("/ui/", params={"sort": "check", "order": "desc"})
    assert [r["check"] for r in rows_of(by_name.text)] == ["d-zero", "c-none", "b-half", "a-all"]


async def test_filters_keep_one_agent_or_one_agent_version_and_list_the_known_ones(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """An agent's rows only; a version's rows counted from that version's results only."""
    await seed(store, "tone", "2026-11-29T12:00:00Z", PASSED, version=3)
    await seed(store, "tone", "2026-11-29T12:00:00Z", FAILED, version=4)
    await seed(store, "tone", "2026-11-29T12:00:00Z", PASSED, agent="bot-b", version=9)
    everything = await ui.get("/ui/")
    assert len(rows_of(everything.text)) == 2
    assert '<option value="bot-b">bot-b</option>' in everything.text
    assert re.findall(r'<option value="(\d+)"', everything.text) == ["3", "4", "9"]

    one = await ui.get("/ui/", params={"agent": "bot-b"})
    assert [(r["agent"], r["rate_24h"]) for r in rows_of(one.text)] == [("bot-b", "100 % of 1")]
    assert '<option value="bot-b" selected>' in one.text
    version = await ui.get("/ui/", params={"agent_version": "4"})
    assert [(r["agent"], r["rate_24h"]) for r in rows_of(version.text)] == [("bot-a", "0 % of 1")]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"sort": "turn_text"}, "sort"),
        ({"order": "sideways"}, "order"),
        ({"agent": "nobody"}, "agent"),
        ({"agent_version": "99"}, "agent_version"),
    ],
)
async def test_an_unknown_sort_or_filter_is_a_400_page_naming_the_parameter(
    ui: httpx.AsyncClient, store: Store, query: dict[str, str], named: str
) -> None:
    """A clear sentence on an HTML page, no traceback."""
    await seed(store, "tone", "2026-11-29T12:00:00Z", PASSED)
    page = await ui.get("/ui/", params=query)
    assert page.status_code == 400
    assert page.headers["content-type"].startswith("text/html")
    assert f"Unknown value for {named}:" in page.text
    assert "Traceback" not in page.text


async def test_without_any_results_the_page_says_so(ui: httpx.AsyncClient) -> None:
    """An empty store is a notice, not an empty table."""
    page = await ui.get("/ui/")
    assert page.status_code == 200 and "No check has results" in page.text
    assert 'aria-current="page">Overview' in page.text


async def test_the_check_link_quotes_the_agent_and_the_check(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """An agent id with a slash and a space stays one path segment of the check's page."""
    await seed(store, "tone", "2026-11-29T12:00:00Z", PASSED, agent="team/bot a")
    [row] = rows_of((await ui.get("/ui/")).text)
    assert row["link"] == "/ui/checks/team%2Fbot%20a/tone"
    assert row["agent"] == "team/bot a"
    only = await ui.get("/ui/", params={"agent": "team/bot a"})
    assert len(rows_of(only.text)) == 1
