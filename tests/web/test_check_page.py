"""The check page on a real uvicorn over both databases: what a person sees of a check
(charts, counts, reasons, failed turns page by page), labels set and cleared from it,
and the pages that refuse a bad address."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from tests.api.conftest import (
    API_NOW,
    RETENTION,
    TOKEN,
    api_settings,
    result,
    running_api,
    save,
    turn,
)
from tests.web.signed_in import csrf_in
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.judge.runner import ABANDONED
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import CHECK, AlertKey, AlertStore
from turncheck.worker.store.labels import LabelTable

CHECK_NAME = "no-competitors"
AGENT = "support-bot"
PAGE = f"/ui/checks/{AGENT}/{CHECK_NAME}"
SVG = "{http://www.w3.org/2000/svg}"
BANNED = "The text contains a banned phrase."


@pytest.fixture
async def ui(store: Store, database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A signed-in client of the pages, times in Berlin, turns linked to a chat site."""
    settings = api_settings(
        database_url,
        alert_timezone="Europe/Berlin",
        turn_url="https://chat.example.com/t/{turn_id}",
    )
    async with running_api(settings, store) as client:
        signed = await client.post("/ui/sign-in", data={"token": TOKEN, "next": PAGE})
        assert signed.status_code == 303
        yield client


def at(minutes: int, **overrides: Any) -> dict[str, Any]:
    """A turn's fields: created ``minutes`` after 2026-11-29 10:00 UTC."""
    moment = f"2026-11-29T10:{minutes:02d}:00Z"
    return {"created_at": moment, **overrides}


async def errored(store: Store, turn_id: str, reason: str) -> None:
    errored_result = CheckResult(
        CheckId(CHECK_NAME, "v1", "does_not_contain", "output", "block"),
        Verdict.ERRORED,
        reason=reason,
    )
    await store.writer.save(
        [TurnResults(turn(turn_id, **at(30)), [errored_result], RETENTION)], API_NOW
    )


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(found) for found in re.findall(r"<svg.*?</svg>", html, re.S)]


def count(html: str, name: str) -> int:
    found = re.search(rf'id="count-{name}">(\d+)<', html)
    assert found, name
    return int(found.group(1))


def failed_turns(html: str) -> list[str]:
    return re.findall(r'<a href="/ui/turns/[^"]+">([^<]+)</a>', html)


async def test_the_page_shows_both_charts_counts_and_reasons(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Three passed, two failed, one errored by the check and one not judged are counted
    apart; the reasons are listed with their counts; two charts are drawn in Berlin time."""
    await save(store, [turn(f"p-{i}", **at(i)) for i in range(3)], [(CHECK_NAME, Verdict.PASSED)])
    await save(
        store, [turn(f"f-{i}", **at(10 + i)) for i in range(2)], [(CHECK_NAME, Verdict.FAILED)]
    )
    await errored(store, "e-check", "The pattern timed out.")
    await errored(store, "e-worker", ABANDONED)

    shown = await ui.get(PAGE)

    assert shown.status_code == 200, shown.text
    html = shown.text
    assert (count(html, "passed"), count(html, "failed")) == (3, 2)
    assert (count(html, "errored"), count(html, "not-judged"), count(html, "total")) == (1, 1, 7)
    assert re.search(rf"{re.escape(BANNED)}</td><td class=\"num\">2<", html)
    assert "The pattern timed out." in html
    charts = svgs(html)
    assert len(charts) == 2
    assert all("Europe/Berlin" in (c.findtext(SVG + "desc") or "") for c in charts)
    assert "<details>" in html and "no results" in html


async def test_failed_turns_are_paged_newest_first_with_their_links(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Thirty failures come 25 then 5, newest turn first, none twice; each row links to
    the turn page and the conversation and shows the time in Berlin."""
    turns = [turn(f"t-{i:02d}", **at(i)) for i in range(30)]
    await save(store, turns, [(CHECK_NAME, Verdict.FAILED)])

    first = (await ui.get(PAGE)).text
    page_one = failed_turns(first)
    assert page_one == [f"t-{i:02d}" for i in range(29, 4, -1)]
    assert "https://chat.example.com/t/t-29" in first
    assert "2026-11-29 11:29:00" in first  # 10:29 UTC in Berlin
    older = re.search(r'href="([^"]+)" rel="next"', first)
    assert older
    second = (await ui.get(older.group(1).replace("&amp;", "&"))).text
    assert failed_turns(second) == [f"t-{i:02d}" for i in range(4, -1, -1)]
    assert 'rel="next"' not in second and "Newest failures" in second


async def test_a_label_is_set_and_cleared_from_the_page(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """False alarm from the row's form lands on the result through the store's labels,
    then 303 back to the same view; clear removes it."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.FAILED)])
    html = (await ui.get(f"{PAGE}?days=7&split=agent_version")).text
    form = {"csrf_token": csrf_in(html), "turn_id": "t-1", "days": "7", "split": "agent_version"}

    marked = await ui.post(f"{PAGE}/label", data={**form, "label": "false_alarm"})

    assert marked.status_code == 303
    assert marked.headers["location"] == f"{PAGE}?days=7&split=agent_version#failures"
    labels = await LabelTable(store.database).export(check=CHECK_NAME)
    assert [(lb.turn_id, lb.label) for lb in labels] == [("t-1", "false_alarm")]
    assert "false alarm</span>" in (await ui.get(marked.headers["location"])).text

    cleared = await ui.post(f"{PAGE}/label", data={**form, "label": "clear"})
    assert cleared.status_code == 303
    assert await LabelTable(store.database).export(check=CHECK_NAME) == []


async def test_a_label_without_the_csrf_token_is_refused(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """A form posted without this session's token is a 403 page and labels nothing."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.FAILED)])
    refused = await ui.post(f"{PAGE}/label", data={"turn_id": "t-1", "label": "confirmed"})
    assert refused.status_code == 403 and "<html" in refused.text
    assert await LabelTable(store.database).export() == []


async def test_labelling_what_did_not_fail_or_does_not_exist_is_an_error_page(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """A passed result is a 409 page saying only failed results take labels; a turn
    without a result of the check is a 404 page."""
    await save(store, [turn("t-ok", **at(1))], [(CHECK_NAME, Verdict.PASSED)])
    token = csrf_in((await ui.get(PAGE)).text)
    form = {"csrf_token": token, "label": "confirmed"}

    passed = await ui.post(f"{PAGE}/label", data={**form, "turn_id": "t-ok"})
    assert passed.status_code == 409 and "only a failed result can be labelled" in passed.text
    missing = await ui.post(f"{PAGE}/label", data={**form, "turn_id": "nope"})
    assert missing.status_code == 404 and "no stored result of that check" in missing.text


async def test_split_by_agent_version_draws_a_line_per_version(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Agent versions 7 and 10 are two lines in each chart, 7 first."""
    for version in (10, 7):
        agent = {"id": AGENT, "version": version, "model": "m"}
        await save(
            store,
            [turn(f"t-{version}", **at(version, agent=agent))],
            [(CHECK_NAME, Verdict.PASSED)],
        )

    html = (await ui.get(f"{PAGE}?split=agent_version")).text

    for chart in svgs(html):
        lines = [
            p.get("data-series") for p in chart.iter(SVG + "path") if p.get("class") == "series"
        ]
        assert lines == ["agent version 7", "agent version 10"]
    single = svgs((await ui.get(PAGE)).text)[0]
    assert [
        p.get("data-series") for p in single.iter(SVG + "path") if p.get("class") == "series"
    ] == ["all results"]


async def test_split_by_check_version_draws_a_line_per_version_oldest_first(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """Results of check versions v1 (older) and v2 are a line each, v1 first."""
    for turn_id, version, hour in (
        ("t-old", "v1", "2026-11-29T08:00:00Z"),
        ("t-new", "v2", "2026-11-29T10:00:00Z"),
    ):
        batch = [
            TurnResults(
                turn(turn_id, created_at=hour),
                [result(CHECK_NAME, Verdict.PASSED, version)],
                RETENTION,
            )
        ]
        await store.writer.save(batch, API_NOW)

    for chart in svgs((await ui.get(f"{PAGE}?split=check_version")).text):
        lines = [
            p.get("data-series") for p in chart.iter(SVG + "path") if p.get("class") == "series"
        ]
        assert lines == ["check version v1", "check version v2"]


async def test_a_day_an_alert_went_out_is_marked(ui: httpx.AsyncClient, store: Store) -> None:
    """An alert of the check sent on the 29th marks that day in both charts."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.FAILED)])
    alerts = AlertStore(store.database)
    key = AlertKey(CHECK, CHECK_NAME, AGENT, date(2026, 11, 29))
    await alerts.raise_alert(
        key, snapshot="s", channels=["slack"], now=API_NOW, give_up_at=API_NOW + timedelta(hours=1)
    )
    for due in await alerts.due(API_NOW):
        await alerts.delivered(due, API_NOW)

    charts = svgs((await ui.get(PAGE)).text)

    for chart in charts:
        days = [
            e.get("data-day") for e in chart.iter(SVG + "rect") if e.get("class") == "alert-day"
        ]
        assert days == ["2026-11-29"]


async def test_an_unknown_check_or_agent_is_a_404_page(ui: httpx.AsyncClient, store: Store) -> None:
    """A check or agent with no stored results is a 404 page, not an empty one."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.PASSED)])
    for path in (f"/ui/checks/{AGENT}/nope", f"/ui/checks/other-bot/{CHECK_NAME}"):
        shown = await ui.get(path)
        assert shown.status_code == 404 and "No results of this check" in shown.text


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("days=0", "days"),
        ("days=abc", "days"),
        ("days=91", "days"),
        ("days=%C2%B2", "days"),
        ("split=both", "split"),
        ("cursor=zzz", "cursor"),
    ],
)
async def test_a_bad_parameter_is_a_400_page_naming_it(
    ui: httpx.AsyncClient, store: Store, query: str, named: str
) -> None:
    """days out of 1-90, an unknown split or a cursor the page did not give: a 400 page
    whose sentence starts with the parameter's name."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.PASSED)])
    shown = await ui.get(f"{PAGE}?{query}")
    assert shown.status_code == 400
    assert f'role="alert">{named} ' in shown.text


async def test_an_agent_id_with_a_slash_has_its_page_and_labels(
    ui: httpx.AsyncClient, store: Store
) -> None:
    """An agent id holding ``/`` is written ``%2F`` in the page's address; its page shows
    and a label set from it comes back to it."""
    agent = {"id": "team/bot", "version": 1, "model": "m"}
    await save(store, [turn("t-1", **at(1, agent=agent))], [(CHECK_NAME, Verdict.FAILED)])
    path = f"/ui/checks/team%2Fbot/{CHECK_NAME}"

    shown = await ui.get(path)

    assert shown.status_code == 200 and failed_turns(shown.text) == ["t-1"]
    form = {"csrf_token": csrf_in(shown.text), "turn_id": "t-1", "label": "confirmed"}
    marked = await ui.post(f"{path}/label", data=form)
    assert marked.status_code == 303
    assert marked.headers["location"].startswith(f"{path}?days=30&split=none")


async def test_a_nul_in_the_address_is_a_400_page(ui: httpx.AsyncClient, store: Store) -> None:
    """A NUL in the check's name is refused with a page before the store is asked, which
    on PostgreSQL could not even compare it."""
    await save(store, [turn("t-1", **at(1))], [(CHECK_NAME, Verdict.PASSED)])
    shown = await ui.get(f"/ui/checks/{AGENT}/no%00pe")
    assert shown.status_code == 400 and 'role="alert">check must not contain' in shown.text
