"""The backtests pages, on a real uvicorn: a backtest started from a pasted or uploaded
draft, followed on its page to its report and its comparison with the live check; a bad
draft shown again with where it is wrong; the form's CSRF token; an unknown id."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import (
    API_NOW,
    api_settings,
    running_api,
    save,
    store_finished_backtest,
    turn,
)
from tests.api.test_backtests import (
    BAD_DRAFT,
    DRAFT,
    WAIT_S,
    Gate,
    create_topic,
    gated_app,
)
from tests.factories import turn_bytes
from tests.kafka.backends import RealBackend
from tests.web.signed_in import csrf_in, sign_in
from turncheck.worker.backtest import Report
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store
from turncheck.worker.store.backtests import INTERRUPTED, BacktestTable


@pytest.fixture
async def ui(store: Store, database_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """Signed in to the pages of an API whose turns file holds 30 turns, 10 naming HelpCo;
    the live check no-helpco passed on t-0 and t-1 (t-0 names HelpCo: newly failing)."""
    turns = tmp_path / "turns.jsonl"
    lines = [turn_bytes(f"t-{i}", "Try HelpCo." if i % 3 == 0 else "Done.") for i in range(30)]
    turns.write_bytes(b"\n".join(lines) + b"\n")
    await save(store, [turn("t-0"), turn("t-1")], [("no-helpco", Verdict.PASSED)])
    settings = api_settings(database_url, turns_file=turns)
    async with running_api(settings, store) as client:
        await sign_in(client)
        yield client


async def start(ui: httpx.AsyncClient, **files: tuple[str, bytes, str]) -> httpx.Response:
    token = csrf_in((await ui.get("/ui/backtests")).text)
    data = {"csrf_token": token, "checks": "" if files else DRAFT, "limit": ""}
    return await ui.post("/ui/backtests", data=data, files=files or {"none": ("", b"", "")})


async def ended(ui: httpx.AsyncClient, path: str) -> str:
    """The backtest's page once it no longer refreshes itself, polled as a browser would."""
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while True:
        html = (await ui.get(path)).text
        if 'http-equiv="refresh"' not in html:
            return html
        assert asyncio.get_running_loop().time() < deadline, html
        await asyncio.sleep(0.1)


def cells(html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", html, re.S)
    ]


async def test_a_pasted_draft_runs_and_its_page_shows_the_report_and_the_comparison(
    ui: httpx.AsyncClient,
) -> None:
    """303 to the backtest's page, which refreshes itself until done, then shows the check's
    counts and rates, its reason, example turns linked to their pages, and the live check's
    newly failing turn."""
    response = await start(ui)
    assert response.status_code == 303, response.text
    path = response.headers["location"]
    assert path.startswith("/ui/backtests/bt")

    html = await ended(ui, path)

    assert '<span class="state passed">done</span>' in html
    assert "· 30 turns read" in html  # a file's turns are not known beforehand
    row = cells(html)
    assert row[:8] == [
        "support-bot",
        "no-helpco",
        "does_not_contain",
        "30",
        "10",
        "33.3%",
        "0",
        "0.0%",
    ]
    assert 'href="/ui/turns/t-0"' in html and 'href="/ui/turns/t-3"' in html
    assert "Newly failing" in html
    newly_failing = html.split("Newly failing", 1)[1].split("</tr>", 1)[0]
    assert cells(newly_failing)[:1] == ["1"] and "/ui/turns/t-0" in newly_failing
    unchanged = html.split("Unchanged", 1)[1].split("</tr>", 1)[0]
    assert cells(unchanged)[:1] == ["1"]
    listed = (await ui.get("/ui/backtests")).text
    assert path in listed and "support-bot / no-helpco" in listed and "UTC" in listed


async def test_an_uploaded_draft_runs_like_a_pasted_one(ui: httpx.AsyncClient) -> None:
    """The file chosen in the form is the draft backtested."""
    response = await start(ui, file=("draft.yaml", DRAFT.encode(), "application/yaml"))
    assert response.status_code == 303, response.text

    html = await ended(ui, response.headers["location"])

    assert '<span class="state passed">done</span>' in html
    assert cells(html)[:5] == ["support-bot", "no-helpco", "does_not_contain", "30", "10"]


async def test_a_bad_draft_is_shown_again_with_its_line_check_and_field(
    ui: httpx.AsyncClient,
) -> None:
    """422, the loader's sentence and where, and the pasted text kept in the form."""
    token = csrf_in((await ui.get("/ui/backtests")).text)
    response = await ui.post(
        "/ui/backtests",
        data={"csrf_token": token, "checks": BAD_DRAFT},
        files={"none": ("", b"", "")},
    )

    assert response.status_code == 422
    assert "Line 6, check <code>no-ids</code>, field <code>flags" in response.text
    assert "draft:6: check &#39;no-ids&#39;" in response.text
    assert "TCK-[0-9]{6}" in response.text and "sideways" in response.text

    not_yaml = "agent: support-bot\nchecks: [unclosed\n"
    response = await ui.post(
        "/ui/backtests",
        data={"csrf_token": token, "checks": not_yaml},
        files={"none": ("", b"", "")},
    )
    assert response.status_code == 422
    assert "not valid YAML" in response.text and "checks: [unclosed" in response.text


async def test_bad_options_are_refused_with_a_sentence(ui: httpx.AsyncClient) -> None:
    """A limit that is not a number is 400; since without a broker is 400 naming it."""
    token = csrf_in((await ui.get("/ui/backtests")).text)
    for extra, words in (({"limit": "many"}, "Limit must be"), ({"since": "2d"}, "Since is for")):
        data = {"csrf_token": token, "checks": DRAFT, **extra}
        response = await ui.post("/ui/backtests", data=data, files={"none": ("", b"", "")})
        assert response.status_code == 400, response.text
        assert words in response.text


async def test_a_draft_too_large_is_413(ui: httpx.AsyncClient) -> None:
    """Past 256 KiB of draft, pasted or uploaded, the form says so and keeps what was pasted."""
    token = csrf_in((await ui.get("/ui/backtests")).text)
    big = DRAFT + "#" * (257 * 1024)
    uploaded = await ui.post(
        "/ui/backtests",
        data={"csrf_token": token},
        files={"file": ("big.yaml", big.encode(), "text/plain")},
    )
    pasted = await ui.post(
        "/ui/backtests", data={"csrf_token": token, "checks": big}, files={"none": ("", b"", "")}
    )

    for response in (uploaded, pasted):
        assert response.status_code == 413
        assert "larger than 256 KiB" in response.text
    assert "#" * 1000 in pasted.text


async def test_starting_a_backtest_needs_the_form_s_csrf_token(ui: httpx.AsyncClient) -> None:
    """A post without the session's token is 403 and queues nothing."""
    response = await ui.post(
        "/ui/backtests",
        data={"csrf_token": "forged", "checks": DRAFT},
        files={"none": ("", b"", "")},
    )
    assert response.status_code == 403
    assert "No backtest yet." in (await ui.get("/ui/backtests")).text


@pytest.mark.parametrize("backtest_id", ["bt_nope", "x" * 41])
async def test_an_unknown_backtest_is_a_404_page(ui: httpx.AsyncClient, backtest_id: str) -> None:
    """An HTML page saying so, not JSON."""
    response = await ui.get(f"/ui/backtests/{backtest_id}")
    assert response.status_code == 404
    assert "There is no backtest with this id." in response.text


async def test_a_running_backtest_s_page_refreshes_itself_and_shows_its_progress(
    store: Store, database_url: str
) -> None:
    """While it runs: a meta refresh and the turns read so far; once done, neither."""
    settings, gate = api_settings(database_url), Gate()
    async with running_api(settings, store, app=gated_app(settings, store, gate)) as client:
        await sign_in(client)
        path = (await start(client)).headers["location"]
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while 'state ok">running' not in (html := (await client.get(path)).text):
            assert asyncio.get_running_loop().time() < deadline, html
            await asyncio.sleep(0.05)
        gate.release.set()
        done = await ended(client, path)

    assert '<span class="state ok">running</span>' in html
    assert '<meta http-equiv="refresh" content="2">' in html and "reloads every 2 s" in html
    assert '<span class="state passed">done</span>' in done and "reloads" not in done


async def test_a_failed_backtest_shows_why(store: Store, database_url: str) -> None:
    """A backtest its process left running is failed at the next start: its page says so,
    in the fixed sentence, and stops refreshing; its times are in the configured zone."""
    table = BacktestTable(store.database)
    started = API_NOW - timedelta(hours=1)
    await table.add("bt_dead", {}, owner="gone", now=started, lease_until=started)
    assert await table.start("bt_dead", owner="gone", now=started)

    settings = api_settings(database_url, alert_timezone="Europe/Paris")
    async with running_api(settings, store) as client:
        await sign_in(client)
        html = (await client.get("/ui/backtests/bt_dead")).text
        listed = (await client.get("/ui/backtests")).text

    assert '<span class="state failed">failed</span>' in html
    assert f"The backtest failed: {INTERRUPTED}" in html.replace("&#39;", "'")
    assert "http-equiv" not in html
    assert "created 2026-11-29 13:00:00" in html and "(Europe/Paris)" in html
    assert "<td>2026-11-29 13:00:00</td>" in listed and "Created (Europe/Paris)" in listed


async def test_a_backtest_of_a_real_topic_takes_its_partitions_and_range(
    store: Store, database_url: str, kafka_bootstrap: str
) -> None:
    """With a broker the form offers since, until and partitions, and the backtest reads
    the partitions asked."""
    topic = f"turns-{uuid.uuid4().hex[:10]}"
    await create_topic(kafka_bootstrap, topic)
    turns = [
        (f"t-{i}".encode(), turn_bytes(f"t-{i}", "Try HelpCo." if i % 3 == 0 else "Done."))
        for i in range(30)
    ]
    await RealBackend(kafka_bootstrap).produce(topic, turns)
    settings = api_settings(database_url, kafka_bootstrap=kafka_bootstrap, topic_turns=topic)
    async with running_api(settings, store) as client:
        await sign_in(client)
        form = (await client.get("/ui/backtests")).text
        assert 'name="partitions"' in form and 'name="since"' in form
        data = {"csrf_token": csrf_in(form), "checks": DRAFT, "partitions": "0-1", "since": "30d"}
        response = await client.post("/ui/backtests", data=data, files={"none": ("", b"", "")})
        assert response.status_code == 303, response.text
        html = await ended(client, response.headers["location"])

    assert '<span class="state passed">done</span>' in html, html
    assert f"from <code>kafka:{topic}</code>" in html
    assert cells(html)[:5] == ["support-bot", "no-helpco", "does_not_contain", "30", "10"]


async def test_example_turns_link_their_pages_and_their_conversations(
    store: Store, database_url: str
) -> None:
    """Each example turn links its page here and, with TURNCHECK_TURN_URL, its conversation;
    a turn id is put in the link encoded."""
    report = Report(source="file:turns.jsonl", threads={"t/1": "th-1"})
    row = report.check("support-bot", "no-helpco", "v1", "does_not_contain")
    row.examples.add("t/1")
    row.examples.add("t 2")
    await store_finished_backtest(store, "bt_links", report.as_dict())
    template = "https://chat.example.com/t/{thread_id}?turn={turn_id}"

    async with running_api(api_settings(database_url, turn_url=template), store) as client:
        await sign_in(client)
        html = (await client.get("/ui/backtests/bt_links")).text

    assert '<a href="/ui/turns/t/1" class="mono">t/1</a>' in html
    assert '<a href="/ui/turns/t%202" class="mono">t 2</a>' in html
    assert 'href="https://chat.example.com/t/th-1?turn=t%2F1" rel="noreferrer">conversation' in html
