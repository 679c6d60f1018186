"""One turn's page, ``GET /ui/turns/{turn_id}``: what the store keeps of the turn and every
stored result of it, as ``GET /v1/turns/{turn_id}/results`` reads them, and a form on each
labellable failure that ``POST``s to ``/ui/turns/{turn_id}/label``.

The store keeps no turn text: spans are shown as field and offsets only. A label's note
is a person's text, shown here (the turn's own view, as the API does) and never logged.
A turn without results (never stored, expired, its person erased) is a 404 page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from turncheck.schemas.label import NOTE_MAX_CHARS
from turncheck.worker.api.context import context
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store.labels import LabelTable, StoredLabel, key_of
from turncheck.worker.store.views import StoredResult
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, form_text, viewer
from turncheck.worker.web.label_form import apply_label
from turncheck.worker.web.paths import check_path, shown_time, turn_path
from turncheck.worker.web.render import page, redirect, time_zone
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)

NO_RESULTS = (
    "This turn has no stored results: it was never checked, its results have expired, "
    "or its person was erased."
)


@dataclass(frozen=True, slots=True)
class TurnPageAnswer:
    question: str
    answer: str
    probability: float | None


@dataclass(frozen=True, slots=True)
class TurnPageResult:
    """One stored result as the page shows it; ``labellable`` when it is the newest result
    of its check on the turn and failed, the one a label goes on (``store/labels.py``)."""

    row: StoredResult
    check_link: str
    rollout: str
    checked_at: str
    label: StoredLabel | None
    labellable: bool
    answers: tuple[TurnPageAnswer, ...]
    input_tokens: int | None
    output_tokens: int | None
    model: str | None


def answers_of(stored: dict[str, Any] | None) -> tuple[TurnPageAnswer, ...]:
    """A rubric's ``{question: {"answer", "probability"}}`` (``judge/runner.py``)."""
    found = []
    for question, given in (stored or {}).items():
        given = given if isinstance(given, dict) else {"answer": given}
        probability = given.get("probability")
        found.append(
            TurnPageAnswer(
                question,
                str(given.get("answer", "")),
                float(probability) if isinstance(probability, int | float) else None,
            )
        )
    return tuple(found)


@router.get("/turns/{turn_id:path}")
async def turn_page(
    request: Request, _: Annotated[Session, Depends(viewer)], turn_id: str
) -> Response:
    ctx = context(request)
    rows = await ctx.store.queries.results_for_turn(turn_id)
    if not rows:
        raise PageError(404, NO_RESULTS)
    labelled = await LabelTable(ctx.store.database).of_turn(turn_id)
    known = await ctx.store.rollouts.read()
    zone = time_zone(request)
    # Rows come in the order they were stored: the last of a check is its newest.
    newest = {row.check: row for row in rows}
    results = []
    for row in rows:
        usage: dict[str, Any] = dict(row.usage or {})
        model = usage.get("model")
        results.append(
            TurnPageResult(
                row=row,
                check_link=check_path(row.agent_id, row.check),
                rollout=known.of(row.agent_id, row.check),
                checked_at=shown_time(row.checked_at, zone),
                label=labelled.get(key_of(row)),
                labellable=row.verdict == "failed" and newest[row.check] is row,
                answers=answers_of(row.answers),
                input_tokens=usage.get("input_tokens") if row.usage else None,
                output_tokens=usage.get("output_tokens") if row.usage else None,
                model=model if isinstance(model, str) else None,
            )
        )
    first = rows[0]
    return page(
        request,
        "turn.html.j2",
        turn_id=turn_id,
        turn=first,
        created_at=shown_time(first.turn_created_at, zone),
        turn_link=link_of(ctx.settings.turn_url_template, first),
        label_action=turn_path(turn_id) + "/label",
        results=results,
        note_max=NOTE_MAX_CHARS,
    )


@router.post("/turns/{turn_id:path}/label")
async def label_result(
    request: Request, form: Annotated[FormData, Depends(checked_form)], turn_id: str
) -> Response:
    """Set (``false_alarm``, ``confirmed``, with an optional note) or ``clear`` the label of
    the check's newest result on the turn, then back to the turn's page."""
    note = form_text(form, "note").strip()
    await apply_label(request, turn_id, form_text(form, "check"), form_text(form, "label"), note)
    return redirect(request, turn_path(turn_id))
