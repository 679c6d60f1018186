"""What `pass-rates` and `failures` say of a check or agent that has no results at all,
read from the store on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.alerts.fakes import START, store_results, verdicts
from tests.factories import FIXED_NOW
from turncheck.worker.cli.options import parse_window
from turncheck.worker.cli.read import unknown
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store import Store


async def test_a_name_without_results_is_said_with_the_names_that_have_some(
    store: Store,
) -> None:
    await store_results(store, verdicts(3, 1), at=START, check="grounded", agent="support-bot")
    await store_results(store, verdicts(2), at=START, check="polite", agent="sales-bot")
    queries = store.queries
    assert await unknown(queries, "grounde", None) == (
        "no results for check 'grounde'; checks with results: grounded, polite"
    )
    assert await unknown(queries, "grounded", "sales-bot") == (
        "no agent 'sales-bot' has results for check 'grounded'; "
        "agents with results for it: support-bot"
    )
    assert await unknown(queries, None, "nobody") == (
        "no results for agent 'nobody'; agents with results: sales-bot, support-bot"
    )


async def test_known_names_are_not_refused_whatever_the_window(store: Store) -> None:
    """Only a name with no results at all is refused: an empty window is an empty table."""
    await store_results(store, verdicts(3), at=START, check="grounded", agent="support-bot")
    for check, agent in [("grounded", None), ("grounded", "support-bot"), (None, "support-bot")]:
        assert await unknown(store.queries, check, agent) is None
    assert await unknown(store.queries, None, None) is None


async def test_an_empty_store_says_nothing_has_results_yet(store: Store) -> None:
    assert await unknown(store.queries, "grounded", None) == (
        "no results for check 'grounded'; nothing has results yet"
    )


@pytest.mark.parametrize(
    ("since", "until"), [("1d", "2d"), ("2026-11-01", "2026-11-01"), ("2026-11-02", "2026-11-01")]
)
def test_an_until_not_after_since_is_refused_naming_both(since: str, until: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        parse_window(since, until, FIXED_NOW)
    assert str(refused.value) == (
        f"invalid --until {until!r}: it is not after --since {since!r}, so the window holds nothing"
    )


def test_a_bad_until_is_refused_as_until() -> None:
    with pytest.raises(ConfigurationError, match=r"^invalid --until 'soon': use 7d"):
        parse_window("1d", "soon", FIXED_NOW)
    assert parse_window("2d", "1d", FIXED_NOW) == (
        FIXED_NOW - timedelta(days=2),
        FIXED_NOW - timedelta(days=1),
    )
