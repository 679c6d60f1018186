"""Builders for ``facts`` check tests: a support turn and a compiled check."""

from __future__ import annotations

from typing import Any

from tests.factories import turn_from
from turncheck.schemas.checkfile import FactsCheck
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts import compile_check
from turncheck.worker.checks.result import Outcome
from turncheck.worker.turns.structs import Turn


def support_turn(answer: str, *, customer: str = "Hi, where is my order?", **fields: Any) -> Turn:
    """A stored support turn: one customer message, the given answer, any other fields."""
    data: dict[str, Any] = {
        "schema": "turn.stored/v1",
        "turn_id": "t-facts",
        "agent": {"id": "support-bot", "version": 3, "model": "gpt-4o-mini"},
        "created_at": "2026-03-02T15:30:00+00:00",
        "input": {"messages": [{"role": "user", "content": customer}]},
        "output": {"text": answer},
    }
    data.update(fields)
    return turn_from(data)


def tool_round(
    name: str, result: Any, arguments: dict[str, Any] | str | None = None
) -> dict[str, Any]:
    """One round in which the agent called ``name`` and got ``result``."""
    return {
        "tool_calls": [{"id": "c1", "name": name, "arguments": arguments or {}}],
        "tool_results": [{"call_id": "c1", "name": name, "content": result}],
    }


def facts_check(**definition: Any) -> FactsCheck:
    return FactsCheck.model_validate({"name": "facts", "kind": "facts", **definition})


def check(turn: Turn, budget: Budget | None = None, **definition: Any) -> Outcome:
    """Compile a ``facts`` check from ``definition`` and run it on ``turn``."""
    run = compile_check(facts_check(**definition))
    return run(turn, budget or Budget.unlimited())


def spans_text(turn: Turn, outcome: Outcome) -> list[str]:
    """The answer text each span points at (tests only: results never carry it)."""
    return [turn.output.text[s.start : s.end] for s in outcome.spans]
