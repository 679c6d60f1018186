"""Every error the API answers, as ``{"error": "..."}``, translated here at the edge.

    HTTPException (ours and Starlette's)  its status; its headers (WWW-Authenticate) kept
    RequestValidationError                422 naming each parameter at fault, never its value
    StoreUnavailable                      503 "database unavailable"
    anything else                         500 "internal error" (the traceback goes to the log)

A validation error's message leaves out the value given: a query may hold anything,
and the API never echoes what a caller sent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

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


def install(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail), exc.headers)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error(422, describe_invalid(exc))

    async def store_down(request: Request, exc: Exception) -> JSONResponse:
        log.warning("api request failed: database unavailable path=%s", request.url.path)
        return error(503, "database unavailable")

    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("api request failed path=%s error=%s", request.url.path, type(exc).__name__)
        return error(500, "internal error")

    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StoreUnavailable, store_down)
    app.add_exception_handler(Exception, bug)
