"""Liveness and readiness, with real services and a closed port."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import AUTH, api_settings, running_api
from tests.conftest import service
from turncheck.worker.store import Store


async def test_healthz_answers_ok(api: httpx.AsyncClient) -> None:
    response = await api.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


async def test_readyz_is_ok_when_the_database_answers(api: httpx.AsyncClient) -> None:
    response = await api.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "not configured"}


async def test_readyz_is_503_when_the_database_port_is_closed(
    store: Store, closed_port: int
) -> None:
    url = f"postgresql+asyncpg://u:secret@127.0.0.1:{closed_port}/x"
    async with running_api(api_settings(url), store) as client:
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "error": "database unavailable: connection refused",
        "database": "connection refused",
        "broker": "not configured",
    }
    assert str(closed_port) not in response.text and "secret" not in response.text


async def test_readyz_is_503_naming_the_broker_when_it_is_down(
    store: Store, database_url: str, closed_port: int
) -> None:
    settings = api_settings(database_url, kafka_bootstrap=f"127.0.0.1:{closed_port}")
    async with running_api(settings, store) as client:
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["error"] == "broker unavailable: connection refused"
    assert response.json()["database"] == "ok"


@pytest.mark.kafka
async def test_readyz_is_ok_with_the_real_broker(store: Store, database_url: str) -> None:
    settings = api_settings(database_url, kafka_bootstrap=service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))
    async with running_api(settings, store) as client:
        response = await client.get("/readyz")
    assert (response.status_code, response.json()["broker"]) == (200, "ok")


async def test_a_query_while_the_database_is_down_is_a_json_503(closed_port: int) -> None:
    down = Store.open(f"postgresql+asyncpg://u:p@127.0.0.1:{closed_port}/x", events_topic="e")
    try:
        async with running_api(api_settings("sqlite://"), down) as client:
            response = await client.get("/v1/turns/t-1/results", headers=AUTH)
    finally:
        await down.close()
    assert response.status_code == 503
    assert response.json() == {"error": "database unavailable"}


async def test_a_bug_is_a_500_whose_log_names_its_route_and_holds_no_traceback(
    store: Store,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bug answers 500 JSON and logs its route and type, and no traceback: a database
    error's message holds the query's parameters, a person id among them."""

    async def broken(turn_id: str) -> object:
        raise RuntimeError(f"[parameters: ('{turn_id}', 'canary.person@example.com')]")

    monkeypatch.setattr(store.queries, "results_for_turn", broken)
    async with running_api(api_settings(database_url), store) as client:
        client.headers.update(AUTH)
        first = await client.get("/v1/turns/t-1/results")
    assert (first.status_code, first.json()) == (500, {"error": "internal error"})
    logged = [(r.name, r.getMessage(), r.exc_info) for r in caplog.records]
    assert (
        "turncheck.worker.api.errors",
        "api request failed route=/v1/turns/{turn_id}/results error=RuntimeError",
        None,
    ) in logged
    assert not [line for line in logged if line[2] is not None or "canary" in line[1]], logged
