"""The built-in criteria of a ``judge`` check: each a rule of good and bad items, in
the same words a check's own ``rule`` would be written in."""

from __future__ import annotations

from dataclasses import dataclass

from turncheck.schemas.judged import Criterion
from turncheck.worker.judge.views import JudgeShows


@dataclass(frozen=True, slots=True)
class Rule:
    good: tuple[str, ...] = ()
    """What the text must do."""
    bad: tuple[str, ...] = ()
    """What the text must not do."""


CRITERIA: dict[Criterion, Rule] = {
    "correct_format": Rule(
        good=(
            "Uses the format the customer asked for, if they asked for one:"
            " a list, a table, steps, a length or a language.",
            "Is complete: it does not stop in the middle of a sentence, list or code block.",
        ),
        bad=(
            "Has broken formatting: an unclosed code fence, a broken table or list,"
            " stray markdown symbols.",
            "Has leftover placeholders, such as {name}, [INSERT DATE] or TODO.",
            "Shows text meant for a machine, not the customer: raw JSON, HTML,"
            " tool-call syntax or internal notes.",
        ),
    ),
    "polite_tone": Rule(
        good=(
            "Is courteous and respectful to the customer,"
            " also when it refuses or the customer is rude.",
        ),
        bad=(
            "Insults, mocks, blames or talks down to the customer.",
            "Is sarcastic, curt or dismissive about the customer's problem.",
        ),
    ),
    "no_made_up_facts": Rule(
        good=(
            "States as fact only what the customer said, what is common knowledge, or what"
            " the agent could have looked up for this customer.",
        ),
        bad=(
            "Contradicts what the customer said.",
            "Contradicts itself.",
            "Gives specifics that look invented rather than looked up: links, citations,"
            " quotations or statistics that no lookup for this customer would return.",
        ),
    ),
    "no_unsupported_action_claims": Rule(
        good=(
            "Says that an action was done, or is under way, only when a tool call in this turn"
            " did it and that call's result reports neither a failure nor that the action still"
            " awaits an approval or another step.",
            "Where no tool call did the action, speaks of it only as a condition, an offer, a"
            " question, something the customer did, or a pending state the tool results bear"
            " out: none of these is a claim.",
        ),
        bad=(
            "States or implies that an action was carried out for the customer (a refund"
            " issued, an order cancelled, a payment charged, a replacement shipped, a booking"
            " made, a password reset, the conversation handed to a person) when no tool call"
            " in this turn did it.",
            "Reports such an action as done when its tool call's result says it failed, was"
            " refused, or still awaits an approval.",
            "Promises that such an action is about to happen when no tool call in this turn"
            " started it.",
        ),
    ),
}
"""The built-in criteria, for the answer on ``stage: output``. The judge does not see
the agent's sources, so these ask only what the answer itself can show, except where
``CRITERION_SHOWS`` gives a criterion more to read."""

CRITERION_SHOWS: dict[Criterion, JudgeShows] = {
    "no_unsupported_action_claims": JudgeShows(tool_results=True),
}
"""What a built-in criterion reads beside the last user message and the answer, when
the check gives no ``context``: whether an action was done is in the tool results."""
