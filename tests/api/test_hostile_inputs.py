"""Every input the database cannot hold or compare is a 4xx naming the parameter, with a
JSON body, on SQLite and PostgreSQL alike: never a 500."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import save, turn
from tests.api.test_results import cursor_of
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store

EARLY = "0001-01-01T00:00:00+14:00"
"""Before the year 1 once in UTC."""
LATE = "9999-12-31T23:59:59-14:00"
"""After the year 9999 once in UTC."""
RESULTS = "/v1/checks/c/results"


NOW = "2026-11-29T12:00:00+00:00"
HOSTILE = [
    pytest.param("GET", "/v1/turns/t%001/results", {}, "turn_id", id="nul-turn-id"),
    pytest.param("DELETE", "/v1/persons/p%007", {}, "person_id", id="nul-person-id"),
    pytest.param("GET", "/v1/checks/c%00/results", {}, "name", id="nul-check-name"),
    pytest.param("GET", RESULTS, {"agent": "a\x00"}, "agent", id="nul-agent"),
    pytest.param("GET", "/v1/pass-rates", {"check": "c\x00"}, "check", id="nul-rates-check"),
    pytest.param("GET", "/v1/pass-rates", {"agent": "a\x00"}, "agent", id="nul-rates-agent"),
    pytest.param(
        "GET", "/v1/pass-rates", {"agent_version": "7\x00"}, "agent_version", id="nul-version"
    ),
    pytest.param("GET", "/v1/alerts", {"check": "c\x00"}, "check", id="nul-alerts-check"),
    pytest.param("DELETE", "/v1/persons/", {}, "person_id", id="empty-person-id"),
    pytest.param("GET", "/v1/pass-rates", {"since": EARLY}, "since", id="rates-early-since"),
    pytest.param("GET", "/v1/pass-rates", {"until": LATE}, "until", id="rates-late-until"),
    pytest.param("GET", RESULTS, {"since": EARLY}, "since", id="results-early-since"),
    pytest.param("GET", RESULTS, {"until": LATE}, "until", id="results-late-until"),
    pytest.param("GET", "/v1/alerts", {"since": EARLY}, "since", id="alerts-early-since"),
    pytest.param(
        "GET", RESULTS, {"cursor": cursor_of([2, EARLY, 1, 0])}, "cursor", id="cursor-early"
    ),
    pytest.param(
        "GET",
        RESULTS,
        {"cursor": cursor_of([2, NOW, 2**63, 0])},
        "cursor",
        id="cursor-write-id-above-int64",
    ),
    pytest.param(
        "GET",
        RESULTS,
        {"cursor": cursor_of([2, NOW, 1, -(2**31) - 1])},
        "cursor",
        id="cursor-position-below-int32",
    ),
    pytest.param(
        "GET",
        RESULTS,
        {"cursor": cursor_of([2, NOW, 1, 2**31])},
        "cursor",
        id="cursor-position-above-int32",
    ),
]


@pytest.mark.parametrize(("method", "path", "params", "names"), HOSTILE)
async def test_an_input_the_store_cannot_hold_is_a_422_naming_it(
    api: httpx.AsyncClient,
    store: Store,
    method: str,
    path: str,
    params: dict[str, str],
    names: str,
) -> None:
    """Over the real server, on a store with results in it; the value is not echoed."""
    await save(store, [turn("t-1", person_id="p-7")], [("c", Verdict.FAILED)])
    response = await api.request(method, path, params=params)
    assert response.status_code == 422, response.text
    message = response.json()["error"]
    assert f"'{names}'" in message
    assert not any(value in message for value in params.values())  # never echoed
