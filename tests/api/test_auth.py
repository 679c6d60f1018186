"""The token guards /v1 and /metrics; health, readiness and the documents stay open."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.api.conftest import TOKEN, api_settings, running_api
from turncheck.worker.api import check_api_settings
from turncheck.worker.api.auth import token_matches
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store import Store

GUARDED = [
    ("GET", "/v1/pass-rates"),
    ("GET", "/v1/checks/c/results"),
    ("GET", "/v1/turns/t-1/results"),
    ("GET", "/v1/alerts"),
    ("DELETE", "/v1/persons/p-1"),
    ("GET", "/metrics"),
]
OPEN = ["/healthz", "/readyz", "/openapi.json", "/asyncapi.json"]


@pytest.fixture
async def anonymous(store: Store, database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with running_api(api_settings(database_url), store) as client:
        yield client


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ],
    ids=["none", "wrong", "not-bearer", "longer"],
)
async def test_a_request_without_the_token_is_401_with_a_bearer_challenge(
    anonymous: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    for method, path in GUARDED:
        response = await anonymous.request(method, path, headers=headers)
        assert response.status_code == 401, (method, path)
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json() == {"error": "missing or wrong bearer token"}


async def test_the_token_opens_every_guarded_path(anonymous: httpx.AsyncClient) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    for method, path in GUARDED:
        response = await anonymous.request(method, path, headers=headers)
        assert response.status_code in (200, 404), (method, path, response.text)


async def test_health_readiness_and_documents_need_no_token(anonymous: httpx.AsyncClient) -> None:
    for path in OPEN:
        assert (await anonymous.get(path)).status_code == 200, path


async def test_without_a_configured_token_the_api_is_open(store: Store, database_url: str) -> None:
    """Allowed on loopback only (see check_api_settings)."""
    async with running_api(api_settings(database_url, api_token=None), store) as client:
        assert (await client.get("/v1/pass-rates")).status_code == 200


def test_tokens_are_compared_whole() -> None:
    assert token_matches("abc", "abc")
    assert not token_matches("abc", "ab")
    assert not token_matches("abc", "abcd")
    assert not token_matches("abc", "")


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_no_token_is_allowed_on_a_loopback_host(host: str) -> None:
    assert "without a token" in check_api_settings(
        api_settings("sqlite://", api_token=None, api_host=host)
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "::", "api.internal"])
def test_no_token_is_refused_on_any_other_host(host: str) -> None:
    with pytest.raises(ConfigurationError, match="TURNCHECK_API_TOKEN"):
        check_api_settings(api_settings("sqlite://", api_token=None, api_host=host))
    assert check_api_settings(api_settings("sqlite://", api_host=host)) == f"api on {host}:8080"
