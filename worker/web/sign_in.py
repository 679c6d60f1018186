"""Signing in with the API's token and out again; the stylesheet every page links.

``POST /ui/sign-in`` takes the token from a form, compares it in constant time and answers
with the session cookie. A form sent from another site's page (its ``Origin`` is not this
site's) is refused before the token is looked at: a sign-in from elsewhere would sign a
person into a session someone else chose. The token is never put in a page, a URL or a
log line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from turncheck.worker.api.auth import configured_token, token_matches
from turncheck.worker.api.context import context
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, safe_next, session_keys
from turncheck.worker.web.render import page, redirect, set_session_cookie
from turncheck.worker.web.session import SESSION_COOKIE, issue

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)
STYLESHEET = (Path(__file__).parent / "templates" / "turncheck.css").read_bytes()


@router.get("/turncheck.css")
async def stylesheet() -> Response:
    return Response(
        STYLESHEET, media_type="text/css", headers={"Cache-Control": "public, max-age=3600"}
    )


@router.get("/sign-in")
async def sign_in_page(request: Request, next: str | None = None) -> Response:
    if not session_keys(request).sign_in_needed:
        return redirect(request, safe_next(next))
    return page(request, "sign_in.html.j2", next_path=safe_next(next), wrong=False)


@router.post("/sign-in")
async def sign_in(request: Request) -> Response:
    ctx = context(request)
    keys = session_keys(request)
    token = configured_token(ctx.settings)
    if not keys.sign_in_needed or token is None:
        return redirect(request, UI_PREFIX + "/")
    if not _same_origin(request):
        raise PageError(403, "This sign-in form was not sent from this site.")
    form = await request.form()
    given, next_path = form.get("token"), form.get("next")
    next_path = safe_next(next_path if isinstance(next_path, str) else None)
    if not isinstance(given, str) or not token_matches(token, given):
        return page(request, "sign_in.html.j2", status=401, next_path=next_path, wrong=True)
    cookie, _ = issue(keys, ctx.clock())
    response = redirect(request, next_path)
    set_session_cookie(request, response, cookie)
    return response


@router.post("/sign-out")
async def sign_out(request: Request, _: Annotated[FormData, Depends(checked_form)]) -> Response:
    response = redirect(request, UI_PREFIX + "/sign-in")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


def _same_origin(request: Request) -> bool:
    """A browser names the page a form came from in ``Origin``; none (an old client or a
    script) is let through, since the token itself is then the proof."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")
