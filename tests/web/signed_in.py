"""Helpers of the pages' tests: a real uvicorn with the web pages and a client signed in
to them with the API's token, and the CSRF token a page's forms carry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from tests.api.conftest import API_NOW, TOKEN, api_settings, running_api
from turncheck.worker.store import Store

CSRF_MARKER = 'name="csrf_token" value="'


@asynccontextmanager
async def signed_in(
    store: Store, database_url: str, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app (``settings`` over the API tests'), its clock ``API_NOW``,
    holding a session cookie."""
    async with running_api(api_settings(database_url, **settings), store, lambda: API_NOW) as ui:
        await sign_in(ui)
        yield ui


async def sign_in(client: httpx.AsyncClient) -> None:
    """Sign ``client`` in with the API's token, as a person would; its cookie jar keeps
    the session."""
    response = await client.post("/ui/sign-in", data={"token": TOKEN, "next": "/ui/"})
    assert response.status_code == 303, response.text


def csrf_in(html: str) -> str:
    """The session's CSRF token, as a page's forms carry it."""
    assert CSRF_MARKER in html, html
    return html.split(CSRF_MARKER, 1)[1].split('"', 1)[0]
