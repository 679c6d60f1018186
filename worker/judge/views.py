"""What the judge reads of a turn: the one place that decides it.

* ``judge`` on ``stage: output``: the last user message (the last user entry of
  ``input.messages``, else of ``history``, else none) and the answer; with a
  ``context`` (``JudgeShows``) also the last exchanges before that message and
  this turn's tool calls with their results. The built-in criterion
  ``no_unsupported_action_claims`` always reads the tool calls and results: whether
  an action was done is in them, not in the answer.
* ``judge`` on ``stage: input``: the caller's text (``input.messages``,
  ``input.transcript``, string ``input.prompt_variables``).
* ``rubric``: exactly the fields it names (``FIELD_VIEWS``).
* Either kind: the prompt variables its own texts name with ``@@{name}``
  (``worker.judge.variables``).

Never the agent's instructions, its knowledge or the rest of the history, and its
tool calls and results only as above. Tool call arguments are never shown: they
hold what the customer typed into a tool (card numbers, addresses, private values
``private_values`` keeps only as digests), and a call is told apart by its tool's
name; a tool result carries only that name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from turncheck.schemas.judged import RubricField
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turns.structs import Turn


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    name: str | None
    content: str


@dataclass(frozen=True, slots=True)
class Source:
    kind: str
    """``knowledge`` or ``tool_result``."""
    name: str | None
    content: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One of this turn's tool calls, by its tool's name, and what it returned."""

    name: str | None
    result: str | None
    """None: the turn holds no result for the call."""


@dataclass(frozen=True, slots=True)
class JudgeShows:
    """What an output ``judge`` reads beside the last user message and the answer; the
    default is nothing more."""

    exchanges: int = 0
    """How many exchanges before the last user message: a user message and the
    agent's replies after it. 0: no conversation at all."""
    tool_results: bool = False


@dataclass(frozen=True, slots=True)
class CallerText:
    field: str
    """Where the text is in the turn, e.g. ``input.messages[0].content``."""
    text: str


def last_user_message(turn: Turn) -> str | None:
    for message in reversed(turn.input.messages):
        if message.role == "user":
            return message.content
    for entry in reversed(turn.history):
        if entry.role == "user":
            return entry.content
    return None


def caller_texts(turn: Turn) -> list[CallerText]:
    return [CallerText(f, t) for f, t in stage_texts(turn, "input", with_rounds=False)]


def conversation(turn: Turn) -> list[Message]:
    """The history, then this turn's messages: latest last. Not the answer."""
    earlier = [Message(m.role, m.name, m.content) for m in turn.history]
    return earlier + [Message(m.role, None, m.content) for m in turn.input.messages]


def tool_results(turn: Turn) -> list[Source]:
    names = {call.id: call.name for round_ in turn.rounds for call in round_.tool_calls}
    return [
        Source("tool_result", result.name or names.get(result.call_id), _as_text(result.content))
        for round_ in turn.rounds
        for result in round_.tool_results
    ]


def tool_uses(turn: Turn) -> list[ToolUse]:
    """Each tool call in order with its result, then results whose call is not in the turn."""
    results = {r.call_id: r for round_ in turn.rounds for r in round_.tool_results}
    called = {call.id for round_ in turn.rounds for call in round_.tool_calls}
    uses = [
        ToolUse(call.name, _as_text(results[call.id].content) if call.id in results else None)
        for round_ in turn.rounds
        for call in round_.tool_calls
    ]
    return uses + [
        ToolUse(r.name, _as_text(r.content)) for r in results.values() if r.call_id not in called
    ]


def exchanges(turn: Turn, count: int) -> list[Message]:
    """The last ``count`` exchanges before the last user message, oldest first: each a
    user message and the assistant messages after it. Other roles are left out."""
    messages = conversation(turn)
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=len(messages))
    grouped: list[list[Message]] = []
    for message in messages[:last_user]:
        if message.role == "user":
            grouped.append([message])
        elif message.role == "assistant" and grouped:
            grouped[-1].append(message)
    kept = grouped[-count:] if count > 0 else []
    return [message for exchange in kept for message in exchange]


def sources(turn: Turn) -> list[Source]:
    """Knowledge passages, then tool results."""
    knowledge = [Source("knowledge", p.source, p.content) for p in turn.knowledge]
    return knowledge + tool_results(turn)


FIELD_VIEWS: dict[RubricField, Callable[[Turn], object]] = {
    "last_user_message": last_user_message,
    "answer": lambda turn: turn.output.text,
    "conversation": conversation,
    "sources": sources,
    "tool_results": tool_results,
    "instructions": lambda turn: turn.instructions,
    "input": caller_texts,
}


def judge_view(turn: Turn, stage: str, shows: JudgeShows = JudgeShows()) -> dict[str, object]:
    """A ``judge`` check's view: on output the last user message, the answer, and
    ``conversation`` and ``tool_results`` (None: not shown); on input the caller's text."""
    if stage == "output":
        return {
            "last_user_message": last_user_message(turn),
            "answer": turn.output.text,
            "conversation": exchanges(turn, shows.exchanges) if shows.exchanges else None,
            "tool_results": tool_uses(turn) if shows.tool_results else None,
        }
    return {"caller": caller_texts(turn)}


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)
