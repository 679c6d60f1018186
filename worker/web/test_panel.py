"""Test a check (``/ui/test``): a reply and its sources pasted, the chosen rule checks of
one agent run on a turn made of them, and each check's verdict, reason and matched
spans shown in the pasted text.

The rule checks are the configured ones (``loaded_checks.py``), compiled by the loader
the worker uses and run as ``pipeline/evaluate.py`` runs them, with the same time budget.
Judged checks are listed but not run: the panel asks no judge (a judge costs money and
would receive the pasted text).

What is pasted is never stored or logged: no store is called, nothing here logs, and the
page is sent with ``Cache-Control: no-store`` (``render.page``). It is posted, never put
in a URL.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from markupsafe import Markup
from starlette.datastructures import FormData

from turncheck.worker.api.context import context
from turncheck.worker.checks import CheckResult, CheckSet
from turncheck.worker.pipeline.evaluate import run_checks as run_rule_checks
from turncheck.worker.turns.structs import (
    Agent,
    InputMessage,
    Instant,
    KnowledgePassage,
    Output,
    Round,
    ToolResult,
    Turn,
    TurnInput,
)
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, viewer
from turncheck.worker.web.highlight import Mark, highlighted
from turncheck.worker.web.loaded_checks import configured_checks
from turncheck.worker.web.render import page
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)
MAX_PASTED_BYTES = 256 * 1024
"""All the pasted fields together, in UTF-8."""
TEXTS = ("reply", "customer", "tools", "knowledge")
FIELDS = {
    "output.text": ("The reply", "reply"),
    "input.messages[0].content": ("Customer messages", "customer"),
    "rounds[0].tool_results[0].content": ("Tool results", "tools"),
    "knowledge[0].content": ("Knowledge", "knowledge"),
}
"""The turn's field each pasted text becomes, and how the page names it."""


@dataclass(frozen=True, slots=True)
class CheckAnswer:
    """One check's answer, with the pasted texts it matched in marked."""

    check: str
    kind: str
    verdict: str
    reason: str | None
    marked: tuple[tuple[str, Markup], ...]
    elsewhere: int
    """Spans in a field the panel has no pasted text for."""


def _turn(agent_id: str, texts: dict[str, str], now: datetime) -> Turn:
    """A turn of ``agent_id`` made of the pasted texts, each in its own field (``FIELDS``)."""
    customer, tools, knowledge = texts["customer"], texts["tools"], texts["knowledge"]
    return Turn(
        schema_="turn.stored/v1",
        turn_id="test-panel",
        agent=Agent(id=agent_id, version=0),
        created_at=Instant.fromtimestamp(now.timestamp(), tz=UTC),
        input=TurnInput(messages=[InputMessage(role="user", content=customer)] if customer else []),
        knowledge=[KnowledgePassage(content=knowledge)] if knowledge else [],
        rounds=[Round(tool_results=[ToolResult(call_id="pasted", content=tools)])] if tools else [],
        output=Output(text=texts["reply"]),
    )


def _verdict(result: CheckResult, texts: dict[str, str]) -> CheckAnswer:
    marked = []
    for field, (title, name) in FIELDS.items():
        marks = [Mark(s.start, s.end, s.label) for s in result.spans if s.field == field]
        if marks and texts[name]:
            marked.append((title, highlighted(texts[name], marks)))
    shown = {field for field, (_, name) in FIELDS.items() if texts[name]}
    elsewhere = sum(1 for span in result.spans if span.field not in shown)
    return CheckAnswer(
        result.check.name,
        result.check.kind,
        str(result.verdict),
        result.reason,
        tuple(marked),
        elsewhere,
    )


def _agents(checks: CheckSet) -> list[str]:
    return sorted(set(checks.by_agent) | set(checks.judged_by_agent))


async def _panel(
    request: Request,
    agent: str | None,
    *,
    status: int = 200,
    texts: dict[str, str] | None = None,
    chosen: set[str] | None = None,
    verdicts: list[CheckAnswer] | None = None,
    error: str | None = None,
) -> Response:
    loaded = await configured_checks(request)
    values: dict[str, Any] = {"agents": [], "agent": None, "rules": [], "judged": []}
    if loaded.checks is not None:
        agents = _agents(loaded.checks)
        if agent is not None and agent not in agents:
            raise PageError(404, "No loaded check belongs to that agent.")
        picked = agent or (agents[0] if agents else None)
        rules = loaded.checks.by_agent.get(picked or "", ())
        judged = loaded.checks.judged_by_agent.get(picked or "", ())
        values = {
            "agents": agents,
            "agent": picked,
            "rules": [(c.name, c.id.kind) for c in rules],
            "judged": [(c.name, c.id.kind) for c in judged],
        }
    return page(
        request,
        "test_panel.html.j2",
        status=status,
        nav_current="test",
        problem=loaded.problem,
        texts=texts or dict.fromkeys(TEXTS, ""),
        chosen=chosen,
        verdicts=verdicts,
        error=error,
        max_kib=MAX_PASTED_BYTES // 1024,
        **values,
    )


@router.get("/test")
async def test_panel(
    request: Request, _: Annotated[Session, Depends(viewer)], agent: str | None = None
) -> Response:
    return await _panel(request, agent or None)


@router.post("/test")
async def run_checks(
    request: Request, form: Annotated[FormData, Depends(checked_form)]
) -> Response:
    """The chosen checks' verdicts on the pasted texts; nothing is stored."""
    texts = {name: _pasted(form, name) for name in TEXTS}
    await form.close()  # a multipart post's files, if any: none is read
    if sum(len(text.encode()) for text in texts.values()) > MAX_PASTED_BYTES:
        raise PageError(413, f"What was pasted is larger than {MAX_PASTED_BYTES // 1024} KiB.")
    agent = _pasted(form, "agent")
    chosen = {name for name in form.getlist("check") if isinstance(name, str)}
    loaded = await configured_checks(request)
    if loaded.checks is None:
        return await _panel(request, None, status=409, texts=texts)
    if agent not in _agents(loaded.checks):
        raise PageError(400, "Choose an agent among the loaded checks.")
    checks = tuple(c for c in loaded.checks.by_agent.get(agent, ()) if c.name in chosen)
    refused = None if texts["reply"] else "Paste a reply to check."
    refused = refused or (None if checks else "Choose at least one rule check.")
    if refused is not None:
        return await _panel(request, agent, status=400, texts=texts, chosen=chosen, error=refused)
    turn = _turn(agent, texts, context(request).clock())
    results = await asyncio.to_thread(run_rule_checks, turn, checks)
    verdicts = [_verdict(result, texts) for result in results]
    return await _panel(request, agent, texts=texts, chosen=chosen, verdicts=verdicts)


def _pasted(form: FormData, name: str) -> str:
    value = form.get(name)
    # A browser sends a textarea's line ends as CRLF: offsets are counted in what a
    # turn would hold, LF.
    return value.replace("\r\n", "\n") if isinstance(value, str) else ""
