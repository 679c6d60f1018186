"""The prompt variables a judged check's own texts name with ``@@{name}``.

The system message holds only what the check's author wrote (``prompts``; ``redact``
relies on the user message being the only text of the turn shown), so a placeholder
is not filled in there: ``reference`` turns it into a pointer to the variable by name,
and ``shown`` gives the values for the user message's ``<prompt_variables>``, quoted
like any text of the turn. The values come from the turn's ``input.prompt_variables``,
never from the worker's environment (``schemas.placeholders`` says why).

A turn that lacks a named variable, or holds one that is neither a string nor a
number, cannot be judged: ``unusable`` gives the reason, and the check is ``errored``
before a judge is asked (``plan.plan_turn``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from turncheck.schemas.placeholders import PLACEHOLDER, names_in
from turncheck.worker.checks.result import Outcome
from turncheck.worker.turns.structs import Turn


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    value: str


def reference(text: str) -> str:
    """``text`` with each ``@@{name}`` replaced by words that point at the value."""
    return PLACEHOLDER.sub(_words, text)


def _words(match: re.Match[str]) -> str:
    return f'the value of prompt variable "{match[1]}" (given in <prompt_variables>)'


def names(texts: Iterable[str]) -> tuple[str, ...]:
    """Every variable the texts name, once each, in order of first use."""
    return tuple(dict.fromkeys(name for text in texts for name in names_in(text)))


def shown(turn: Turn, wanted: tuple[str, ...]) -> list[Variable]:
    """The values of the ``wanted`` variables the turn holds usably, in ``wanted``'s order."""
    found = ((name, _as_text(turn.input.prompt_variables.get(name))) for name in wanted)
    return [Variable(name, value) for name, value in found if value is not None]


def unusable(turn: Turn, wanted: tuple[str, ...]) -> Outcome | None:
    """``errored`` naming the first wanted variable the turn lacks; None if it has them all."""
    for name in wanted:
        if _as_text(turn.input.prompt_variables.get(name)) is None:
            return Outcome.errored(
                f'The turn has no prompt variable "{name}" as a string or a number,'
                " and the check's text names it."
            )
    return None


def _as_text(value: object) -> str | None:
    if isinstance(value, bool):  # a bool is an int to Python, not a number to a reader
        return None
    if isinstance(value, str | int | float):
        return str(value)
    return None
