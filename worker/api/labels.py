"""A person's label on a stored result: ``PUT`` and ``DELETE
/v1/turns/{turn_id}/results/{check}/label`` (``worker/store/labels.py``).

The label goes on the newest result of the check on the turn, and only a failed one
takes it: 404 when the turn has no result of the check, 409 when the newest did not
fail. The note is a person's text: never logged, and the error messages name ids only.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.errors import documented
from turncheck.worker.api.models import LabelClearedOut, LabelIn, LabelOut
from turncheck.worker.errors import NoStoredResult, NotLabellable
from turncheck.worker.store.labels import LabelTable

router = APIRouter()

TurnId = Annotated[
    str,
    Path(min_length=1, description="The turn's id; one holding `/` may be written as is or `%2F`."),
]
CheckName = Annotated[str, Path(min_length=1, description="The check's name.")]
LABEL_PATH = "/turns/{turn_id:path}/results/{check}/label"


@router.put(LABEL_PATH, response_model=LabelOut, responses=documented(404, 409))
async def set_label(
    ctx: Annotated[ApiContext, Depends(context)],
    turn_id: TurnId,
    check: CheckName,
    body: LabelIn,
) -> LabelOut:
    """Label the newest result of the check on the turn a false alarm or confirmed,
    replacing its label if it had one (one label per turn and check)."""
    table = LabelTable(ctx.store.database)
    try:
        label = await table.set(turn_id, check, body.label, body.note, now=ctx.clock())
    except NoStoredResult:
        raise HTTPException(404, "no stored result of this check on this turn") from None
    except NotLabellable as exc:
        raise HTTPException(
            409, f"the result is {exc.verdict}: only a failed result can be labelled"
        ) from None
    return LabelOut.of(label)


@router.delete(LABEL_PATH, response_model=LabelClearedOut, responses=documented(404))
async def clear_label(
    ctx: Annotated[ApiContext, Depends(context)], turn_id: TurnId, check: CheckName
) -> LabelClearedOut:
    """Remove the label of the check on the turn. Idempotent: `cleared` says whether there
    was one; 404 only when the turn has no result of the check."""
    try:
        cleared = await LabelTable(ctx.store.database).clear(turn_id, check)
    except NoStoredResult:
        raise HTTPException(404, "no stored result of this check on this turn") from None
    return LabelClearedOut(turn_id=turn_id, check=check, cleared=cleared)
