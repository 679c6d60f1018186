"""The web pages: server-rendered views of what the API answers, under ``/ui``, served by
the API's own app and guarded like it.

    session.py   the session cookie and the CSRF token, signed, stateless
    guard.py     the dependencies every page takes: a session, a checked form
    render.py    jinja2 pages, their security headers, pages for errors
    sign_in.py   signing in with the API's token and out again; the stylesheet
    palette.py   the charts' colours, told apart by colour-blind readers
    check_page.py  one check of one agent: its rate charts, counts, reasons, failed turns, labels
    check_view.py  what the check page shows, made of what the store gave
    rate_chart.py  a pass rate over time as an inline SVG, and its numbers as a table
    chart_marks.py  a chart's lines told apart by colour, dash and marker; its legend

``install`` adds them to an app that ``api.create_app`` made.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import RedirectResponse

from turncheck.worker.api.auth import configured_token
from turncheck.worker.settings import Settings
from turncheck.worker.web import check_page, render, sign_in
from turncheck.worker.web.guard import UI_PREFIX
from turncheck.worker.web.session import SessionKeys

PAGES: tuple[APIRouter, ...] = (sign_in.router, check_page.router)


def install(app: FastAPI, settings: Settings) -> None:
    app.state.web_keys = SessionKeys.for_token(configured_token(settings))
    render.install(app)
    for router in PAGES:
        app.include_router(router)

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse(UI_PREFIX + "/", status_code=303)
