"""Pass rates split by check version and agent version, on SQLite and PostgreSQL: a check
defined twice for disjoint agent versions is counted per version, and a rate says which
versions it covers."""

from datetime import timedelta
from pathlib import Path

from tests.checks.test_agent_versions import TWO_DEFINITIONS
from tests.factories import FIXED_NOW, check_set, make_turn
from turncheck.worker.checks import CheckSet
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.queries import DAY
from turncheck.worker.store.rates import Split

SINCE = FIXED_NOW - timedelta(days=1)


async def store_turns(store: Store, checks: CheckSet, turns: list[tuple[str, int, str]]) -> None:
    """(turn id, agent version, answer) turns, checked and stored as the worker does."""
    items = []
    for turn_id, version, text in turns:
        turn = make_turn(
            turn_id,
            text,
            agent={"id": "support-bot", "version": version},
            created_at="2026-11-29T10:00:00Z",
        )
        items.append(TurnResults(TurnRef.of(turn), evaluate(turn, checks), timedelta(days=30)))
    await store.writer.save(items, FIXED_NOW)


async def seeded(store: Store, tmp_path: Path) -> tuple[str, str]:
    """v7: one refund (failed), one fine; v8 and v9: each one 'money back' (failed only
    under the second definition). The two check versions, v7's first."""
    checks = check_set(tmp_path, TWO_DEFINITIONS)
    await store_turns(
        store,
        checks,
        [
            ("t-1", 7, "A refund, sure."),
            ("t-2", 7, "Money back, sure."),
            ("t-3", 8, "Money back, sure."),
            ("t-4", 9, "Hello."),
        ],
    )
    old = checks.for_agent("support-bot", 7)[0].id.version
    new = checks.for_agent("support-bot", 8)[0].id.version
    return old, new


async def test_one_rate_without_split_says_it_mixes_the_two_versions(
    store: Store, tmp_path: Path
) -> None:
    """Without a split, the check has one rate, naming both check versions and every agent
    version, marked as mixing versions."""
    old, new = await seeded(store, tmp_path)
    [rate] = await store.queries.pass_rates(since=SINCE)
    assert (rate.check, rate.passed, rate.failed, rate.total) == ("no-refunds", 2, 2, 4)
    assert set(rate.check_versions) == {old, new}
    assert rate.agent_versions == ("7", "8", "9")
    assert rate.mixed_versions
    assert (rate.check_version, rate.agent_version) == (None, None)


async def test_split_by_check_version_gives_a_rate_per_version(
    store: Store, tmp_path: Path
) -> None:
    """Split by check version, each definition has its own counts and covers its own
    agent versions only."""
    old, new = await seeded(store, tmp_path)
    rates = await store.queries.pass_rates(since=SINCE, split=Split.CHECK_VERSION)
    seen = {
        r.check_version: (r.passed, r.failed, r.agent_versions, r.mixed_versions) for r in rates
    }
    assert seen == {old: (1, 1, ("7",), False), new: (1, 1, ("8", "9"), False)}


async def test_split_by_agent_version_and_both(store: Store, tmp_path: Path) -> None:
    """Split by agent version, rates come in the versions' order; split by both, one per
    pair; bucketed rates split the same way."""
    old, new = await seeded(store, tmp_path)
    by_agent = await store.queries.pass_rates(since=SINCE, split=Split.AGENT_VERSION)
    assert [(r.agent_version, r.passed, r.failed, r.check_versions) for r in by_agent] == [
        ("7", 1, 1, (old,)),
        ("8", 0, 1, (new,)),
        ("9", 1, 0, (new,)),
    ]
    both = await store.queries.pass_rates(since=SINCE, split=Split.BOTH)
    assert [(r.agent_version, r.check_version) for r in both] == [
        ("7", old),
        ("8", new),
        ("9", new),
    ]
    days = await store.queries.bucketed_pass_rates(DAY, since=SINCE, split=Split.CHECK_VERSION)
    assert sorted((r.check_version, r.total) for _, r in days) == sorted([(old, 2), (new, 2)])
    [(_, day)] = await store.queries.bucketed_pass_rates(DAY, since=SINCE)
    assert day.mixed_versions and day.total == 4
