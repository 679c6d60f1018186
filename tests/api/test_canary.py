"""No answer of the API carries text of a turn: turns holding a canary go through the
real pipeline and store, then every endpoint is read."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx

from tests.factories import FIXED_NOW, check_set, turn_bytes
from turncheck.worker.pipeline.batch import Pipeline, RawMessage
from turncheck.worker.store import Store

CANARY = "CANARY-7f3a9c"
CHECKS = f"""
agent: support-bot
checks:
  - name: no-canary
    kind: does_not_contain
    phrases: [{CANARY}]
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{{6}}'
  - name: sensitive
    kind: sensitive_data
  - name: grounded
    kind: facts
"""


async def test_no_response_body_contains_text_of_a_stored_turn(
    api: httpx.AsyncClient, store: Store, tmp_path: Path
) -> None:
    pipeline = Pipeline(
        checks=check_set(tmp_path, CHECKS),
        store=store.writer,
        dead_letter=_none,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
    )
    text = f"{CANARY} card 4111 1111 1111 1111, ticket TCK-123456, mail {CANARY}@example.com"
    messages = [
        RawMessage(
            turn_bytes(
                f"t-{i}",
                text,
                person_id="p-1",
                input={"messages": [{"role": "user", "content": f"hi {CANARY}"}]},
            )
        )
        for i in range(3)
    ]
    report = await pipeline.handle_batch(messages, _commit)
    assert report.not_passed >= 3 * 3, "the canary turns must fail checks to be worth reading"

    since = (FIXED_NOW - timedelta(days=1)).isoformat()
    paths = [
        "/v1/turns/t-0/results",
        f"/v1/pass-rates?since={since.replace('+', '%2B')}",
        f"/v1/pass-rates?bucket=hour&since={since.replace('+', '%2B')}",
        "/v1/alerts",
        "/metrics",
        "/readyz",
        "/openapi.json",
        "/asyncapi.json",
        "/v1/turns/nope/results",
        f"/v1/checks/{CANARY}/results?verdict=nope",
    ]
    for check in ("no-canary", "no-ticket-ids", "sensitive", "grounded"):
        paths.append(f"/v1/checks/{check}/results?verdict=passed,failed,errored&limit=1")
    bodies = []
    for path in paths:
        response = await api.get(path)
        bodies.append((path, response.status_code, response.text))
        if response.headers.get("content-type") == "application/json" and "next" in response.json():
            follow = await api.get(response.json()["next"])
            bodies.append((response.json()["next"], follow.status_code, follow.text))
    erased = await api.delete("/v1/persons/p-1")
    bodies.append(("DELETE", erased.status_code, erased.text))
    assert erased.json()["deleted"]["results"] == 12
    read = [path for path, status, _ in bodies if status == 200]
    assert len(read) >= 12, bodies
    for path, _, body in bodies:
        for fragment in (CANARY, "4111", "TCK-123456", "example.com"):
            assert fragment not in body, (path, fragment)


async def _none(rejected: object) -> None:
    """No dead letters expected."""


async def _commit() -> None:
    """Nothing to commit."""
