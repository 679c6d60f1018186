"""Helpers of the pages' tests: sign in as a person would, and read a page's CSRF token."""

from __future__ import annotations

import httpx

from tests.api.conftest import TOKEN

CSRF_MARKER = 'name="csrf_token" value="'


async def sign_in(client: httpx.AsyncClient) -> None:
    """Sign ``client`` in with the API's token; its cookie jar keeps the session."""
    response = await client.post("/ui/sign-in", data={"token": TOKEN, "next": "/ui/"})
    assert response.status_code == 303, response.text


def csrf_of(html: str) -> str:
    """The CSRF token of the first form on the page."""
    assert CSRF_MARKER in html, html
    return html.split(CSRF_MARKER, 1)[1].split('"', 1)[0]
