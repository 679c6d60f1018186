"""What counts as a source of facts, gathered into one text.

A fact is supported by anything the conversation put in front of the agent:

* what the customer wrote this turn (``input.messages``, ``input.transcript``);
* the thread so far (``history``, every role: a figure the bot quoted two
  messages earlier may be repeated);
* each tool's request and result (``rounds[*].tool_calls[*].arguments`` and
  ``rounds[*].tool_results[*].content``, any JSON: keys, strings and numbers)
  and the text the model wrote beside its tool calls;
* retrieved ``knowledge``, the agent's ``instructions``, the values of
  ``input.prompt_variables``;
* the check's ``allowed`` values.

Texts come most recent first (this turn's tools, then the customer, then the
thread newest first, then standing material), which is the order the sum
search prefers its terms in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.textmap import normalize_plain
from turncheck.worker.turns.structs import Turn

# Between two texts: not white space and not a word character, so no fact
# (a date, a quote, a phone) is read across the seam of two sources.
SEAM = "\n\x00\n"
# Walking JSON checks the budget every so many values.
_CHECK_EVERY = 256


def source_texts(turn: Turn, allowed: Sequence[str], budget: Budget) -> list[str]:
    """Every source text of ``turn``, most recent first."""
    texts: list[str] = []
    for round_ in reversed(turn.rounds):
        for result in round_.tool_results:
            texts.extend(json_texts(result.content, budget))
        for call in round_.tool_calls:
            texts.extend(json_texts(call.arguments, budget))
        if round_.text:
            texts.append(round_.text)
    texts.extend(m.content for m in reversed(turn.input.messages))
    if turn.input.transcript:
        texts.append(turn.input.transcript)
    texts.extend(m.content for m in reversed(turn.history))
    texts.extend(k.content for k in turn.knowledge)
    if turn.instructions:
        texts.append(turn.instructions)
    texts.extend(json_texts(turn.input.prompt_variables, budget))
    texts.extend(allowed)
    return texts


def json_texts(value: Any, budget: Budget) -> list[str]:
    """Strings, keys and numbers in any JSON value, depth first, without recursion.

    Built as a list, not yielded: a tool result holds hundreds of values, and resuming a
    generator for each cost more than the walk. Decoded JSON holds exact types, so they
    are told apart by identity first, the way ``isinstance`` would tell them apart."""
    texts: list[str] = []
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen % _CHECK_EVERY == 0:
            budget.check()
        kind = type(item)
        if kind is str:
            if item:
                texts.append(item)
        elif kind is dict:
            # Reversed so that popping visits values in their written order.
            for key, inner in reversed(item.items()):
                stack.append(inner)
                stack.append(key)
        elif kind is list:
            stack.extend(reversed(item))
        elif kind is int or kind is float:
            texts.append(str(item))
        elif isinstance(item, str):
            if item:
                texts.append(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            texts.append(str(item))
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                stack.append(inner)
                stack.append(key)
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
    return texts


def join_sources(texts: Sequence[str], budget: Budget) -> str:
    """One text of all ``texts``, normalised as the answer is (``textmap.normalize``:
    NFKC, canonical dashes and digits, invisible characters removed), so a date or
    phone written with U+2011 on one side and "-" on the other is the same fact."""
    return normalize_plain(SEAM.join(texts), budget)
