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
    response = await api.delete("/v1/persons/p-7")
    assert response.status_code == 200, response.text
    receipt = response.json()
    assert receipt["deleted"] == {"results": 2, "pending_judgements": 0, "events": 2}
    assert receipt["person_key"] == person_key(b"erasure-key-for-tests", "p-7")
    assert receipt["requested_at"] == receipt["erased_at"] == "2026-11-29T13:00:00Z"
    assert "p-7" not in response.text
    assert (await api.get("/v1/turns/t-1/results")).status_code == 404
    rows = (await api.get("/v1/checks/c/results")).json()["results"]
    assert [row["turn_id"] for row in rows] == ["t-3"]
    again = (await api.delete("/v1/persons/p-7")).json()
    assert again["deleted"] == {"results": 0, "pending_judgements": 0, "events": 0}


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
