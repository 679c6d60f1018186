"""`rollout: shadow` on a check: known to the check set per agent, and not part of the
check's version, so promoting it to live keeps its results and rates."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import check_set
from turncheck.worker.checks import CheckSet
from turncheck.worker.errors import CheckDefinitionError

CHECKS = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
  - name: polite
    kind: judge
    criteria: polite_tone
    mode: background
    judge_model: gpt-4o-mini
"""


def versions(checks: CheckSet) -> dict[str, str]:
    found = {c.name: c.id.version for c in checks.for_agent("support-bot", 7)}
    found.update({c.name: c.id.version for c in checks.judged_for_agent("support-bot", 7)})
    return found


def with_rollout(rollout: str) -> str:
    return CHECKS.replace(
        "    phrases: [HelpCo]\n", f"    phrases: [HelpCo]\n    rollout: {rollout}\n"
    ).replace("    mode: background\n", f"    mode: background\n    rollout: {rollout}\n")


def test_promoting_a_shadow_check_keeps_its_version(tmp_path: Path) -> None:
    live = check_set(tmp_path, CHECKS)
    shadow = check_set(tmp_path, with_rollout("shadow"))
    promoted = check_set(tmp_path, with_rollout("live"))
    assert versions(shadow) == versions(live) == versions(promoted)
    assert shadow.shadow == frozenset(
        {("support-bot", "no-competitors"), ("support-bot", "polite")}
    )
    assert live.shadow == promoted.shadow == frozenset()
    assert live.rollouts[("support-bot", "polite")] == "live"


def test_a_rollout_that_is_neither_live_nor_shadow_is_refused_naming_the_field(
    tmp_path: Path,
) -> None:
    with pytest.raises(CheckDefinitionError) as refused:
        check_set(tmp_path, with_rollout("canary"))
    assert "rollout" in str(refused.value) and "no-competitors" in str(refused.value)
