"""The API's results carry ``turn_url``, the turn's page on the chat platform, when
TURNCHECK_TURN_URL is set, and null when it is not."""

from __future__ import annotations

from urllib.parse import quote

from tests.api.conftest import AUTH, api_settings, running_api, save, turn
from tests.factories import FIXED_NOW
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store

TEMPLATE = "https://chat.example.com/a/{agent_id}/t/{thread_id}?turn={turn_id}&token=tok-42"
ODD = "web/2026 t?1é"
ODD_LINK = (
    "https://chat.example.com/a/support-bot/t/th-1?turn=web%2F2026%20t%3F1%C3%A9&token=tok-42"
)


async def stored(store: Store) -> None:
    await save(
        store,
        [turn(ODD), turn("t-alone", thread_id=None)],
        [("no-competitors", Verdict.FAILED)],
        FIXED_NOW,
    )


async def test_results_and_a_turn_s_results_link_each_turn(store: Store, database_url: str) -> None:
    """Every listing of results links its turn; a turn without a thread gets null."""
    await stored(store)
    async with running_api(api_settings(database_url, turn_url=TEMPLATE), store) as api:
        api.headers.update(AUTH)
        page = (await api.get("/v1/checks/no-competitors/results?since=30d")).json()
        one = (await api.get(f"/v1/turns/{quote(ODD, safe='')}/results")).json()
    assert {r["turn_id"]: r["turn_url"] for r in page["results"]} == {
        ODD: ODD_LINK,
        "t-alone": None,
    }
    assert [r["turn_url"] for r in one["results"]] == [ODD_LINK]


async def test_without_a_template_turn_url_is_null(store: Store, database_url: str) -> None:
    await stored(store)
    async with running_api(api_settings(database_url), store) as api:
        api.headers.update(AUTH)
        page = (await api.get("/v1/checks/no-competitors/results?since=30d")).json()
    assert [r["turn_url"] for r in page["results"]] == [None, None]
