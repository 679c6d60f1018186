"""A check's results page by page, and one turn's results.

``GET /v1/checks/{name}/results`` is where alerts link (``alerts/setup.py``
``link_maker``): keep its path and its ``agent``, ``verdict`` and ``since`` parameters.
``since`` and ``until`` bound the turn's ``created_at``, the time of every window, list
and chart, so a link from an alert opens the turns the alert counted.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request

from turncheck.worker.api import cursor as cursors
from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.errors import documented
from turncheck.worker.api.models import ResultOut, ResultsPage, TurnResultOut, TurnResultsOut
from turncheck.worker.api.query import MOMENT, moment, verdicts, window
from turncheck.worker.store.labels import LabelTable, key_of
from turncheck.worker.store.pages import ResultFilter, ResultPages

MAX_LIMIT = 1000

router = APIRouter()


@router.get("/checks/{name}/results", response_model=ResultsPage)
async def check_results(
    request: Request,
    ctx: Annotated[ApiContext, Depends(context)],
    name: Annotated[str, Path(description="The check's name.")],
    verdict: Annotated[
        str, Query(description="Comma-separated: passed, failed, errored.")
    ] = "failed,errored",
    agent: Annotated[str | None, Query(description="Only this agent id.")] = None,
    since: Annotated[str | None, Query(description=f"Turns created at or after: {MOMENT}.")] = None,
    until: Annotated[str | None, Query(description=f"Turns created before: {MOMENT}.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Results per page.")] = 100,
    cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page.")] = None,
) -> ResultsPage:
    """A check's results, newest turn first (the turn's `created_at`, then the order they
    were stored in), a page at a time. Every result stored before the first page is given
    once and none twice; one stored while you page lands where its turn's time puts it.
    A cursor an older turncheck gave is a 422: ask the first page again."""
    now = ctx.clock()
    start, end = moment("since", since, now), moment("until", until, now)
    window(start, end)
    where = ResultFilter(verdicts(verdict), agent, start, end)
    after = cursors.decode(cursor) if cursor is not None else None
    rows, last = await ResultPages(ctx.store.database).page(name, where, limit=limit, after=after)
    next_cursor = cursors.encode(last) if last is not None else None
    next_url = None
    if next_cursor is not None:
        # A path and query, not an absolute URL: behind a proxy the host we see is not
        # the one the caller used.
        following = request.url.include_query_params(cursor=next_cursor)
        next_url = f"{following.path}?{following.query}"
    labelled = await LabelTable(ctx.store.database).of_results(rows)
    known = await ctx.store.rollouts.read()
    turn_url = ctx.settings.turn_url_template
    return ResultsPage(
        results=[
            ResultOut.of(
                row,
                label=labelled.get(key_of(row)),
                rollout=known.of(row.agent_id, row.check),
                turn_url=turn_url,
            )
            for row in rows
        ],
        next_cursor=next_cursor,
        next=next_url,
    )


@router.get(
    "/turns/{turn_id:path}/results", response_model=TurnResultsOut, responses=documented(404)
)
async def turn_results(
    ctx: Annotated[ApiContext, Depends(context)],
    turn_id: Annotated[
        str,
        Path(
            min_length=1,
            description="The turn's id; one holding `/` may be written as is or `%2F`.",
        ),
    ],
) -> TurnResultsOut:
    """Every stored result of one turn, each with its label and the label's note; 404
    when it has none (never stored, expired, or its person erased)."""
    rows = await ctx.store.queries.results_for_turn(turn_id)
    if not rows:
        raise HTTPException(404, "no results for this turn")
    labelled = await LabelTable(ctx.store.database).of_turn(turn_id)
    known = await ctx.store.rollouts.read()
    turn_url = ctx.settings.turn_url_template
    results = [
        TurnResultOut.of(
            row,
            label=labelled.get(key_of(row)),
            rollout=known.of(row.agent_id, row.check),
            turn_url=turn_url,
        )
        for row in rows
    ]
    return TurnResultsOut(turn_id=turn_id, results=results)
