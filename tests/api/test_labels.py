"""Labels over the API, on a real uvicorn over SQLite and PostgreSQL: setting, replacing
and clearing one, what is refused, results shown with their label, and pass rates that
leave false alarms out."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.conftest import API_NOW, save, turn
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store

C = "no-competitors"
SINCE = {"since": "2026-11-01T00:00:00Z"}


def path(turn_id: str, check: str = C) -> str:
    return f"/v1/turns/{turn_id}/results/{check}/label"


async def seed(store: Store) -> None:
    """Turns a and b failed no-competitors, c passed it, d errored; a/b holds a slash."""
    await save(store, [turn("a"), turn("b"), turn("a/b")], [(C, Verdict.FAILED)])
    await save(store, [turn("c")], [(C, Verdict.PASSED)])
    await save(store, [turn("d")], [(C, Verdict.ERRORED)])


async def rate(api: httpx.AsyncClient, **params: str) -> dict[str, Any]:
    response = await api.get("/v1/pass-rates", params={**SINCE, **params})
    assert response.status_code == 200, response.text
    [row] = response.json()["rates"]
    return dict(row)


async def test_a_label_is_set_replaced_and_shown_with_its_result(
    api: httpx.AsyncClient, store: Store
) -> None:
    await seed(store)
    put = await api.put(path("a"), json={"label": "confirmed", "note": "first look"})
    assert put.status_code == 200, put.text
    assert put.json() == {
        "turn_id": "a",
        "check": C,
        "check_version": "v1",
        "agent_id": "support-bot",
        "label": "confirmed",
        "note": "first look",
        "labelled_at": API_NOW.isoformat().replace("+00:00", "Z"),
    }
    again = await api.put(path("a"), json={"label": "false_alarm", "note": "quoted, not said"})
    assert again.status_code == 200 and again.json()["label"] == "false_alarm"
    [shown] = (await api.get("/v1/turns/a/results")).json()["results"]
    assert (shown["label"], shown["label_note"]) == ("false_alarm", "quoted, not said")
    page = (await api.get(f"/v1/checks/{C}/results", params=SINCE)).json()["results"]
    by_turn = {r["turn_id"]: r for r in page}
    assert by_turn["a"]["label"] == "false_alarm" and by_turn["b"]["label"] is None
    assert "label_note" not in by_turn["a"]  # a person's note stays in the turn's own view
    assert (await api.put(path("a/b"), json={"label": "confirmed"})).status_code == 200


async def test_what_cannot_be_labelled_is_refused_in_json(
    api: httpx.AsyncClient, store: Store
) -> None:
    """No such result is a 404, a result that did not fail a 409, a bad body a 422 that
    never echoes the note."""
    await seed(store)
    missing = await api.put(path("zz"), json={"label": "confirmed"})
    assert missing.status_code == 404
    assert missing.json() == {"error": "no stored result of this check on this turn"}
    assert (await api.put(path("a", "grounded"), json={"label": "confirmed"})).status_code == 404
    for turn_id, verdict in (("c", "passed"), ("d", "errored")):
        refused = await api.put(path(turn_id), json={"label": "false_alarm"})
        assert refused.status_code == 409
        assert refused.json() == {
            "error": f"the result is {verdict}: only a failed result can be labelled"
        }
    long = await api.put(path("a"), json={"label": "confirmed", "note": "NOTE" * 251})
    assert long.status_code == 422 and "NOTE" not in long.text
    assert long.json()["error"].startswith("invalid body 'note'")
    nul = await api.put(path("a"), json={"label": "confirmed", "note": "a\x00b"})
    assert nul.status_code == 422
    assert (await api.put(path("a"), json={"label": "maybe"})).status_code == 422
    assert (await api.get("/v1/turns/a/results")).json()["results"][0]["label"] is None
    unauthorised = await api.put(
        path("a"), json={"label": "confirmed"}, headers={"Authorization": "Bearer nope"}
    )
    assert unauthorised.status_code == 401


async def test_a_label_is_cleared_and_clearing_again_says_there_was_none(
    api: httpx.AsyncClient, store: Store
) -> None:
    await seed(store)
    await api.put(path("a"), json={"label": "false_alarm"})
    first = await api.delete(path("a"))
    assert first.status_code == 200 and first.json() == {
        "turn_id": "a",
        "check": C,
        "cleared": True,
    }
    assert (await api.delete(path("a"))).json()["cleared"] is False
    assert (await api.delete(path("zz"))).status_code == 404
    assert (await rate(api))["labelled_failures"] == 0


async def test_pass_rates_leave_false_alarms_out_when_asked_and_give_the_precision(
    api: httpx.AsyncClient, store: Store
) -> None:
    await seed(store)
    assert (await rate(api))["precision"] is None
    await api.put(path("a"), json={"label": "false_alarm"})
    await api.put(path("b"), json={"label": "confirmed"})
    raw = await rate(api)
    assert (raw["passed"], raw["failed"], raw["errored"], raw["total"]) == (1, 3, 1, 5)
    assert (raw["labelled_failures"], raw["false_alarms"], raw["confirmed"]) == (2, 1, 1)
    assert raw["precision"] == 0.5
    response = await api.get("/v1/pass-rates", params={**SINCE, "exclude_false_alarms": "true"})
    assert response.json()["exclude_false_alarms"] is True
    [excluded] = response.json()["rates"]
    assert (excluded["passed"], excluded["failed"], excluded["total"]) == (2, 2, 5)
    assert excluded["pass_rate"] == 0.4 and excluded["precision"] == 0.5
    [daily] = (
        await api.get(
            "/v1/pass-rates", params={**SINCE, "bucket": "day", "exclude_false_alarms": "true"}
        )
    ).json()["rates"]
    assert (daily["passed"], daily["failed"], daily["false_alarms"]) == (2, 2, 1)
