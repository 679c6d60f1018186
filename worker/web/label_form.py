"""A label set, replaced or cleared from a page's form (the check page's failed turns, the
turn page's failures): the rules of ``turncheck label`` and of the API's labels, refused
as pages. Only a failed result takes a label; a note is at most ``NOTE_MAX_CHARS`` and
is never repeated in an error page or a log line.
"""

from __future__ import annotations

from fastapi import Request

from turncheck.schemas.label import NOTE_MAX_CHARS, LabelName
from turncheck.worker.api.context import context
from turncheck.worker.errors import NoStoredResult, NotLabellable
from turncheck.worker.store.labels import LabelTable
from turncheck.worker.web.guard import PageError

LABELS: dict[str, LabelName] = {"false_alarm": "false_alarm", "confirmed": "confirmed"}
CLEAR = "clear"


async def apply_label(request: Request, turn_id: str, check: str, action: str, note: str) -> None:
    """Label the newest result of ``check`` on ``turn_id`` (``false_alarm`` or
    ``confirmed``, with ``note`` if any) or ``clear`` its label; PageError otherwise."""
    if not turn_id or not check:
        raise PageError(400, "The form names no turn or no check.")
    if "\x00" in turn_id + check:
        raise PageError(400, "The form's turn or check holds a NUL character.")
    if action != CLEAR and action not in LABELS:
        raise PageError(400, "Choose false alarm, confirmed or clear.")
    if len(note) > NOTE_MAX_CHARS:
        raise PageError(400, f"The note is longer than {NOTE_MAX_CHARS} characters.")
    if "\x00" in note:
        raise PageError(400, "The note holds a NUL character.")
    ctx = context(request)
    table = LabelTable(ctx.store.database)
    try:
        if action == CLEAR:
            await table.clear(turn_id, check)
        else:
            await table.set(turn_id, check, LABELS[action], note or None, now=ctx.clock())
    except NoStoredResult:
        raise PageError(404, "This turn has no stored result of that check.") from None
    except NotLabellable as exc:
        raise PageError(
            409, f"The result is {exc.verdict}: only a failed result can be labelled."
        ) from None
