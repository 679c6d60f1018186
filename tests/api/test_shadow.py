"""The API marks a shadow check's results, failures and pass rates, from the rollouts the
worker recorded: `serve` needs no check files for it."""

from __future__ import annotations

import httpx

from tests.api.conftest import save, turn
from tests.factories import FIXED_NOW
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store

VERDICTS = [("new-rule", Verdict.FAILED), ("old-rule", Verdict.FAILED)]


async def shadow_new_rule(store: Store) -> None:
    await store.rollouts.record(
        {("support-bot", "new-rule"): "shadow", ("support-bot", "old-rule"): "live"}, FIXED_NOW
    )
    await save(store, [turn("t-1")], VERDICTS)


async def test_a_turns_results_mark_the_shadow_check(api: httpx.AsyncClient, store: Store) -> None:
    await shadow_new_rule(store)
    results = (await api.get("/v1/turns/t-1/results")).json()["results"]
    assert sorted((r["check"], r["rollout"]) for r in results) == [
        ("new-rule", "shadow"),
        ("old-rule", "live"),
    ]


async def test_a_shadow_checks_failures_are_listed_and_marked(
    api: httpx.AsyncClient, store: Store
) -> None:
    await shadow_new_rule(store)
    [row] = (await api.get("/v1/checks/new-rule/results")).json()["results"]
    assert (row["turn_id"], row["verdict"], row["rollout"]) == ("t-1", "failed", "shadow")
    [row] = (await api.get("/v1/checks/old-rule/results")).json()["results"]
    assert row["rollout"] == "live"


async def test_pass_rates_count_a_shadow_check_and_mark_it(
    api: httpx.AsyncClient, store: Store
) -> None:
    await shadow_new_rule(store)
    for query in ("", "&bucket=day"):
        rates = (await api.get(f"/v1/pass-rates?since=2026-11-01{query}")).json()["rates"]
        assert sorted((r["check"], r["failed"], r["rollout"]) for r in rates) == [
            ("new-rule", 1, "shadow"),
            ("old-rule", 1, "live"),
        ]
