"""Pages drawn on the server with jinja2, autoescaped, from ``web/templates``. Every page
gets the session's CSRF token, the configured time zone and whether signing out makes
sense, and leaves with headers that keep it to this site: no script runs on any page,
nothing is cached, nothing is framed.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import jinja2
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from turncheck.worker.api.context import context
from turncheck.worker.web.guard import PageError, SignInNeeded, session_keys
from turncheck.worker.web.session import CSRF_FIELD, SESSION_COOKIE, SESSION_LIFETIME_S

TEMPLATES = Path(__file__).parent / "templates"
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@functools.cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def time_zone(request: Request) -> ZoneInfo:
    """The zone every time on a page is shown in: the alerts' (``TURNCHECK_ALERT_TIMEZONE``)."""
    return ZoneInfo(context(request).settings.alert_timezone)


def page(request: Request, template: str, *, status: int = 200, **values: Any) -> HTMLResponse:
    """``template`` rendered with ``values`` and what every page needs."""
    session = getattr(request.state, "viewer", None)
    html = (
        environment()
        .get_template(template)
        .render(
            csrf_field=CSRF_FIELD,
            csrf_token=session.csrf if session is not None else "",
            signed_in=session is not None and session_keys(request).sign_in_needed,
            time_zone=context(request).settings.alert_timezone,
            **values,
        )
    )
    response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)
    new_cookie = getattr(request.state, "new_session_cookie", None)
    if new_cookie is not None:
        set_session_cookie(request, response, new_cookie)
    return response


def redirect(request: Request, path: str) -> RedirectResponse:
    """303 to one of our paths, carrying a session cookie issued on the way, if any."""
    response = RedirectResponse(path, status_code=303, headers={"Cache-Control": "no-store"})
    new_cookie = getattr(request.state, "new_session_cookie", None)
    if new_cookie is not None:
        set_session_cookie(request, response, new_cookie)
    return response


def set_session_cookie(request: Request, response: Response, value: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=SESSION_LIFETIME_S,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def install(app: FastAPI) -> None:
    """Pages answer their errors as pages, not as the API's JSON."""

    @app.exception_handler(PageError)
    async def page_error(request: Request, exc: PageError) -> Response:
        return page(request, "error.html.j2", status=exc.status, message=exc.message)

    @app.exception_handler(SignInNeeded)
    async def sign_in_needed(request: Request, exc: SignInNeeded) -> Response:
        return redirect(request, f"/ui/sign-in?next={quote(exc.next_path, safe='/')}")
