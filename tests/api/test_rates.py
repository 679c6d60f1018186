"""Pass rates from the hourly rollups: totals, hour and UTC-day buckets, and windows."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.conftest import RETENTION, result, save, turn
from tests.factories import FIXED_NOW
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store

C = "no-competitors"


async def seed(store: Store) -> None:
    """support-bot v7: 10:00 two passed one failed; 11:30 one errored; next day 09:00 one
    passed. v8: one failed at 10:15. sales-bot: one passed at 10:00."""
    at = "2026-11-29T{}:00Z"
    await save(
        store,
        [turn("a", created_at=at.format("10:00")), turn("b", created_at=at.format("10:05"))],
        [(C, Verdict.PASSED)],
    )
    await save(store, [turn("c", created_at=at.format("10:59"))], [(C, Verdict.FAILED)])
    await save(store, [turn("d", created_at=at.format("11:30"))], [(C, Verdict.ERRORED)])
    await save(store, [turn("e", created_at="2026-11-30T09:00:00Z")], [(C, Verdict.PASSED)])
    await save(
        store,
        [turn("f", created_at=at.format("10:15"), agent={"id": "support-bot", "version": 8})],
        [(C, Verdict.FAILED)],
    )
    await save(
        store,
        [turn("g", created_at=at.format("10:00"), agent={"id": "sales-bot", "version": 1})],
        [(C, Verdict.PASSED)],
    )


def counts(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (r["agent_id"], r["bucket_start"], r["passed"], r["failed"], r["errored"], r["total"])
        for r in rows
    ]


async def test_totals_per_check_and_agent_with_the_rate(
    api: httpx.AsyncClient, store: Store
) -> None:
    await seed(store)
    response = await api.get("/v1/pass-rates", params={"since": "2026-11-01T00:00:00Z"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["bucket"] is None and body["until"] is None
    assert counts(body["rates"]) == [
        ("sales-bot", None, 1, 0, 0, 1),
        ("support-bot", None, 3, 2, 1, 6),
    ]
    assert body["rates"][1]["pass_rate"] == 0.5
    assert body["rates"][1]["check"] == C


async def test_hour_buckets(api: httpx.AsyncClient, store: Store) -> None:
    await seed(store)
    query = {"since": "2026-11-29T00:00:00Z", "agent": "support-bot", "bucket": "hour"}
    body = (await api.get("/v1/pass-rates", params=query)).json()
    assert counts(body["rates"]) == [
        ("support-bot", "2026-11-29T10:00:00Z", 2, 2, 0, 4),
        ("support-bot", "2026-11-29T11:00:00Z", 0, 0, 1, 1),
        ("support-bot", "2026-11-30T09:00:00Z", 1, 0, 0, 1),
    ]


async def test_day_buckets_are_utc_days(api: httpx.AsyncClient, store: Store) -> None:
    await seed(store)
    query = {"since": "2026-11-29T00:00:00Z", "agent": "support-bot", "bucket": "day"}
    body = (await api.get("/v1/pass-rates", params=query)).json()
    assert counts(body["rates"]) == [
        ("support-bot", "2026-11-29T00:00:00Z", 2, 2, 1, 5),
        ("support-bot", "2026-11-30T00:00:00Z", 1, 0, 0, 1),
    ]


async def test_until_and_agent_version_narrow_the_window(
    api: httpx.AsyncClient, store: Store
) -> None:
    """Hours overlapping [since, until) count whole: until 10:30 keeps the 10:00 hour."""
    await seed(store)
    query = {
        "since": "2026-11-29T10:00:00Z",
        "until": "2026-11-29T10:30:00Z",
        "agent": "support-bot",
    }
    assert counts((await api.get("/v1/pass-rates", params=query)).json()["rates"]) == [
        ("support-bot", None, 2, 2, 0, 4)
    ]
    query["agent_version"] = "7"
    assert counts((await api.get("/v1/pass-rates", params=query)).json()["rates"]) == [
        ("support-bot", None, 2, 1, 0, 3)
    ]
    query = {"since": "2026-11-29T11:00:00Z", "until": "2026-11-30T00:00:00Z", "check": C}
    assert counts((await api.get("/v1/pass-rates", params=query)).json()["rates"]) == [
        ("support-bot", None, 0, 0, 1, 1)
    ]


async def test_since_defaults_to_seven_days_before_now(
    api: httpx.AsyncClient, store: Store
) -> None:
    await seed(store)
    await save(store, [turn("old", created_at="2026-11-20T10:00:00Z")], [(C, Verdict.FAILED)])
    body = (await api.get("/v1/pass-rates", params={"agent": "support-bot"})).json()
    assert body["since"] == "2026-11-22T13:00:00Z"  # the API's clock, 13:00, less 7 days
    assert counts(body["rates"]) == [("support-bot", None, 3, 2, 1, 6)]


async def test_an_unknown_bucket_is_422(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/pass-rates", params={"bucket": "week"})
    assert response.status_code == 422
    assert "'bucket'" in response.json()["error"]


async def test_an_until_not_after_since_is_422_naming_until(api: httpx.AsyncClient) -> None:
    for until in ("2026-11-29T10:00:00Z", "2026-11-28T10:00:00Z"):
        query = {"since": "2026-11-29T10:00:00Z", "until": until}
        response = await api.get("/v1/pass-rates", params=query)
        assert response.status_code == 422, until
        assert "'until'" in response.json()["error"] and "after since" in response.text


async def test_since_and_until_may_be_written_as_in_the_cli(
    api: httpx.AsyncClient, store: Store
) -> None:
    """``since=7d`` and ``until=1h`` count back from now, as ``turncheck pass-rates`` does."""
    await seed(store)
    await save(store, [turn("old", created_at="2026-11-20T10:00:00Z")], [(C, Verdict.FAILED)])
    query = {"agent": "support-bot", "since": "2w", "until": "25h"}  # the clock is 11-29 13:00
    body = (await api.get("/v1/pass-rates", params=query)).json()
    assert (body["since"], body["until"]) == ("2026-11-15T13:00:00Z", "2026-11-28T12:00:00Z")
    assert counts(body["rates"]) == [("support-bot", None, 0, 1, 0, 1)]
    body = (await api.get("/v1/pass-rates", params={"agent": "support-bot", "since": "3h"})).json()
    assert body["since"] == "2026-11-29T10:00:00Z"
    assert counts(body["rates"]) == [("support-bot", None, 3, 2, 1, 6)]


async def test_until_alone_counts_the_seven_days_before_it(
    api: httpx.AsyncClient, store: Store
) -> None:
    """An ``until`` older than a week ago is not refused: ``since`` is 7 days before it."""
    await seed(store)
    await save(store, [turn("old", created_at="2026-11-20T10:00:00Z")], [(C, Verdict.FAILED)])
    response = await api.get("/v1/pass-rates", params={"until": "2026-11-21T00:00:00Z"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["since"], body["until"]) == ("2026-11-14T00:00:00Z", "2026-11-21T00:00:00Z")
    assert counts(body["rates"]) == [("support-bot", None, 0, 1, 0, 1)]
    early = await api.get("/v1/pass-rates", params={"until": "0001-01-02T00:00:00Z"})
    assert early.status_code == 200, early.text
    assert early.json()["rates"] == []


async def test_split_by_check_version_and_the_versions_a_rate_covers(
    api: httpx.AsyncClient, store: Store
) -> None:
    """``split=check_version`` gives a rate per check version; every rate names the check
    and agent versions it covers and says when it mixes check versions."""
    await seed(store)
    later = turn("h", created_at="2026-11-29T12:00:00Z")
    batch = [TurnResults(later, [result(C, Verdict.FAILED, "v2")], RETENTION)]
    await store.writer.save(batch, FIXED_NOW)
    query = {"since": "2026-11-29T00:00:00Z", "agent": "support-bot"}
    [mixed] = (await api.get("/v1/pass-rates", params=query)).json()["rates"]
    assert (mixed["check_versions"], mixed["agent_versions"]) == (["v1", "v2"], ["7", "8"])
    assert mixed["mixed_versions"] is True and mixed["check_version"] is None
    body = (await api.get("/v1/pass-rates", params={**query, "split": "check_version"})).json()
    assert body["split"] == "check_version"
    assert [
        (r["check_version"], r["total"], r["mixed_versions"], r["agent_versions"])
        for r in body["rates"]
    ] == [("v1", 6, False, ["7", "8"]), ("v2", 1, False, ["7"])]
    body = (await api.get("/v1/pass-rates", params={**query, "split": "agent_version"})).json()
    assert [(r["agent_version"], r["total"], r["mixed_versions"]) for r in body["rates"]] == [
        ("7", 6, True),
        ("8", 1, False),
    ]
    assert (await api.get("/v1/pass-rates", params={"split": "agent"})).status_code == 422
