"""A check's results page by page, and one turn's results, over a real server."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.api.conftest import save, turn
from tests.factories import FIXED_NOW
from turncheck.alerts.setup import link_maker
from turncheck.worker.checks import Verdict
from turncheck.worker.pipeline.records import TurnRef
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

FAILED = [("no-competitors", Verdict.FAILED)]


async def store_failures(store: Store, count: int, per_batch: int = 50) -> None:
    """``count`` failed results of no-competitors, of turns all created at one moment and
    stored ``per_batch`` at a time, minutes apart, so the pages must break ties on the
    write."""
    for start in range(0, count, per_batch):
        turns = [turn(f"t-{i:04d}") for i in range(start, min(start + per_batch, count))]
        await save(store, turns, FAILED, FIXED_NOW - timedelta(minutes=count - start))


async def all_pages(api: httpx.AsyncClient, first: str) -> list[list[dict[str, object]]]:
    pages, url = [], first
    while url:
        response = await api.get(url)
        assert response.status_code == 200, response.text
        body = response.json()
        pages.append(body["results"])
        url = body["next"]
        assert (url is None) == (body["next_cursor"] is None)
    return pages


async def test_250_failures_come_in_three_pages_newest_first_without_duplicates(
    api: httpx.AsyncClient, store: Store
) -> None:
    await store_failures(store, 250)
    await save(store, [turn("t-ok")], [("no-competitors", Verdict.PASSED)])
    pages = await all_pages(api, "/v1/checks/no-competitors/results?limit=100")
    assert [len(page) for page in pages] == [100, 100, 50]
    rows = [row for page in pages for row in page]
    assert len({row["turn_id"] for row in rows}) == 250
    keys = [(row["turn_created_at"], int(str(row["turn_id"])[2:])) for row in rows]
    assert keys == sorted(keys, reverse=True)  # newest first, later-stored first on a tie
    assert {row["verdict"] for row in rows} == {"failed"}


async def test_results_stored_while_paging_never_shift_a_later_page(
    api: httpx.AsyncClient, store: Store
) -> None:
    """Keyset pages: new turns' results land before the first page, never in a later one."""
    await store_failures(store, 250)
    first = (await api.get("/v1/checks/no-competitors/results?limit=100")).json()
    await save(store, [turn(f"late-{i}") for i in range(30)], FAILED, FIXED_NOW)
    await save(
        store, [turn(f"later-{i}") for i in range(5)], FAILED, FIXED_NOW + timedelta(hours=1)
    )
    rest = await all_pages(api, first["next"])
    seen = [row["turn_id"] for row in first["results"]] + [
        row["turn_id"] for page in rest for row in page
    ]
    assert [len(page) for page in rest] == [100, 50]
    assert sorted(seen) == sorted(f"t-{i:04d}" for i in range(250))


async def test_older_turns_stored_while_paging_come_in_a_later_page_once(
    api: httpx.AsyncClient, store: Store
) -> None:
    """Pages are in the turns' order: a replay of older turns while someone pages lands
    in the pages still to come, and nothing is given twice."""
    await store_failures(store, 250)
    first = (await api.get("/v1/checks/no-competitors/results?limit=100")).json()
    older = (FIXED_NOW - timedelta(days=1)).isoformat()
    await save(store, [turn(f"old-{i}", created_at=older) for i in range(5)], FAILED)
    rest = await all_pages(api, first["next"])
    seen = [row["turn_id"] for row in first["results"]] + [
        row["turn_id"] for page in rest for row in page
    ]
    assert [len(page) for page in rest] == [100, 55]
    assert [row["turn_id"] for row in rest[-1][-5:]] == [f"old-{i}" for i in range(4, -1, -1)]
    assert len(seen) == len(set(seen)) == 255


async def test_a_result_row_has_ids_verdict_and_times_and_no_person(
    api: httpx.AsyncClient, store: Store
) -> None:
    await save(store, [turn("t-1", thread_id="th-9")], FAILED)
    [row] = (await api.get("/v1/checks/no-competitors/results")).json()["results"]
    assert row == {
        "turn_id": "t-1",
        "thread_id": "th-9",
        "agent_id": "support-bot",
        "agent_version": "7",
        "check": "no-competitors",
        "check_version": "v1",
        "kind": "does_not_contain",
        "stage": "output",
        "mode": "block",
        "verdict": "failed",
        "score": None,
        "reason": "The text contains a banned phrase.",
        "spans": [{"field": "output.text", "start": 3, "end": 9, "label": "phrase"}],
        "checked_at": "2026-11-29T12:00:00Z",
        "turn_created_at": "2026-11-29T10:00:00Z",
        "label": None,
        "rollout": "live",
        "turn_url": None,
    }


async def test_verdict_agent_since_and_until_filter_the_results_by_the_turns_time(
    api: httpx.AsyncClient, store: Store
) -> None:
    """since and until bound the turn's created_at, not when its result was stored: the
    turns here are stored newest first, as a replay of older ones after today's would."""
    check = [("c", Verdict.FAILED)]

    def made(turn_id: str, days_ago: int) -> TurnRef:
        return turn(turn_id, created_at=(FIXED_NOW - timedelta(days=days_ago)).isoformat())

    await save(store, [made("new", 0)], check, FIXED_NOW - timedelta(days=2))
    await save(store, [made("mid", 1)], check, FIXED_NOW - timedelta(days=1))
    await save(store, [made("old", 2)], check, FIXED_NOW)
    await save(store, [made("err", 0)], [("c", Verdict.ERRORED)], FIXED_NOW)
    await save(store, [made("ok", 0)], [("c", Verdict.PASSED)], FIXED_NOW)
    other = turn("other", agent={"id": "sales-bot", "version": 1})
    await save(store, [other], check, FIXED_NOW - timedelta(days=3))

    async def ids(query: str) -> list[str]:
        response = await api.get(f"/v1/checks/c/results?{query}")
        assert response.status_code == 200, response.text
        return sorted(row["turn_id"] for row in response.json()["results"])

    assert await ids("") == ["err", "mid", "new", "old", "other"]
    assert await ids("verdict=passed") == ["ok"]
    assert await ids("verdict=errored,passed") == ["err", "ok"]
    assert await ids("agent=sales-bot") == ["other"]
    assert await ids("since=2026-11-28T11:00:00Z") == ["err", "mid", "new", "other"]
    assert await ids("since=2026-11-28T00:00&until=2026-11-29T00:00") == ["mid"]
    assert await ids("until=2026-11-28T11:00:00Z") == ["old"]


async def test_bad_query_values_are_422_naming_the_parameter(api: httpx.AsyncClient) -> None:
    for query, name in [
        ("limit=1001", "'limit'"),
        ("limit=0", "'limit'"),
        ("verdict=failed,maybe", "'verdict'"),
        ("since=yesterday", "'since'"),
        ("cursor=not-a-cursor", "'cursor'"),
        ("since=2026-11-29T00:00Z&until=2026-11-28T00:00Z", "'until'"),
    ]:
        response = await api.get(f"/v1/checks/c/results?{query}")
        assert response.status_code == 422, query
        assert name in response.json()["error"], response.json()
        assert "maybe" not in response.text and "yesterday" not in response.text


def cursor_of(fields: list[object]) -> str:
    raw = json.dumps(fields, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def test_a_cursor_from_before_pages_were_in_turn_order_is_a_422_naming_it(
    api: httpx.AsyncClient, store: Store
) -> None:
    """Reading on from a cursor of the storage-time order would skip or repeat results:
    it is refused, saying to start again, and the first page still answers."""
    await store_failures(store, 3)
    for old in (["2026-11-29T12:03:00+00:00", 2, 0], ["2026-11-29T12:03:00+00:00", 2]):
        response = await api.get(f"/v1/checks/no-competitors/results?cursor={cursor_of(old)}")
        assert response.status_code == 422
        assert response.json() == {
            "error": "invalid query parameter 'cursor': a cursor from before pages were "
            "ordered by the turn's time: ask the first page again"
        }
    unknown = cursor_of([3, "2026-11-29T12:03:00+00:00", 2, 0])
    response = await api.get(f"/v1/checks/no-competitors/results?cursor={unknown}")
    assert response.status_code == 422 and "not a cursor this API gave" in response.text
    first = await api.get("/v1/checks/no-competitors/results?limit=2")
    assert first.status_code == 200 and len(first.json()["results"]) == 2
    again = await api.get(first.json()["next"])
    assert [row["turn_id"] for row in again.json()["results"]] == ["t-0000"]


async def test_the_link_an_alert_sends_opens_the_failures_it_counted(
    api: httpx.AsyncClient, store: Store, database_url: str
) -> None:
    """The path and query alerts/setup.py builds are the API's own, and its since is a
    turn's time: a turn of yesterday stored in the same write is left out."""
    today = turn("t-1", created_at=FIXED_NOW.isoformat())
    yesterday = turn("t-0", created_at=(FIXED_NOW - timedelta(days=1)).isoformat())
    await save(store, [today, yesterday], [("no competitors", Verdict.FAILED)], FIXED_NOW)
    settings = Settings(database_url=database_url, api_url="http://api.example/")
    link = link_maker(settings)("no competitors", "support-bot", FIXED_NOW - timedelta(hours=1))
    assert link.api_url is not None
    parts = urlsplit(link.api_url)
    assert parse_qs(parts.query)["verdict"] == ["failed,errored"]
    response = await api.get(f"{parts.path}?{parts.query}")
    assert response.status_code == 200, response.text
    assert [row["turn_id"] for row in response.json()["results"]] == ["t-1"]


async def test_a_turns_results_are_listed_in_stored_order(
    api: httpx.AsyncClient, store: Store
) -> None:
    await save(store, [turn("t-1")], [("a", Verdict.PASSED), ("b", Verdict.FAILED)])
    response = await api.get("/v1/turns/t-1/results")
    assert response.status_code == 200
    body = response.json()
    assert body["turn_id"] == "t-1"
    assert [(r["check"], r["verdict"]) for r in body["results"]] == [
        ("a", "passed"),
        ("b", "failed"),
    ]


async def test_a_turn_without_results_is_a_json_404(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/turns/nope/results")
    assert response.status_code == 404
    assert response.json() == {"error": "no results for this turn"}
