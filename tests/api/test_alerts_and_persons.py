"""The alert history, and erasure by person."""

from __future__ import annotations

from datetime import date

import httpx

from tests.api.conftest import AUTH, api_settings, running_api, save, turn
from tests.factories import FIXED_NOW
from turncheck.worker.checks import Verdict
from turncheck.worker.retention.erasure import person_key
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertKey, AlertStore


async def test_alerts_lists_the_history_of_the_days_asked(
    api: httpx.AsyncClient, store: Store
) -> None:
    alerts = AlertStore(store.database)
    for day, check in [
        (date(2026, 11, 29), "a"),
        (date(2026, 11, 20), "b"),
        (date(2026, 11, 28), "b"),
    ]:
        key = AlertKey("check", check, "support-bot", day)
        await alerts.raise_alert(
            key, snapshot="{}", channels=["slack"], now=FIXED_NOW, give_up_at=FIXED_NOW
        )
    body = (await api.get("/v1/alerts")).json()
    assert body["since"] == "2026-11-16"
    assert [(a["day"], a["check"], a["status"], a["channel"]) for a in body["alerts"]] == [
        ("2026-11-29", "a", "pending", "slack"),
        ("2026-11-28", "b", "pending", "slack"),
        ("2026-11-20", "b", "pending", "slack"),
    ]
    body = (await api.get("/v1/alerts", params={"days": 2, "check": "b"})).json()
    assert [(a["day"], a["check"]) for a in body["alerts"]] == [("2026-11-28", "b")]
    assert (await api.get("/v1/alerts", params={"days": 0})).status_code == 422


async def test_erasing_a_person_returns_the_receipt_and_their_results_are_gone(
    api: httpx.AsyncClient, store: Store
) -> None:
    failed = [("c", Verdict.FAILED)]
    await save(store, [turn("t-1", person_id="p-7"), turn("t-2", person_id="p-7")], failed)
    await save(store, [turn("t-3", person_id="p-8")], failed)
    labelled = await api.put("/v1/turns/t-1/results/c/label", json={"label": "confirmed"})
    assert labelled.status_code == 200, labelled.text
    response = await api.delete("/v1/persons/p-7")
    assert response.status_code == 200, response.text
    receipt = response.json()
    assert receipt["deleted"] == {"results": 2, "pending_judgements": 0, "events": 2, "labels": 1}
    assert receipt["person_key"] == person_key(b"erasure-key-for-tests", "p-7")
    assert receipt["requested_at"] == receipt["erased_at"] == "2026-11-29T13:00:00Z"
    assert "p-7" not in response.text
    assert (await api.get("/v1/turns/t-1/results")).status_code == 404
    rows = (await api.get("/v1/checks/c/results")).json()["results"]
    assert [row["turn_id"] for row in rows] == ["t-3"]
    again = (await api.delete("/v1/persons/p-7")).json()
    assert again["deleted"] == {"results": 0, "pending_judgements": 0, "events": 0, "labels": 0}


async def test_erasure_without_a_key_is_503_naming_the_setting_and_erases_nothing(
    store: Store, database_url: str
) -> None:
    await save(store, [turn("t-1", person_id="p-7")], [("c", Verdict.FAILED)])
    async with running_api(api_settings(database_url, erasure_key=None), store) as client:
        response = await client.delete("/v1/persons/p-7", headers=AUTH)
    assert response.status_code == 503
    assert "TURNCHECK_ERASURE_KEY" in response.json()["error"]
    assert len(await store.queries.results_for_turn("t-1")) == 1


async def test_a_person_id_too_long_for_the_store_is_422(api: httpx.AsyncClient) -> None:
    response = await api.delete("/v1/persons/" + "p" * 201)
    assert response.status_code == 422
    assert "'person_id'" in response.json()["error"]


async def test_alerts_since_starts_at_that_utc_day(api: httpx.AsyncClient, store: Store) -> None:
    """``since`` (``3d`` or an ISO time, as in the CLI) is honoured, not ignored; giving it
    with ``days`` is a 422."""
    alerts = AlertStore(store.database)
    for day in (date(2026, 11, 29), date(2026, 11, 26), date(2026, 11, 20)):
        key = AlertKey("check", "a", "support-bot", day)
        await alerts.raise_alert(
            key, snapshot="{}", channels=["slack"], now=FIXED_NOW, give_up_at=FIXED_NOW
        )

    async def days(**query: str) -> tuple[str, list[str]]:
        response = await api.get("/v1/alerts", params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        return body["since"], [a["day"] for a in body["alerts"]]

    assert await days(since="3d") == ("2026-11-26", ["2026-11-29", "2026-11-26"])
    assert await days(since="2026-11-27T23:00:00-02:00") == ("2026-11-28", ["2026-11-29"])
    assert await days(since="2026-11-01") == (
        "2026-11-01",
        ["2026-11-29", "2026-11-26", "2026-11-20"],
    )
    both = await api.get("/v1/alerts", params={"since": "3d", "days": "2"})
    assert both.status_code == 422 and "'since'" in both.json()["error"]


async def test_ids_holding_a_slash_are_looked_up_and_erased(
    api: httpx.AsyncClient, store: Store
) -> None:
    """The contract allows ``/`` in ids: ``team/alice``'s turn ``a/b/c`` is found, written
    as is or with ``%2F``, and erased."""
    await save(store, [turn("a/b/c", person_id="team/alice")], [("c", Verdict.FAILED)])
    await save(store, [turn("a", person_id="team")], [("c", Verdict.FAILED)])
    for path in ("/v1/turns/a/b/c/results", "/v1/turns/a%2Fb%2Fc/results"):
        response = await api.get(path)
        assert response.status_code == 200, (path, response.text)
        assert response.json()["turn_id"] == "a/b/c"
        assert [r["turn_id"] for r in response.json()["results"]] == ["a/b/c"]
    erased = await api.delete("/v1/persons/team%2Falice")
    assert erased.status_code == 200, erased.text
    assert erased.json()["deleted"]["results"] == 1
    assert erased.json()["person_key"] == person_key(b"erasure-key-for-tests", "team/alice")
    assert (await api.get("/v1/turns/a/b/c/results")).status_code == 404
    assert (await api.get("/v1/turns/a/results")).status_code == 200
    again = await api.delete("/v1/persons/team/alice")
    assert again.status_code == 200 and again.json()["deleted"]["results"] == 0
