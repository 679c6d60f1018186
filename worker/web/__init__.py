"""The web pages: server-rendered views of what the API answers, under ``/ui``, served by
the API's own app and guarded like it.

    session.py   the session cookie and the CSRF token, signed, stateless
    guard.py     the dependencies every page takes: a session, a checked form
    render.py    jinja2 pages, their security headers, pages for errors
    sign_in.py   signing in with the API's token and out again; the stylesheet
    palette.py   the charts' colours, told apart by colour-blind readers
    overview.py  the overview: every check per agent, its rates, sparkline and state
    overview_rows.py  the overview's rows from what the store read, pure
    sparkline.py a small inline SVG of a series of rates, pure

``install`` adds them to an app that ``api.create_app`` made.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import RedirectResponse

from turncheck.worker.api.auth import configured_token
from turncheck.worker.settings import Settings
from turncheck.worker.web import overview, render, sign_in
from turncheck.worker.web.guard import UI_PREFIX
from turncheck.worker.web.session import SessionKeys

PAGES: tuple[APIRouter, ...] = (sign_in.router, overview.router)


def install(app: FastAPI, settings: Settings) -> None:
    app.state.web_keys = SessionKeys.for_token(configured_token(settings))
    render.install(app)
    for router in PAGES:
        app.include_router(router)

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse(UI_PREFIX + "/", status_code=303)
