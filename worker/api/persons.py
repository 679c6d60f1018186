"""``DELETE /v1/persons/{person_id}``: erase what is stored of a person
(``worker/retention/erasure.py``).

Idempotent, like the Eraser: a second call deletes nothing more. Without
``TURNCHECK_ERASURE_KEY`` nothing is erased and the answer is 503, since the ledger
that keeps the person out for good cannot be written.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.errors import documented
from turncheck.worker.api.models import ErasureOut
from turncheck.worker.retention.erasure import Eraser

router = APIRouter()


@router.delete("/persons/{person_id:path}", response_model=ErasureOut, responses=documented(503))
async def erase_person(
    ctx: Annotated[ApiContext, Depends(context)],
    person_id: Annotated[
        str,
        Path(
            min_length=1,
            max_length=200,
            description="The turns' `person_id`; one holding `/` may be written as is or `%2F`.",
        ),
    ],
) -> ErasureOut:
    """Delete the person's results, pending judgements and unsent events, and record a
    keyed hash of the id so their turns are dropped if they come again."""
    key = ctx.settings.erasure_key
    if key is None or not key.get_secret_value():
        raise HTTPException(503, "erasure is off: TURNCHECK_ERASURE_KEY is not set")
    now = ctx.clock()
    eraser = Eraser(ctx.store.database, key.get_secret_value().encode())
    receipt = await eraser.erase(person_id, requested_at=now, now=now)
    return ErasureOut.of(receipt)
