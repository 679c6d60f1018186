"""Without a token the API answers only requests addressed to a loopback name, so a web
page cannot reach it by DNS rebinding; with a token any Host is answered."""

from __future__ import annotations

import pytest

from tests.api.conftest import AUTH, api_settings, running_api, save, turn
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store

FORGED = ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example"]


@pytest.mark.parametrize("host", FORGED)
async def test_without_a_token_a_rebound_page_can_neither_erase_nor_read(
    store: Store, database_url: str, host: str
) -> None:
    """A request naming another host is a 421 with a JSON error, and deletes nothing."""
    await save(store, [turn("t-1", person_id="p-7")], [("c", Verdict.FAILED)])
    settings = api_settings(database_url, api_token=None)
    async with running_api(settings, store) as api:
        for method, path in [
            ("DELETE", "/v1/persons/p-7"),
            ("GET", "/v1/turns/t-1/results"),
            ("GET", "/readyz"),
        ]:
            response = await api.request(method, path, headers={"Host": host})
            assert response.status_code == 421, (method, path, response.text)
            assert "TURNCHECK_API_TOKEN" in response.json()["error"]
            assert host not in response.text
        kept = await api.get("/v1/turns/t-1/results")
    assert kept.status_code == 200
    assert [r["turn_id"] for r in kept.json()["results"]] == ["t-1"]


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost:8080", "LocalHost:1", "127.0.0.1:8080", "127.0.0.2", "[::1]:8080"],
)
async def test_without_a_token_loopback_names_are_answered(
    store: Store, database_url: str, host: str
) -> None:
    """localhost, 127.0.0.0/8 and [::1], with any port, are answered as before."""
    async with running_api(api_settings(database_url, api_token=None), store) as api:
        response = await api.get("/v1/pass-rates", headers={"Host": host})
    assert response.status_code == 200, response.text


async def test_with_a_token_any_host_is_answered(store: Store, database_url: str) -> None:
    """With a token (behind a proxy, say) the token is the guard, whatever the Host."""
    async with running_api(api_settings(database_url), store) as api:
        response = await api.get("/v1/pass-rates", headers={**AUTH, "Host": "turncheck.example"})
        refused = await api.get("/v1/pass-rates", headers={"Host": "turncheck.example"})
    assert response.status_code == 200, response.text
    assert refused.status_code == 401
