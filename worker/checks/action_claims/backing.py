"""Which actions this turn's tool calls performed.

An action is backed when a tool call of this turn (``rounds``, never the
history) has a name matching one of the action's patterns (an exact name or a
shell glob, case-insensitive) and a result (by ``call_id``) that does not
report a failure or a wait (``tool_results``). A call with no result backs
nothing: the answer cannot know it worked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

from turncheck.schemas.checkfile import ActionName
from turncheck.worker.checks.action_claims.tool_results import result_failed
from turncheck.worker.checks.budget import Budget
from turncheck.worker.turns.structs import Turn


def backed_actions(
    turn: Turn,
    tools: Mapping[ActionName, tuple[str, ...]],
    wanted: Iterable[ActionName],
    budget: Budget,
) -> set[ActionName]:
    """The actions of ``wanted`` a successful tool call of ``turn`` performed."""
    results = {
        result.call_id: result.content for round_ in turn.rounds for result in round_.tool_results
    }
    backed: set[ActionName] = set()
    for action in wanted:
        patterns = tools[action]
        for round_ in turn.rounds:
            for call in round_.tool_calls:
                budget.check()
                name = call.name.lower()
                if not any(fnmatchcase(name, pattern) for pattern in patterns):
                    continue
                if call.id in results and not result_failed(results[call.id], budget):
                    backed.add(action)
    return backed
