"""Signing in to the pages with the API's token, on a real uvicorn: the session cookie's
flags and lifetime, the CSRF token every form needs, and the pages without a token,
which answer on loopback only as the API does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Annotated, Any

import httpx
import pytest
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from tests.api.conftest import API_NOW, TOKEN, api_settings, running_api
from turncheck.worker.api import create_app
from turncheck.worker.clock import FixedClock
from turncheck.worker.store import Store
from turncheck.worker.web.guard import checked_form, viewer
from turncheck.worker.web.render import page
from turncheck.worker.web.session import SESSION_COOKIE, Session, read


def probe_app(settings: Any, store: Store, clock: FixedClock) -> FastAPI:
    """The app with one guarded page and one guarded form, standing for every page."""
    app = create_app(settings, store, clock=clock)
    probe = APIRouter()

    @probe.get("/ui/probe")
    async def guarded(request: Request, _: Annotated[Session, Depends(viewer)]) -> Response:
        return page(request, "error.html.j2", message="the probe page")

    @probe.post("/ui/probe")
    async def posted(request: Request, _: Annotated[FormData, Depends(checked_form)]) -> Response:
        return page(request, "error.html.j2", message="the form was taken")

    app.include_router(probe)
    return app


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(API_NOW)


@pytest.fixture
async def ui(
    store: Store, database_url: str, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    settings = api_settings(database_url)
    async with running_api(settings, store, app=probe_app(settings, store, clock)) as client:
        yield client


async def sign_in(ui: httpx.AsyncClient, token: str = TOKEN) -> httpx.Response:
    return await ui.post("/ui/sign-in", data={"token": token, "next": "/ui/probe"})


async def csrf_of(ui: httpx.AsyncClient) -> str:
    html = (await ui.get("/ui/probe")).text
    marker = 'name="csrf_token" value="'
    assert marker in html, html
    return html.split(marker, 1)[1].split('"', 1)[0]


async def test_a_visitor_without_a_session_is_sent_to_sign_in_and_back(
    ui: httpx.AsyncClient,
) -> None:
    first = await ui.get("/ui/probe?check=a")
    assert first.status_code == 303
    assert first.headers["location"] == "/ui/sign-in?next=/ui/probe%3Fcheck%3Da"
    form = await ui.get(first.headers["location"])
    assert form.status_code == 200 and 'type="password"' in form.text
    assert TOKEN not in form.text

    signed = await sign_in(ui)
    assert signed.status_code == 303 and signed.headers["location"] == "/ui/probe"
    cookie = signed.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= flags
    assert "secure" not in flags  # plain http on loopback: a Secure cookie would be dropped
    assert TOKEN not in cookie

    shown = await ui.get("/ui/probe")
    assert shown.status_code == 200 and "the probe page" in shown.text
    assert "Sign out" in shown.text


async def test_a_wrong_token_is_refused_with_a_page_and_no_cookie(ui: httpx.AsyncClient) -> None:
    wrong = await sign_in(ui, token="not-the-token")
    assert wrong.status_code == 401
    assert "not this server's token" in wrong.text
    assert "set-cookie" not in wrong.headers
    assert (await ui.get("/ui/probe")).status_code == 303


async def test_a_session_ends_after_twelve_hours(ui: httpx.AsyncClient, clock: FixedClock) -> None:
    await sign_in(ui)
    clock.advance(timedelta(hours=11, minutes=59))
    assert (await ui.get("/ui/probe")).status_code == 200
    clock.advance(timedelta(minutes=2))
    assert (await ui.get("/ui/probe")).status_code == 303


async def test_a_new_token_signs_every_session_out(store: Store, database_url: str) -> None:
    clock = FixedClock(API_NOW)
    old = api_settings(database_url)
    async with running_api(old, store, app=probe_app(old, store, clock)) as ui:
        await sign_in(ui)
        cookie = ui.cookies[SESSION_COOKIE]
    new = api_settings(database_url, api_token="another-token")
    async with running_api(new, store, app=probe_app(new, store, clock)) as ui:
        ui.cookies.set(SESSION_COOKIE, cookie)
        assert (await ui.get("/ui/probe")).status_code == 303
    again = api_settings(database_url)
    async with running_api(again, store, app=probe_app(again, store, clock)) as ui:
        ui.cookies.set(SESSION_COOKIE, cookie)  # another process, the same token: still valid
        assert (await ui.get("/ui/probe")).status_code == 200


async def test_a_forged_or_altered_cookie_is_no_session(ui: httpx.AsyncClient) -> None:
    await sign_in(ui)
    issued, nonce, signature = ui.cookies[SESSION_COOKIE].split(".")
    for forged in (f"{issued}.{nonce}.{'0' * 64}", f"{int(issued) + 3600}.{nonce}.{signature}"):
        ui.cookies.set(SESSION_COOKIE, forged)
        assert (await ui.get("/ui/probe")).status_code == 303


async def test_a_form_without_its_sessions_csrf_token_is_refused(ui: httpx.AsyncClient) -> None:
    await sign_in(ui)
    token = await csrf_of(ui)
    assert (await ui.post("/ui/probe", data={})).status_code == 403
    refused = await ui.post("/ui/probe", data={"csrf_token": "0" * 64})
    assert refused.status_code == 403 and "reload the page" in refused.text
    assert refused.headers["content-type"].startswith("text/html")
    taken = await ui.post("/ui/probe", data={"csrf_token": token})
    assert taken.status_code == 200 and "the form was taken" in taken.text


async def test_signing_out_ends_the_session(ui: httpx.AsyncClient) -> None:
    await sign_in(ui)
    out = await ui.post("/ui/sign-out", data={"csrf_token": await csrf_of(ui)})
    assert out.status_code == 303 and out.headers["location"] == "/ui/sign-in"
    assert (await ui.get("/ui/probe")).status_code == 303


async def test_a_sign_in_sent_from_another_site_is_refused(ui: httpx.AsyncClient) -> None:
    elsewhere = await ui.post(
        "/ui/sign-in",
        data={"token": TOKEN, "next": "/ui/probe"},
        headers={"Origin": "https://evil.example"},
    )
    assert elsewhere.status_code == 403 and "set-cookie" not in elsewhere.headers
    here = await ui.post(
        "/ui/sign-in",
        data={"token": TOKEN, "next": "/ui/probe"},
        headers={"Origin": str(ui.base_url).rstrip("/")},
    )
    assert here.status_code == 303


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/ui/", "/v1/x"])
async def test_after_signing_in_a_person_stays_on_these_pages(
    ui: httpx.AsyncClient, target: str
) -> None:
    signed = await ui.post("/ui/sign-in", data={"token": TOKEN, "next": target})
    assert signed.headers["location"] == "/ui/"


async def test_pages_keep_to_this_site(ui: httpx.AsyncClient) -> None:
    await sign_in(ui)
    shown = await ui.get("/ui/probe")
    policy = shown.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "script-src" not in policy  # no script runs on any page
    assert shown.headers["cache-control"] == "no-store"
    css = await ui.get("/ui/turncheck.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")


async def test_without_a_token_pages_answer_on_loopback_with_a_session_at_once(
    store: Store, database_url: str
) -> None:
    settings = api_settings(database_url, api_token=None)
    app = probe_app(settings, store, FixedClock(API_NOW))
    async with running_api(settings, store, app=app) as ui:
        shown = await ui.get("/ui/probe")
        assert shown.status_code == 200 and "Sign out" not in shown.text
        assert SESSION_COOKIE in shown.headers["set-cookie"]
        assert (await ui.post("/ui/probe", data={})).status_code == 403
        session = read(app.state.web_keys, ui.cookies[SESSION_COOKIE], API_NOW)
        assert session is not None
        taken = await ui.post("/ui/probe", data={"csrf_token": session.csrf})
        assert taken.status_code == 200
        assert (await ui.get("/ui/sign-in")).status_code == 303
        rebound = await ui.get("/ui/probe", headers={"Host": "attacker.example"})
        assert rebound.status_code == 421
        assert (await ui.get("/")).headers["location"] == "/ui/"
