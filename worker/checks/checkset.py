"""The checks a turn gets: every compiled check by agent, picked by agent version.

A turn is checked by the checks of its agent whose ``agent_versions`` hold its
version. A worker sees few versions of an agent, so what a version gets is picked once
and kept, in a bounded cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from turncheck.schemas.agent_versions import EVERY_VERSION, VersionScope
from turncheck.schemas.checkbase import AlertRule, Rollout
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.result import CheckId, IdentifiedCheck, Outcome
from turncheck.worker.turns.structs import Turn

if TYPE_CHECKING:
    from turncheck.worker.judge.kinds import CompiledJudged


@dataclass(frozen=True, slots=True)
class CompiledCheck(IdentifiedCheck):
    id: CheckId
    run: Callable[[Turn, Budget], Outcome]
    """Pure: the same turn gives the same outcome; raises ``BudgetSpent`` when out of time."""
    scope: VersionScope = EVERY_VERSION
    """The agent versions whose turns it checks (``CheckSet.for_agent``)."""


MAX_CACHED_VERSIONS = 256
"""(agent, version) pairs whose checks a set keeps picked. A worker sees a few versions
of each agent; past this many (a producer writing a new version on every turn), the
cache starts again rather than grow."""


class _HasScope(Protocol):
    @property
    def scope(self) -> VersionScope: ...


Scoped = TypeVar("Scoped", bound=_HasScope)


@dataclass(frozen=True, slots=True)
class CheckSet:
    """Every loaded check, by the agent whose turns it applies to: rule checks, which
    run in the pipeline on every turn, and judged checks, which a judge decides. A turn
    gets those of its agent that apply to its agent version (``for_agent``,
    ``judged_for_agent``); ``by_agent`` and ``judged_by_agent`` hold every version's."""

    by_agent: dict[str, tuple[CompiledCheck, ...]]
    judged_by_agent: dict[str, tuple[CompiledJudged, ...]] = field(default_factory=dict)
    alert_rules: dict[tuple[str, str], AlertRule | None] = field(default_factory=dict)
    """By (agent, check name): the check's alert as written, None when it is off."""
    rollouts: dict[tuple[str, str], Rollout] = field(default_factory=dict)
    """By (agent, check name): ``live`` or ``shadow``; a shadow check's results are stored
    and counted, but raise no alert and put no event in the outbox."""
    _rules: dict[tuple[str, int | str], tuple[CompiledCheck, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _judged: dict[tuple[str, int | str], tuple[CompiledJudged, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def for_agent(self, agent_id: str, version: int | str) -> tuple[CompiledCheck, ...]:
        """The rule checks of the agent that apply to this version of it."""
        return _pick(self._rules, self.by_agent, agent_id, version)

    def judged_for_agent(self, agent_id: str, version: int | str) -> tuple[CompiledJudged, ...]:
        """The judged checks of the agent that apply to this version of it."""
        return _pick(self._judged, self.judged_by_agent, agent_id, version)

    @property
    def shadow(self) -> frozenset[tuple[str, str]]:
        """(agent, check name) of every shadow check."""
        return frozenset(key for key, rollout in self.rollouts.items() if rollout == "shadow")

    @property
    def has_judged(self) -> bool:
        return any(self.judged_by_agent.values())

    def __len__(self) -> int:
        return sum(map(len, self.by_agent.values())) + sum(map(len, self.judged_by_agent.values()))


def _pick(
    cache: dict[tuple[str, int | str], tuple[Scoped, ...]],
    checks: dict[str, tuple[Scoped, ...]],
    agent_id: str,
    version: int | str,
) -> tuple[Scoped, ...]:
    # 7 and "7" are two keys with the same checks (a scope matches a version by its text):
    # a turn's own version is the key, with no string made for it on every turn.
    key = (agent_id, version)
    found = cache.get(key)
    if found is None:
        if len(cache) >= MAX_CACHED_VERSIONS:
            cache.clear()
        found = cache[key] = tuple(c for c in checks.get(agent_id, ()) if c.scope.covers(version))
    return found
