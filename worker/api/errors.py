"""Every error the API answers, as ``{"error": "..."}``, translated here at the edge.

    HTTPException (ours and Starlette's)  its status; its headers (WWW-Authenticate) kept
    RequestValidationError                422 naming each parameter at fault, never its value
    StoreUnavailable                      503 "database unavailable"
    anything else                         500 "internal error" (the route and the type logged)

A validation error's message leaves out the value given: a query may hold anything,
and the API never echoes what a caller sent. A log line names the route's template
(``/v1/persons/{person_id}``), never the path asked for: a path holds person ids.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turncheck.worker.api.models import ErrorBody
from turncheck.worker.errors import StoreUnavailable

log = logging.getLogger(__name__)


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error body under each status, for the OpenAPI document."""
    return {status: {"model": ErrorBody} for status in statuses}


def error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def describe_invalid(exc: RequestValidationError) -> str:
    """``invalid query parameter 'limit': Input should be less than or equal to 1000``."""
    problems = []
    for problem in exc.errors():
        where, *names = problem.get("loc") or ("request",)
        name = ".".join(str(part) for part in names) or str(where)
        kind = {"query": "query parameter", "path": "path parameter"}.get(str(where), str(where))
        problems.append(f"invalid {kind} {name!r}: {problem.get('msg', 'invalid')}")
    return "; ".join(problems) or "invalid request"


def route_of(request: Request) -> str:
    """The template of the route that matched (``/v1/persons/{person_id}``), or ``unmatched``.

    The route knows its template below the routers' prefixes only (``/persons/{person_id}``);
    the prefix is what comes before the part of the path the route's pattern matches, and
    holds no parameter, since no router prefix here has one.
    """
    route = request.scope.get("route")
    # path_format is the template without convertors: {person_id}, not {person_id:path}.
    template, pattern = getattr(route, "path_format", None), getattr(route, "path_regex", None)
    if not isinstance(template, str):
        return "unmatched"
    path = request.url.path
    if isinstance(pattern, re.Pattern):
        for start in (i for i, char in enumerate(path) if char == "/"):
            if pattern.fullmatch(path[start:]):
                return path[:start] + template
    return template


def install(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail), exc.headers)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error(422, describe_invalid(exc))

    async def store_down(request: Request, exc: Exception) -> JSONResponse:
        log.warning("api request failed: database unavailable route=%s", route_of(request))
        return error(503, "database unavailable")

    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("api request failed route=%s error=%s", route_of(request), type(exc).__name__)
        return error(500, "internal error")

    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StoreUnavailable, store_down)
    app.add_exception_handler(Exception, bug)


class AnsweredErrors:
    """The outermost ASGI layer: an error already answered 500 goes no further.

    Starlette raises the exception again once its 500 is sent, for the server to log;
    uvicorn then logs its traceback, whose messages can hold a query's parameters (a
    person id), and drops the connection. ``bug`` has logged the route and the error's
    type; an error raised before any answer still reaches the server.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answered = False

        async def sending(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            if not answered:
                raise
