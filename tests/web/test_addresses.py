"""What every page does with an address the store could not even compare: a NUL in a path
or query value is a 400 page naming the part, before any store is asked (PostgreSQL
cannot hold or compare one)."""

from __future__ import annotations

import pytest

from tests.web.signed_in import signed_in
from turncheck.worker.store import Store


@pytest.mark.parametrize(
    ("address", "part"),
    [
        ("/ui/turns/t%00-1", "turn_id"),
        ("/ui/checks/support-bot/no%00pe", "check"),
        ("/ui/checks/support%00bot/grounded", "agent_id"),
        ("/ui/backtests/bt_%00x", "backtest_id"),
        ("/ui/?agent=support%00bot", "agent"),
        ("/ui/alerts?days=3%00", "days"),
    ],
)
async def test_a_nul_in_any_page_s_address_is_a_400_page(
    store: Store, database_url: str, address: str, part: str
) -> None:
    async with signed_in(store, database_url) as ui:
        shown = await ui.get(address)
    assert shown.status_code == 400, shown.text
    assert f"{part} must not contain a NUL character" in shown.text
    assert shown.headers["content-type"].startswith("text/html")
