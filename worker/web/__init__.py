"""The web pages: server-rendered views of what the API answers, under ``/ui``, served by
the API's own app and guarded like it.

    session.py          the session cookie and the CSRF token, signed, stateless
    guard.py            the dependencies every page takes: a session, a checked form
    render.py           jinja2 pages, their security headers, pages for errors
    sign_in.py          signing in with the API's token and out again; the stylesheet
    palette.py          the charts' colours, told apart by colour-blind readers
    overview.py         the overview: every check per agent, its rates, sparkline and state
    overview_rows.py    the overview's rows from what the store read, pure
    sparkline.py        a small inline SVG of a series of rates, pure
    tally.py            how many results passed: the shape behind every rate shown
    label_form.py       a label set or cleared from a page's form, by the API's rules
    paths.py            links to a check's and a turn's page, and times in the page's zone
    turn_page.py        one turn's results, and labels set on its failures
    alerts_page.py      the alerts per day and channel, and each delivery's error
    backtests_page.py   the backtests: the list, the form that starts one, one's report
    backtest_form.py    that form read into the API's backtest request, or refused
    test_panel.py       test a check: rule checks run on pasted text, never kept
    highlight.py        a text with spans marked, escaped, from code-point offsets
    loaded_checks.py    the configured check files, loaded once for the test panel
    check_page.py       one check of one agent: rate charts, counts, reasons, failed turns, labels
    check_view.py       what the check page shows, made of what the store gave
    rate_chart.py       a pass rate over time as an inline SVG, and its numbers as a table
    chart_marks.py      a chart's lines told apart by colour, dash and marker; its legend

``install`` adds them to an app that ``api.create_app`` made.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import RedirectResponse

from turncheck.worker.api.auth import configured_token
from turncheck.worker.settings import Settings
from turncheck.worker.web import (
    alerts_page,
    backtests_page,
    check_page,
    overview,
    render,
    sign_in,
    test_panel,
    turn_page,
)
from turncheck.worker.web.guard import UI_PREFIX, storable_address
from turncheck.worker.web.session import SessionKeys

PAGES: tuple[APIRouter, ...] = (
    sign_in.router,
    overview.router,
    check_page.router,
    turn_page.router,
    alerts_page.router,
    backtests_page.router,
    test_panel.router,
)


def install(app: FastAPI, settings: Settings) -> None:
    app.state.web_keys = SessionKeys.for_token(configured_token(settings))
    render.install(app)
    for router in PAGES:
        app.include_router(router, dependencies=[Depends(storable_address)])

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse(UI_PREFIX + "/", status_code=303)
