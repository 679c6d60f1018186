"""``/v1/backtests``: a draft backtested in the background of the API, over the real
broker, followed by GET from the ``backtests`` table."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests.api.conftest import API_NOW, AUTH, api_settings, running_api, store_finished_backtest
from tests.backtest.test_judging import JUDGED_DRAFT, PASS
from tests.factories import turn_bytes
from tests.judge.fake_provider import FakeProvider
from tests.kafka.backends import RealBackend
from turncheck.worker.api import create_app
from turncheck.worker.backtest import Progress, Report
from turncheck.worker.backtest.background import BacktestQueue
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.backtests import INTERRUPTED, BacktestTable

DRAFT = """agent: support-bot
checks:
  - name: no-helpco
    kind: does_not_contain
    phrases: [HelpCo]
"""
BAD_DRAFT = """agent: support-bot
checks:
  - name: no-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
    flags: [sideways]
"""
WAIT_S = 120.0
"""How long a backtest may take to end here: far more than it needs on a busy machine."""


async def finished(client: httpx.AsyncClient, backtest_id: str) -> dict[str, Any]:
    """The backtest once done or failed."""
    return await reaching(client, backtest_id, ("done", "failed"))


async def reaching(
    client: httpx.AsyncClient, backtest_id: str, statuses: tuple[str, ...]
) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while True:
        response = await client.get(f"/v1/backtests/{backtest_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["status"] in statuses:
            return body
        assert asyncio.get_running_loop().time() < deadline, body
        await asyncio.sleep(0.1)


async def create_topic(bootstrap: str, name: str, partitions: int = 2) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        await admin.close()


@pytest.fixture
async def broker_api(
    store: Store, database_url: str, kafka_bootstrap: str
) -> AsyncIterator[httpx.AsyncClient]:
    """The API over ``store``, reading a turns topic of its own on the real broker, which
    holds 30 turns, 10 of them naming HelpCo."""
    topic = f"turns-{uuid.uuid4().hex[:10]}"
    await create_topic(kafka_bootstrap, topic)
    turns = [
        (f"t-{i}".encode(), turn_bytes(f"t-{i}", "Try HelpCo." if i % 3 == 0 else "Done."))
        for i in range(30)
    ]
    await RealBackend(kafka_bootstrap).produce(topic, turns)
    settings = api_settings(database_url, kafka_bootstrap=kafka_bootstrap, topic_turns=topic)
    async with running_api(settings, store) as client:
        client.headers.update(AUTH)
        yield client


async def test_a_draft_posted_runs_in_the_background_and_its_report_is_read_back(
    broker_api: httpx.AsyncClient,
) -> None:
    """POST answers 202 at once; GET follows the backtest to its report: every turn of
    the topic read, the turns naming the phrase would fail, the draft's text not kept."""
    response = await broker_api.post("/v1/backtests", json={"checks": DRAFT, "partitions": "0-1"})
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert accepted["status"] == "queued"
    assert accepted["links"] == {"self": f"/v1/backtests/{accepted['id']}"}

    body = await finished(broker_api, accepted["id"])

    assert body["status"] == "done", body["error"]
    report = body["report"]
    assert report["totals"]["turns_read"] == 30
    assert sorted(report["totals"]["partitions"]) == [0, 1]
    (row,) = report["checks"]
    assert (row["check"], row["turns_read"], row["would_fail"]) == ("no-helpco", 30, 10)
    assert body["progress"]["turns_read"] == 30
    assert body["options"]["draft"]["checks"][0]["check"] == "no-helpco"
    assert "HelpCo" not in str(body["options"])
    listed = (await broker_api.get("/v1/backtests")).json()["backtests"]
    assert [(b["id"], b["status"], b["report"]) for b in listed] == [(accepted["id"], "done", None)]


async def test_a_bad_draft_is_422_naming_its_line_check_and_field(api: httpx.AsyncClient) -> None:
    """The loader's refusal, as the command line words it, with where it is."""
    response = await api.post("/v1/backtests", json={"checks": BAD_DRAFT})

    assert response.status_code == 422
    body = response.json()
    assert (body["line"], body["check"]) == (6, "no-ids")
    assert body["field"].startswith("flags")
    assert body["error"].startswith("draft:6: check 'no-ids': field 'flags")


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"since": "yesterday"}, "since"),
        ({"since": "2d", "until": "3d"}, "until"),
        ({"partitions": "5-1"}, "partitions"),
        ({"partitions": "a"}, "partitions"),
        ({"since": "2d"}, "since"),  # no broker here: the turns file is read whole
        ({"limit": 0}, "limit"),
        ({"max_judgements": 0}, "max_judgements"),
        ({"sideways": True}, "sideways"),
        ({"checks": "agent: a\nchecks:\n  - &x {name: a}\n"}, None),
        ({"checks": 'agent: a\nchecks:\n  - {name: j, kind: judge, template: "/etc/x"}\n'}, None),
    ],
)
async def test_bad_options_are_a_4xx_naming_them(
    api: httpx.AsyncClient, options: dict[str, Any], named: str | None
) -> None:
    """Never a 500, never a backtest queued."""
    response = await api.post("/v1/backtests", json={"checks": DRAFT, **options})

    assert response.status_code == 422, response.text
    if named is not None:
        assert repr(named) in response.json()["error"]
    assert (await api.get("/v1/backtests")).json()["backtests"] == []


async def test_judge_without_judges_configured_is_422(api: httpx.AsyncClient) -> None:
    """Asking to judge a judged check with no judge configured names TURNCHECK_JUDGES."""
    draft = DRAFT + "  - {name: polite, kind: judge, criteria: polite_tone, mode: background}\n"
    response = await api.post("/v1/backtests", json={"checks": draft, "judge": True})

    assert response.status_code == 422
    assert "TURNCHECK_JUDGES" in response.json()["error"]


async def test_an_unknown_backtest_is_404(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/backtests/bt_nothing")

    assert (response.status_code, response.json()) == (404, {"error": "no such backtest"})


async def test_backtests_need_the_token(store: Store, database_url: str) -> None:
    """The API's bearer token guards starting, listing and reading backtests."""
    async with running_api(api_settings(database_url), store) as client:
        for method, path in [
            ("POST", "/v1/backtests"),
            ("GET", "/v1/backtests"),
            ("GET", "/v1/backtests/bt_1"),
        ]:
            response = await client.request(method, path, json={"checks": DRAFT})
            assert response.status_code == 401, (method, path)
        assert (await client.get("/v1/backtests")).status_code == 401


class Gate:
    """An engine that runs until released, reporting progress meanwhile."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.runs = 0

    def __call__(self, request: Any, settings: Settings, *, progress: Any) -> Report:
        self.runs += 1
        while not self.release.wait(0.05):
            progress(Progress(self.runs, None, 0.0))
        return Report(source="gate", turns_read=self.runs)


def gated_app(settings: Settings, store: Store, gate: Gate) -> Any:
    app = create_app(settings, store, clock=lambda: API_NOW)
    queue = BacktestQueue(settings, BacktestTable(store.database), lambda: API_NOW, runner=gate)
    app.state.turncheck = replace(app.state.turncheck, backtests=queue)
    return app


async def test_a_second_backtest_waits_queued_until_the_first_is_done(
    store: Store, database_url: str
) -> None:
    """One at a time per process: the second stays queued while the first runs, then runs."""
    settings, gate = api_settings(database_url), Gate()
    async with running_api(settings, store, app=gated_app(settings, store, gate)) as client:
        client.headers.update(AUTH)
        first = (await client.post("/v1/backtests", json={"checks": DRAFT})).json()["id"]
        await reaching(client, first, ("running",))
        second = (await client.post("/v1/backtests", json={"checks": DRAFT})).json()["id"]
        await asyncio.sleep(0.5)  # time it would need to start, were it not queued

        assert (await client.get(f"/v1/backtests/{second}")).json()["status"] == "queued"
        assert gate.runs == 1

        gate.release.set()
        done = [await finished(client, first), await finished(client, second)]

    assert [b["status"] for b in done] == ["done", "done"]
    assert [b["report"]["totals"]["turns_read"] for b in done] == [1, 2]


async def test_a_backtest_left_running_by_a_stopped_process_is_marked_failed_at_start(
    store: Store, database_url: str
) -> None:
    """Its lease ran out: the next process to start says it was interrupted."""
    table = BacktestTable(store.database)
    started = API_NOW - timedelta(hours=1)
    await table.add("bt_dead", {}, owner="gone", now=started, lease_until=started)
    assert await table.start("bt_dead", owner="gone", now=started)

    async with running_api(api_settings(database_url), store) as client:
        body = (await client.get("/v1/backtests/bt_dead", headers=AUTH)).json()

    assert (body["status"], body["error"]) == ("failed", INTERRUPTED)


async def test_stopping_the_api_fails_its_running_and_queued_backtests(
    store: Store, database_url: str
) -> None:
    """A stop ends the backtest running at its next progress report and the queued ones:
    both say interrupted, neither stays running for ever."""
    settings, gate = api_settings(database_url), Gate()
    async with running_api(settings, store, app=gated_app(settings, store, gate)) as client:
        client.headers.update(AUTH)
        running = (await client.post("/v1/backtests", json={"checks": DRAFT})).json()["id"]
        await reaching(client, running, ("running",))
        queued = (await client.post("/v1/backtests", json={"checks": DRAFT})).json()["id"]

    table = BacktestTable(store.database)
    for backtest_id in (running, queued):
        row = await table.get(backtest_id)
        assert row is not None
        assert (row.status, row.error) == ("failed", INTERRUPTED)


async def test_a_judged_backtest_shows_its_estimate_and_keeps_to_its_cap(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    """`judge: true` over the API: the estimate is in the row, the judge is asked exactly
    `max_judgements` times, the rest are counted not judged."""
    turns = tmp_path / "turns.jsonl"
    turns.write_bytes(b"\n".join(turn_bytes(f"t-{i}", "Done.") for i in range(5)) + b"\n")
    with FakeProvider() as judge:
        judge.responder = lambda _: PASS
        judges = {"fake": {"provider": "openai", "base_url": judge.openai_url}}
        settings = api_settings(database_url, turns_file=turns, judges=json.dumps(judges))
        async with running_api(settings, store) as client:
            client.headers.update(AUTH)
            body = {"checks": JUDGED_DRAFT, "judge": True, "max_judgements": 2}
            accepted = (await client.post("/v1/backtests", json=body)).json()
            done = await finished(client, accepted["id"])
        asked = len(judge.requests)

    assert done["status"] == "done", done["error"]
    assert (done["estimate"]["turns_in_range"], done["estimate"]["judgements"]) == (5, 2)
    assert done["options"]["max_judgements"] == 2
    polite = next(row for row in done["report"]["checks"] if row["check"] == "polite")
    assert (asked, polite["turns_read"], polite["not_judged_cap"]) == (2, 2, 3)


async def test_a_report_s_example_turns_are_linked_by_the_answering_server(
    store: Store, database_url: str
) -> None:
    """GET links the report's example turns with the TURNCHECK_TURN_URL of the process that
    answers (``turn_urls``), and gives ``{}`` without it."""
    report = Report(source="file:turns.jsonl", threads={"t/1": "th-1"})
    row = report.check("support-bot", "no-helpco", "v1", "does_not_contain")
    row.examples.add("t/1")
    row.examples.add("t-2")
    await store_finished_backtest(store, "bt_links", report.as_dict())
    template = "https://chat.example.com/t/{thread_id}?turn={turn_id}"

    async with running_api(api_settings(database_url, turn_url=template), store) as client:
        linked = (await client.get("/v1/backtests/bt_links", headers=AUTH)).json()
    async with running_api(api_settings(database_url), store) as client:
        unlinked = (await client.get("/v1/backtests/bt_links", headers=AUTH)).json()

    assert linked["report"]["turn_urls"] == {"t/1": "https://chat.example.com/t/th-1?turn=t%2F1"}
    assert unlinked["report"]["turn_urls"] == {}
