"""The dependencies every page takes: ``viewer`` (a session, or a redirect to sign in)
and ``checked_form`` (a posted form whose CSRF token belongs to that session).

    PageError(status, message)   an HTML error page with that status (render.install)
    SignInNeeded(next_path)      303 to /ui/sign-in, back to ``next_path`` afterwards
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import FormData

from turncheck.worker.api.context import context
from turncheck.worker.web.session import (
    CSRF_FIELD,
    SESSION_COOKIE,
    Session,
    SessionKeys,
    csrf_matches,
    issue,
    read,
)

UI_PREFIX = "/ui"
FORM_MAX_BYTES = 512 * 1024
"""A pasted check file or reply: the API takes drafts of 256 KiB; a form has room around it."""


class PageError(Exception):
    """A page that cannot be shown: its status and one sentence for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class SignInNeeded(Exception):
    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


def session_keys(request: Request) -> SessionKeys:
    keys: SessionKeys = request.app.state.web_keys
    return keys


def safe_next(path: str | None) -> str:
    """Where to go after signing in: a page of ours, never another site (``//evil``)."""
    if path and path.startswith(UI_PREFIX + "/") and not path.startswith("//"):
        return path
    return UI_PREFIX + "/"


async def viewer(request: Request) -> Session:
    """The request's session. Without a token a new one is issued on the spot (the page
    sets its cookie); with one, a visitor without a valid session is sent to sign in."""
    keys = session_keys(request)
    now = context(request).clock()
    found = read(keys, request.cookies.get(SESSION_COOKIE), now)
    if found is None:
        if keys.sign_in_needed:
            query = f"?{request.url.query}" if request.url.query else ""
            raise SignInNeeded(request.url.path + query)
        cookie, found = issue(keys, now)
        request.state.new_session_cookie = cookie
    request.state.viewer = found
    return found


async def checked_form(request: Request, session: Annotated[Session, Depends(viewer)]) -> FormData:
    """The posted form, refused (403) unless it carries this session's CSRF token."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > FORM_MAX_BYTES:
        raise PageError(413, f"The form is larger than {FORM_MAX_BYTES // 1024} KiB.")
    form = await request.form()
    given = form.get(CSRF_FIELD)
    if not csrf_matches(session, given if isinstance(given, str) else None):
        raise PageError(
            403, "This form has expired or was not sent from this site: reload the page."
        )
    return form


def form_text(form: FormData, name: str) -> str:
    """A text field of a posted form; "" when it is missing or is a file."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


async def storable_address(request: Request) -> None:
    """A 400 page for a NUL in any path or query value, on every page (``install`` puts it
    in front of each): no stored id or name holds one, and PostgreSQL could not even
    compare it (the API's ``storable_text``, answered as a page)."""
    for pairs in (request.path_params.items(), request.query_params.multi_items()):
        for name, value in pairs:
            if isinstance(value, str) and "\x00" in value:
                raise PageError(400, f"{name} must not contain a NUL character.")
