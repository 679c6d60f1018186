"""``/v1/backtests``: start a backtest of a draft check file in the background, follow
its progress, read its report.

A backtest reads the turns topic (``TURNCHECK_KAFKA_BOOTSTRAP``), or without a broker
``TURNCHECK_TURNS_FILE``, as ``turncheck run`` would: never a file the caller names. It
runs in this process, one at a time (``worker/backtest/background.py``), in one process
of the engine's (the API's cores stay the API's; ``turncheck backtest`` uses every
core); any replica answers ``GET`` from the ``backtests`` table.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query
from fastapi.responses import JSONResponse

from turncheck.worker.api.backtest_models import (
    BacktestAccepted,
    BacktestIn,
    BacktestOut,
    BacktestsOut,
    DraftErrorBody,
    links,
)
from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.drafts import Draft, read_draft
from turncheck.worker.api.errors import documented
from turncheck.worker.api.query import invalid
from turncheck.worker.backtest.judging import JudgeOptions, judges_for
from turncheck.worker.backtest.request import BacktestRequest, parse_partitions
from turncheck.worker.errors import CheckDefinitionError, ConfigurationError
from turncheck.worker.runtime.moments import BadMoment, parse_moment
from turncheck.worker.settings import Settings

MAX_LISTED = 100
API_PROCESSES = 1

router = APIRouter()


@router.post(
    "/backtests",
    status_code=202,
    response_model=BacktestAccepted,
    responses={422: {"model": DraftErrorBody}},
)
async def start_backtest(
    ctx: Annotated[ApiContext, Depends(context)], body: BacktestIn
) -> BacktestAccepted | JSONResponse:
    """Queue a backtest of the draft `checks` over the turns of [`since`, `until`); it runs
    when the ones before it in this process are done. A draft the loader refuses is a
    422 with its `line`, `check` and `field`."""
    now = ctx.clock()
    since, until = _moment("since", body.since, now), _moment("until", body.until, now)
    if since is not None and until is not None and until <= since:
        raise invalid("until", "must be after since", "body")
    partitions = _partitions(body.partitions)
    try:
        draft = await asyncio.to_thread(read_draft, body.checks)
    except CheckDefinitionError as exc:
        return JSONResponse(
            DraftErrorBody(
                error=str(exc), line=exc.line, check=exc.check, field=exc.field
            ).model_dump(),
            status_code=422,
        )
    settings = ctx.settings
    if body.judge:
        try:
            judges_for(settings, draft.checks)
        except ConfigurationError as exc:
            raise HTTPException(422, str(exc)) from None
    if settings.kafka_bootstrap is None:
        for name, given in (("since", since), ("until", until), ("partitions", partitions)):
            if given is not None:
                raise invalid(
                    name,
                    "for the turns topic: without a broker the turns file is read whole",
                    "body",
                )
    request = BacktestRequest(
        draft=draft.checks,
        since=since,
        until=until,
        limit=body.limit,
        partitions=partitions,
        file=None if settings.kafka_bootstrap else settings.turns_file,
        processes=API_PROCESSES,
        judge=JudgeOptions(body.max_judgements) if body.judge else None,
    )
    backtest_id = await ctx.backtests.submit(request, _options(body, request, draft, settings))
    return BacktestAccepted(id=backtest_id, status="queued", links=links(backtest_id))


@router.get("/backtests", response_model=BacktestsOut)
async def list_backtests(
    ctx: Annotated[ApiContext, Depends(context)],
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED, description="How many.")] = 20,
) -> BacktestsOut:
    """The newest backtests first, without their reports."""
    rows = await ctx.backtests.table.recent(limit)
    return BacktestsOut(backtests=[BacktestOut.of(row) for row in rows])


@router.get("/backtests/{backtest_id}", response_model=BacktestOut, responses=documented(404))
async def get_backtest(
    ctx: Annotated[ApiContext, Depends(context)],
    backtest_id: Annotated[str, Path(max_length=40, description="The id POST answered.")],
) -> BacktestOut:
    """Status (`queued`, `running`, `done`, `failed`), progress, the estimate of a judged
    backtest, and the report once done or why it failed."""
    row = await ctx.backtests.table.get(backtest_id)
    if row is None:
        raise HTTPException(404, "no such backtest")
    return BacktestOut.of(row, turn_url=ctx.settings.turn_url_template)


def _moment(name: str, text: str | None, now: datetime) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_moment(text, now).astimezone(UTC)
    except BadMoment as exc:
        raise invalid(name, str(exc), "body") from None


def _partitions(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return parse_partitions(text)
    except ValueError as exc:
        raise invalid("partitions", str(exc), "body") from None


def _options(
    body: BacktestIn, request: BacktestRequest, draft: Draft, settings: Settings
) -> dict[str, Any]:
    """What the row keeps of the request: no text of the draft, only its summary."""
    return {
        "since": None if request.since is None else request.since.isoformat(),
        "until": None if request.until is None else request.until.isoformat(),
        "limit": request.limit,
        "partitions": None if request.partitions is None else list(request.partitions),
        "judge": body.judge,
        "max_judgements": body.max_judgements if body.judge else None,
        "source": "kafka" if settings.kafka_bootstrap else "file",
        "draft": draft.summary(),
    }
